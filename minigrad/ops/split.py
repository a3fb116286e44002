"""Ops with several outputs (split, chunk, unbind): one node feeds every piece, as in PyTorch,
and each piece is a view of the input. Pieces that get no gradient count as zeros."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.tensor import Tensor
from ._record import mark_view, record_many
from .shape import cat, stack


def _views(a: Tensor, outs: list[Tensor], keys: list[tuple]) -> tuple[Tensor, ...]:
    for out, key in zip(outs, keys):
        mark_view(out, a, lambda arr, k=key: arr[k])
    return tuple(outs)


class SplitBackward0(Node):
    def backward(self, *grads):
        if isinstance(grads[0], Tensor):
            return (cat(list(grads), self.dim),)
        return (np.concatenate(grads, axis=self.dim),)


class SplitWithSizesBackward0(SplitBackward0):
    pass


def split(a: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    d = dim % a.ndim
    size = a.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        sizes = [min(step, size - s) for s in range(0, size, step)] or [0]
        cls = SplitBackward0
    else:
        sizes = list(split_size_or_sections)
        if sum(sizes) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} "
                f"(input tensor's size at dimension {d}), but got "
                f"split_sizes={sizes}"
            )
        cls = SplitWithSizesBackward0
    bounds = np.cumsum([0] + sizes)
    keys = [
        (slice(None),) * d + (slice(int(lo), int(hi)), Ellipsis)
        for lo, hi in zip(bounds[:-1], bounds[1:])
    ]
    outs = record_many(cls, [a._data[k] for k in keys], (a,), dim=d)
    return _views(a, outs, keys)


def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    size = a.shape[dim % a.ndim]
    return split(a, max(-(-size // chunks), 1), dim)


class UnbindBackward0(Node):
    def backward(self, *grads):
        if isinstance(grads[0], Tensor):
            return (stack(list(grads), self.dim),)
        return (np.stack(grads, axis=self.dim),)


def unbind(a: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = dim % a.ndim
    keys = [(slice(None),) * d + (i, Ellipsis) for i in range(a.shape[d])]
    outs = record_many(UnbindBackward0, [a._data[k] for k in keys], (a,), dim=d)
    return _views(a, outs, keys)
