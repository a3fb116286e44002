"""torch.func.jvp and linearize on the real forward mode: the primals become dual tensors
at the (one) forward level, the function runs once, and each output's tangent is J t."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..autograd import forward_ad
from ..core.forward_grad import tangent_of
from ..core.tensor import Tensor
from ..creation import zeros_like
from . import aux, pytree
from .vjp import output_leaves

_WHERE = "jvp(f, primals, tangents)"


def _leaves(tree: Any, what: str) -> tuple[list[Tensor], pytree.TreeSpec]:
    return pytree.tensor_leaves(
        tree,
        lambda kind: RuntimeError(f"{_WHERE}: Expected {what} to only contain Tensors, got {kind}"),
    )


def jvp(
    func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False
) -> tuple:
    """(func(*primals), J tangents) - with has_aux, (output, jvp_out, aux)."""
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{_WHERE}: Expected primals to be a tuple. E.g. it should be valid to call "
            "f(*primals)."
        )
    p_leaves, p_spec = pytree.flatten(primals)
    t_leaves, t_spec = pytree.flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            f"{_WHERE}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be. Got primals "
            f"with structure {p_spec!r} and tangents with structure {t_spec!r}"
        )
    if not p_leaves:
        raise RuntimeError(f"{_WHERE}: Expected primals to contain at least one Tensor.")
    _leaves(primals, "primals")
    _leaves(tangents, "tangents")
    with forward_ad.dual_level():
        duals = [
            forward_ad.make_dual(p, t if t.dtype == p.dtype else t.to(p.dtype))
            for p, t in zip(p_leaves, t_leaves)
        ]
        output, extra = aux.split(func(*pytree.unflatten(duals, p_spec)), has_aux, _WHERE)
        outputs, out_spec = output_leaves(output, _WHERE)
        out_tangents = [tangent_of(o) for o in outputs]
        if has_aux:
            extra = aux.release_tree(extra, [])
    out_tangents = [zeros_like(o) if t is None else t for o, t in zip(outputs, out_tangents)]
    result = (output, pytree.unflatten(out_tangents, out_spec))
    return (*result, extra) if has_aux else result


def linearize(func: Callable, *primals: Any) -> tuple[Any, Callable]:
    """(func(*primals), jvp_fn) where jvp_fn(*tangents) is J tangents at the primals.
    PyTorch traces the function once; minigrad's jvp_fn runs one forward-mode pass per call."""
    output = func(*primals)
    p_leaves, p_spec = pytree.flatten(primals)

    @functools.wraps(func)
    def jvp_fn(*tangents: Any) -> Any:
        t_leaves, t_spec = pytree.flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(
                f"Expected the tangents {t_spec!r} to have the same argspec as the primals "
                f"{p_spec!r}"
            )
        for i, (p, t) in enumerate(zip(p_leaves, t_leaves)):
            for what, ours, theirs in (("shape", t.shape, p.shape), ("dtype", t.dtype, p.dtype)):
                if ours != theirs:
                    raise RuntimeError(
                        f"tangent:{i} with {what} {ours} in flattened pytree doesn't match the "
                        f"{what} {theirs} of the corresponding primal."
                    )
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn
