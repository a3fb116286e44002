"""Ops with several outputs (split, chunk, unbind): one node feeds every piece, as in PyTorch,
and each piece is a view of the input. Pieces that get no gradient count as zeros.

The pieces' `_creation_meta` is "multi_output" (made with grad mode on): PyTorch forbids writing
them in place, and once their base (or a sibling) is written, using their history is refused
(ops/inplace.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.tensor import Tensor
from ._record import mark_view, record_many
from .indexing import _slice
from .shape import cat, stack, wrap_dim


def _views(a: Tensor, outs: list[Tensor]) -> tuple[Tensor, ...]:
    for out in outs:
        mark_view(out, a, multi_output=True)
    return tuple(outs)


def _dim(a: Tensor, dim: int, op: str) -> int:
    if a.ndim == 0:
        raise RuntimeError(f"{op} expects at least a 1-dimensional tensor")
    return wrap_dim(dim, a.ndim)


class SplitBackward0(Node):
    def jvp(self, outs, tangents):
        """Each piece's tangent: the same slice of the input's tangent (a view of it)."""
        t, start, pieces = tangents[0], 0, []
        for out in outs:
            size = out._data.shape[self.dim]
            pieces.append(_slice(t, self.dim, slice(start, start + size), always=True))
            start += size
        return pieces

    def backward(self, *grads):
        if isinstance(grads[0], Tensor):
            return (cat(list(grads), self.dim),)
        return (np.concatenate(grads, axis=self.dim),)


class SplitWithSizesBackward0(SplitBackward0):
    pass


def _pieces(a: Tensor, d: int, sizes: list[int], cls: type[Node]) -> tuple[Tensor, ...]:
    bounds = np.cumsum([0] + sizes)
    keys = [
        (slice(None),) * d + (slice(int(lo), int(hi)), Ellipsis)
        for lo, hi in zip(bounds[:-1], bounds[1:])
    ]
    outs = record_many(cls, [a._data[k] for k in keys], (a,), dim=d)
    return _views(a, outs)


def split(a: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    d = _dim(a, dim, "split")
    size = a.shape[d]
    if not isinstance(split_size_or_sections, int):
        sizes = list(split_size_or_sections)
        if sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} "
                f"(input tensor's size at dimension {d}), but got "
                f"split_sizes={sizes}"
            )
        return _pieces(a, d, sizes, SplitWithSizesBackward0)
    step = split_size_or_sections
    if step < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
    if step == 0 and size:
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )
    sizes = [min(step, size - s) for s in range(0, size, step)] if step else []
    return _pieces(a, d, sizes or [0], SplitBackward0)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    d = _dim(a, dim, "chunk")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    size = a.shape[d]
    if not size:  # PyTorch: `chunks` empty pieces
        return _pieces(a, d, [0] * chunks, SplitWithSizesBackward0)
    return split(a, -(-size // chunks), d)


class UnbindBackward0(Node):
    def jvp(self, outs, tangents):
        return [tangents[0].select(self.dim, i) for i in range(len(outs))]

    def backward(self, *grads):
        if isinstance(grads[0], Tensor):
            return (stack(list(grads), self.dim),)
        return (np.stack(grads, axis=self.dim),)


def unbind(a: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    if a.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    if not a.shape[d]:
        return ()
    keys = [(slice(None),) * d + (i, Ellipsis) for i in range(a.shape[d])]
    outs = record_many(UnbindBackward0, [a._data[k] for k in keys], (a,), dim=d)
    return _views(a, outs)
