"""torch.func.vjp: run the function once, hand back its output and a function that pulls
cotangents of the output back to the primals (callable many times: the graph is kept)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core import grad_mode
from ..core.tensor import Tensor
from . import aux, pytree
from .argnums import with_fresh
from .levels import release
from .pullback import keeps_graph, pullback

_WHERE = "vjp(f, *primals)"


class _Star:
    def __repr__(self) -> str:
        return "*"


def pretty(spec: pytree.TreeSpec) -> str:
    """A structure as PyTorch's messages print it: (*, {'a': *})."""
    return repr(pytree.unflatten([_Star()] * spec.num_leaves, spec))


def output_leaves(output: Any, where: str) -> tuple[list[Tensor], pytree.TreeSpec]:
    return pytree.tensor_leaves(
        output,
        lambda kind: RuntimeError(
            f"{where}: expected f(*primals) to return only tensors, got unsupported type {kind}"
        ),
    )


def check_float(outputs: list[Tensor]) -> None:
    """Only floating outputs can be pulled back."""
    for o in outputs:
        if not o.dtype.is_floating_point:
            raise RuntimeError(
                "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                f"Tensor with dtype {o.dtype}"
            )


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """(func(*primals), vjp_fn) - with has_aux, (output, vjp_fn, aux)."""
    outer_grad = grad_mode.is_grad_enabled()
    with grad_mode.enable_grad():
        args, chosen, own = (), (), []
        if primals:
            args, chosen, own = with_fresh(primals, tuple(range(len(primals))))
        output, extra = aux.split(func(*args), has_aux, _WHERE)
        outputs, out_spec = output_leaves(output, _WHERE)
    inputs, in_spec = pytree.flatten(chosen)

    def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None):
        given, given_spec = pytree.flatten(cotangents)
        if given_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                f"outputs to the function. cotangents: {pretty(given_spec)}, primal output: "
                f"{pretty(out_spec)}"
            )
        check_float(outputs)
        if create_graph is None:
            create_graph = keeps_graph(outer_grad) or any(
                isinstance(c, Tensor) and c.requires_grad for c in given
            )
        grads = pullback(outputs, inputs, given, create_graph, retain_graph)
        return pytree.unflatten([release(g, own) for g in grads], in_spec)

    released = pytree.unflatten([release(o, own) for o in outputs], out_spec)
    if has_aux:
        return released, vjp_fn, aux.release_tree(extra, own)
    return released, vjp_fn
