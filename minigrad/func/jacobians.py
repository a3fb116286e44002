"""torch.func.jacrev, jacfwd and hessian. J[out][in] is shaped out.shape + in.shape.

jacrev pulls back one basis cotangent per output element (one backward pass each, over one
forward); jacfwd pushes one basis tangent per input element through the real forward mode
(one forward pass each). PyTorch batches those passes with vmap; minigrad runs them one by
one - the same Jacobian, and the pass counts lesson 16 shows. hessian is jacfwd(jacrev(f)):
forward over reverse, the tangents flowing through the backward pass's ops.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..autograd import forward_ad
from ..core import grad_mode
from ..core.forward_grad import tangent_of
from ..core.tensor import Tensor
from ..creation import zeros, zeros_like
from ..ops.shape import stack
from . import aux, pytree
from .argnums import check, tensor_leaves, with_fresh
from .levels import release
from .pullback import keeps_graph, pullback
from .randomness import PerSample
from .vjp import check_float, output_leaves

_VJP, _JVP = "vjp(f, *primals)", "jvp(f, primals, tangents)"


def _basis(like: Tensor, k: int) -> Tensor:
    """The k-th unit tensor shaped like `like`."""
    e = zeros(like.numel(), dtype=like.dtype)
    e[k] = 1
    return e.view(tuple(like.shape))


def _assemble(columns: list[Tensor], out: Tensor, x: Tensor, dim: int, dtype: Any) -> Tensor:
    """Stack per-element results into a Jacobian block shaped out.shape + x.shape: `dim` is
    where the stacked (element) axis goes before the final reshape."""
    shape = tuple(out.shape) + tuple(x.shape)
    if not columns:
        return zeros(shape, dtype=dtype)
    return stack(columns, dim=dim).reshape(shape)


def _per_output(blocks: list[list], in_spec: pytree.TreeSpec) -> list:
    """Per output, its blocks rebuilt in the structure of the differentiated arguments."""
    return [pytree.unflatten(row, in_spec) for row in blocks]


def jacrev(
    func: Callable,
    argnums: int | tuple = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Callable:
    """The Jacobian of func by reverse mode: one backward pass per output element."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        create_graph = keeps_graph(grad_mode.is_grad_enabled())
        with grad_mode.enable_grad():
            args, chosen, own = with_fresh(args, argnums)
            output, extra = aux.split(func(*args, **kwargs), has_aux, _VJP)
            outputs, out_spec = output_leaves(output, _VJP)
            inputs, in_spec = pytree.flatten(chosen)
            check_float(outputs)
            blocks = []
            for o in outputs:
                rows = [
                    pullback([o], inputs, [_basis(o, k)], create_graph) for k in range(o.numel())
                ]
                blocks.append(
                    [
                        release(_assemble([r[j] for r in rows], o, x, 0, x.dtype), own)
                        for j, x in enumerate(inputs)
                    ]
                )
        jac = pytree.unflatten(_per_output(blocks, in_spec), out_spec)
        return (jac, aux.release_tree(extra, own)) if has_aux else jac

    return wrapper


def jacfwd(
    func: Callable, argnums: int | tuple = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """The Jacobian of func by forward mode: one forward pass per input element."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        per_column = PerSample(randomness)
        positions = check(argnums, len(args))
        trees = [tensor_leaves(args[p]) for p in positions]
        slots = [(i, n) for i, (leaves, _) in enumerate(trees) for n in range(len(leaves))]
        inputs = [x for leaves, _ in trees for x in leaves]

        def run(slot: tuple[int, int] | None = None, k: int = 0) -> tuple:
            """func with element k of the input at `slot` perturbed (none when None)."""
            call_args = list(args)
            if slot is not None:
                i, n = slot
                leaves, spec = trees[i]
                leaves = list(leaves)
                leaves[n] = forward_ad.make_dual(leaves[n], _basis(leaves[n], k))
                call_args[positions[i]] = pytree.unflatten(leaves, spec)
            output, extra = aux.split(func(*call_args, **kwargs), has_aux, _JVP)
            outputs, out_spec = output_leaves(output, _JVP)
            tangents = [tangent_of(o) for o in outputs]
            return (
                outputs,
                out_spec,
                extra,
                [zeros_like(o) if t is None else t for o, t in zip(outputs, tangents)],
            )

        columns: list[list[list]] = [[] for _ in inputs]
        first_run = None
        for j, (slot, x) in enumerate(zip(slots, inputs)):
            if not x.dtype.is_floating_point:
                raise ValueError(
                    f"Expected primal to be floating point or complex, but got: {x.dtype}"
                )
            for k in range(x.numel()):
                with forward_ad.dual_level():
                    result = per_column(run, slot, k)
                first_run = first_run or result
                columns[j].append(result[3])
        outputs, out_spec, extra, _ = first_run or run()
        blocks = [
            [
                _assemble([col[m] for col in columns[j]], o, x, o.dim(), o.dtype)
                for j, x in enumerate(inputs)
            ]
            for m, o in enumerate(outputs)
        ]
        in_spec = _arg_spec(argnums, [spec for _, spec in trees])
        jac = pytree.unflatten(_per_output(blocks, in_spec), out_spec)
        return (jac, extra) if has_aux else jac

    return wrapper


def _arg_spec(argnums: Any, specs: list[pytree.TreeSpec]) -> pytree.TreeSpec:
    """The structure of the differentiated arguments: one tree, or a tuple of them."""
    if isinstance(argnums, tuple):
        return pytree.TreeSpec(tuple, None, specs)
    return specs[0]


def hessian(func: Callable, argnums: int | tuple = 0) -> Callable:
    """The Hessian, as PyTorch computes it: jacfwd(jacrev(func))."""
    return jacfwd(jacrev(func, argnums), argnums)
