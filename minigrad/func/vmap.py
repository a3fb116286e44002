"""torch.func.vmap, minigrad's way: no batching rules - the function runs once per sample on
that sample's slices, and the per-sample outputs are stacked along `out_dims`. The checks,
results and errors are PyTorch's; nesting and vmap(grad(f)) follow, since each call is
ordinary code."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..core.tensor import Tensor
from ..creation import zeros
from ..ops.shape import stack
from . import pytree
from .randomness import PerSample
from .randomness import check as randomness_check


def _name(func: Any) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return getattr(func, "__name__", repr(func))


def _in_dims(name: str, in_dims: Any, args: tuple) -> list:
    """One dim (or None) per leaf of args, checked."""
    where = f"vmap({name}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching "
            f"the structure of inputs, got: {type(in_dims)}."
        )
    leaves = pytree.flatten(args)[0]
    dims = pytree.broadcast_prefix(in_dims, args) if isinstance(in_dims, tuple) else None
    if isinstance(in_dims, int):
        dims = [in_dims] * len(leaves)
    if dims is None:
        raise ValueError(
            f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has "
            f"structure {pytree.flatten(in_dims)[1]!r} but inputs has structure "
            f"{pytree.flatten(args)[1]!r}."
        )
    for dim, leaf in zip(dims, leaves):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(
                f"{where}: Got in_dim={dim} for an input but in_dim must be either an integer "
                "dimension or None."
            )
        if not isinstance(leaf, Tensor):
            raise ValueError(
                f"{where}: Got in_dim={dim} for an input but the input is of type "
                f"{type(leaf)}. We cannot vmap over non-Tensor arguments, please use None as "
                "the respective in_dim"
            )
        if not -leaf.dim() <= dim < leaf.dim():
            raise ValueError(
                f"{where}: Got in_dim={dim} for some input, but that input is a Tensor of "
                f"dimensionality {leaf.dim()} so expected in_dim to satisfy "
                f"-{leaf.dim()} <= in_dim < {leaf.dim()}."
            )
    return dims


def _batch_size(leaves: list, dims: list) -> int:
    sizes = [leaf.shape[d] for leaf, d in zip(leaves, dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got "
            f"sizes {sizes} for the mapped dimension"
        )
    return sizes[0]


def _check_out_dims(name: str, out_dims: Any) -> None:
    for d in pytree.flatten(out_dims)[0]:
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                "python collection of ints representing where in the outputs the vmapped "
                "dimension should appear."
            )


def _combine(name: str, samples: list, out_dims: Any, empty: bool = False) -> Any:
    """The per-sample outputs as one output, each leaf stacked at its out_dim (`empty`: a
    batch of size 0, `samples` holding one template call that gives the shapes)."""
    spec = pytree.flatten(samples[0])[1]
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and spec.is_leaf:
        out_dims = out_dims[0]
    dims = pytree.broadcast_prefix(out_dims, samples[0])
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
            f"with the structure of `outputs`. out_dims has structure "
            f"{pytree.flatten(out_dims)[1]!r} but outputs has structure {spec!r}."
        )
    columns = list(zip(*(pytree.flatten(s)[0] for s in samples)))
    combined = []
    for dim, column in zip(dims, columns):
        if dim is None:
            combined.append(_unbatched(name, column))
            continue
        if not isinstance(column[0], Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                f"{type(column[0])}. Did you mean to set out_dims= to None for output?"
            )
        stacked = stack(list(column), dim=dim)
        if empty:  # the one template sample stands for none
            stacked = stacked[(slice(None),) * (dim % stacked.dim()) + (slice(0, 0),)]
        combined.append(stacked)
    return pytree.unflatten(combined, spec)


def _unbatched(name: str, column: tuple) -> Any:
    """An out_dims=None output: PyTorch refuses one that depends on the batch. minigrad sees
    only values, so it refuses an output that differs between samples."""
    first = column[0]
    if isinstance(first, Tensor) and not all(first.equal(other) for other in column[1:]):
        raise ValueError(
            f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None"
        )
    return first


def _slices(leaves: list, dims: list, b: int) -> list:
    return [x if d is None else x.select(d, b) for x, d in zip(leaves, dims)]


def vmap(
    func: Callable,
    in_dims: int | tuple = 0,
    out_dims: int | tuple = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """func mapped over dimension `in_dims` of its inputs (one call per sample); kwargs are
    passed unmapped; `randomness` as randomness.py says."""
    randomness_check(randomness)
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        name = _name(func)
        if not args:
            raise ValueError(
                f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                "are trying to vmap over a function with no inputs. The latter is unsupported."
            )
        _check_out_dims(name, out_dims)
        dims = _in_dims(name, in_dims, args)
        leaves, spec = pytree.flatten(args)
        size = _batch_size(leaves, dims)
        if size == 0:  # run once on zeros shaped like a sample, for the outputs' shapes
            template = [
                x if d is None else zeros(x.shape[:d] + x.shape[d:][1:], dtype=x.dtype)
                for x, d in zip(leaves, dims)
            ]
            return _combine(
                name, [func(*pytree.unflatten(template, spec), **kwargs)], out_dims, True
            )
        run = PerSample(randomness)
        samples = [
            run(func, *pytree.unflatten(_slices(leaves, dims, b), spec), **kwargs)
            for b in range(size)
        ]
        return _combine(name, samples, out_dims)

    return wrapper
