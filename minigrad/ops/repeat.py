"""Repeating a tensor: `repeat` tiles the whole tensor (RepeatBackward0: each tile's gradient
summed back), `repeat_interleave` repeats each element in place. PyTorch builds the latter
from other ops, so it is built the same way here and records the same nodes: for a number of
repeats unsqueeze, expand, clone and a flattening view; for a tensor of repeats an
index_select."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.dtypes import SCALAR_NAMES
from ..core.node import Node
from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import argument_error, record
from .int_args import int_tuple, no_dims, varargs
from .selection import index_select
from .shape import CloneBackward0, expand, flatten, unsqueeze


class RepeatBackward0(Node):
    """Each dim of the gradient split into (repeats, size): the repeats summed away, and the
    dims repeat added in front of the input's."""

    jvp = tangents.linear(lambda node, out, t: repeat(t, node.repeats))

    def backward(self, g):
        shape, repeats = self.self_sym_sizes, self.repeats
        if 0 in repeats:  # no tile was made: zeros with no history, as in PyTorch
            zeros = np.zeros(shape, dtype=formula.data(g).dtype)
            return (Tensor._wrap(zeros) if isinstance(g, Tensor) else zeros,)
        lead = len(repeats) - len(shape)
        split = [*repeats[:lead]]
        for r, s in zip(repeats[lead:], shape):
            split += [r, s]
        summed = (*range(lead), *(lead + 2 * i for i in range(len(shape))))
        tiles = g.reshape(tuple(split))
        if not summed:  # (sum(dim=()) of a Tensor would sum everything)
            return (tiles,)
        if isinstance(g, Tensor):
            return (tiles.sum(summed),)
        return (np.sum(tiles, axis=summed),)


def repeat(self: Tensor, *repeats: Any, **kwargs: Any) -> Tensor:
    """x.repeat(2, 1) or x.repeat((2, 1)): x tiled `repeats[i]` times along dim i; more
    repeats than dims add leading dims."""
    if "repeats" in kwargs:
        repeats = int_tuple(kwargs["repeats"], "repeat", "repeats", None)
    elif repeats:
        repeats = varargs(repeats, "repeat", "repeats")
    else:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    if len(repeats) < self.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    padded = (1,) * (len(repeats) - self.ndim) + tuple(self.shape)
    sizes = [r * s for r, s in zip(repeats, padded)]
    for n in sizes:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {sizes}")
    data = np.ascontiguousarray(np.tile(self._data.reshape(padded), repeats)).reshape(sizes)
    return record(RepeatBackward0, data, (self,), self_sym_sizes=tuple(self.shape), repeats=repeats)


_METHOD_FORMS = (
    " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
    " * (int repeats, int dim = None, *, int output_size = None)\n"
)
_FUNCTION_FORMS = (
    " * (Tensor input, Tensor repeats, int dim = None, *, int output_size = None)\n"
    " * (Tensor repeats, *, int output_size = None)\n"
    " * (Tensor input, int repeats, int dim = None, *, int output_size = None)\n"
)


def _check_repeats(got: tuple, forms: str) -> None:
    """repeats (the last of `got`) is a Tensor or an int, else PyTorch's TypeError listing
    the forms the call could have taken."""
    repeats = got[-1]
    if isinstance(repeats, Tensor) or (
        isinstance(repeats, (int, np.integer)) and not isinstance(repeats, bool)
    ):
        return
    names = ", ".join(type(v).__name__ for v in got)
    raise TypeError(
        "repeat_interleave() received an invalid combination of arguments - got "
        f"({names}), but expected one of:\n{forms}"
    )


def _contiguous_clone(a: Tensor) -> Tensor:
    """clone(memory_format=torch.contiguous_format): always a copy, in C order."""
    return record(CloneBackward0, np.array(a._data, order="C"), (a,))


def _each_times(a: Tensor, times: int, d: int, output_size: int | None) -> Tensor:
    """Every slice along d `times` times, as PyTorch composes it."""
    if times < 0:
        raise RuntimeError("Repeats must be non-negative")
    wide = unsqueeze(a, d + 1)  # (refuses dim 0 of a 0-d tensor, as PyTorch's does)
    size = a.shape[d] * times
    if output_size is not None and output_size != size:
        raise RuntimeError(
            f"repeat_interleave: Invalid output_size, expected {size} but got {output_size}"
        )
    target = (*a.shape[: d + 1], times, *a.shape[d + 1 :])
    return flatten(_contiguous_clone(expand(wide, target)), d, d + 1)


def _indices(repeats: Tensor, output_size: int | None) -> Tensor:
    """Index i repeated repeats[i] times (int64): what an index_select with them reads."""
    r = repeats._data
    if r.dtype.kind not in "iu":
        name = SCALAR_NAMES[repeats.dtype.name]
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{name}'")
    if r.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    index = np.repeat(np.arange(r.size, dtype=np.int64), r)
    if output_size is not None and output_size != index.size:
        raise RuntimeError("allocated size does not match required size")
    return Tensor._wrap(index)


def _each_counted(a: Tensor, repeats: Tensor, d: int, output_size: int | None) -> Tensor:
    """Slice i along d repeats[i] times (one count: every slice that many times)."""
    if repeats.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    size = a.shape[d]
    if repeats.numel() == 1:
        repeats = Tensor._wrap(np.broadcast_to(repeats._data.reshape(1), (size,)))
    elif repeats.shape[0] != size:
        raise RuntimeError(
            "repeats must have the same size as input along dim, but got "
            f"repeats.size(0) = {repeats.shape[0]} and input.size({d}) = {size}"
        )
    return index_select(a, d, _indices(repeats, output_size))


def _interleave(a: Tensor, repeats: Any, dim: int | None, output_size: int | None) -> Tensor:
    """Each element (each slice along `dim`) repeated; without dim, over the flattened input."""
    if dim is None:
        a, d = flatten(a), 0
    elif a.ndim == 0 and isinstance(repeats, Tensor):
        raise no_dims(dim)  # (with a number of repeats, unsqueeze refuses it as PyTorch's)
    else:
        d = wrap_dim(dim, a.ndim)
    if not isinstance(repeats, Tensor):
        return _each_times(a, int(repeats), d, output_size)
    return _each_counted(a, repeats, d, output_size)


def repeat_interleave(
    input: Tensor,  # noqa: A002 - PyTorch's argument names
    repeats: Any = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Tensor:
    """torch.repeat_interleave(x, repeats, dim); with the repeats alone, each index i
    repeated repeats[i] times."""
    if repeats is None:
        if not isinstance(input, Tensor):
            raise argument_error("repeat_interleave", "repeats", 1, input)
        return _indices(input, output_size)
    _check_repeats((input, repeats), _FUNCTION_FORMS)
    return _interleave(input, repeats, dim, output_size)


def repeat_interleave_method(
    self: Tensor, repeats: Any, dim: int | None = None, *, output_size: int | None = None
) -> Tensor:
    _check_repeats((repeats,), _METHOD_FORMS)
    return _interleave(self, repeats, dim, output_size)
