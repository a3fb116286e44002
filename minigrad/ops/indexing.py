"""Indexing: basic indices are views (SelectBackward0/SliceBackward0 chains, like PyTorch);
anything advanced is IndexBackward0; scatter_into_zeros is the differentiable inverse."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.graph import Node
from ..tensor import Tensor
from ._record import mark_view, record
from .shape import unsqueeze


def _normalize_key(key: Any) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    return tuple(k._data if isinstance(k, Tensor) else k for k in key)


def _is_advanced(k: Any) -> bool:
    return isinstance(k, (list, np.ndarray)) and not (isinstance(k, np.ndarray) and k.ndim == 0
                                                      and k.dtype.kind in "iu")


class ScatterBackward(Node):
    """Backward of scatter_into_zeros: read the gradient back at the same positions."""

    def backward(self, g):
        return (g[self.key],)


def scatter_into_zeros(g: Tensor, shape: tuple, key: Any) -> Tensor:
    """A zero tensor of `shape` with g added at `key` (repeats add up): indexing's backward."""
    data = np.zeros(shape, dtype=g._data.dtype)
    np.add.at(data, key, g._data)
    return record(IndexPutBackward0Grad, data, (g,), key=key)


class IndexPutBackward0Grad(ScatterBackward):
    pass


class SelectBackward0(Node):
    def backward(self, g):
        return (scatter_into_zeros(g, self.self_sym_sizes, self.key),)


class SliceBackward0(SelectBackward0):
    pass


class IndexBackward0(SelectBackward0):
    pass


class AliasBackward0(Node):
    def backward(self, g):
        return (g,)


def select(a: Tensor, dim: int, index: int) -> Tensor:
    d = dim % a.ndim
    size = a.shape[d]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    key = (slice(None),) * d + (index % size,)
    return _basic(a, key, SelectBackward0)


def _basic(a: Tensor, key: tuple, cls: type[Node]) -> Tensor:
    view_key = key if Ellipsis in key else key + (Ellipsis,)  # keeps 0-d results numpy views
    out = record(cls, a._data[view_key], (a,), self_sym_sizes=tuple(a.shape), key=key)
    return mark_view(out, a, lambda arr: arr[view_key])


def getitem(a: Tensor, key: Any) -> Tensor:
    key = _normalize_key(key)
    if any(_is_advanced(k) or (isinstance(k, np.ndarray) and k.dtype == np.bool_) for k in key):
        if a.ndim == 0 and not all(isinstance(k, np.ndarray) for k in key):
            raise IndexError("invalid index of a 0-dim tensor.")
        key = tuple(np.asarray(k) if isinstance(k, list) else k for k in key)
        return record(IndexBackward0, np.array(a._data[key]), (a,),
                      self_sym_sizes=tuple(a.shape), key=key)
    if a.ndim == 0 and any(k is not Ellipsis and k is not None for k in key):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim Tensor to a number")
    # Expand Ellipsis, then apply one basic index per dimension, left to right, like PyTorch.
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > a.ndim:
        raise IndexError(f"too many indices for tensor of dimension {a.ndim}")
    if Ellipsis in key:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (a.ndim - n_real) + key[i + 1:]
    out, dim = a, 0
    for k in key:
        if k is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(k, slice):
            start, stop, step = k.indices(out.shape[dim])
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if (start, stop, step) != (0, out.shape[dim], 1):
                out = _basic(out, (slice(None),) * dim + (slice(start, stop, step),),
                             SliceBackward0)
            dim += 1
        else:
            out = select(out, dim, int(k))
    if out is a:  # x[:] or x[...] : a new view of the same data
        out = _basic(a, (Ellipsis,), AliasBackward0)
    return out


class IndexPutBackward0(Node):
    def backward(self, g):
        keep = np.ones(g.shape, dtype=bool)
        keep[self.key] = False
        return g * keep, g[self.key]


def index_put(a: Tensor, key: Any, value: Tensor) -> Tensor:
    """Out-of-place `a[key] = value` for advanced keys; setitem runs it in place."""
    data = a._data.copy()
    data[key] = np.broadcast_to(value._data, data[key].shape)
    return record(IndexPutBackward0, data, (a, value), key=key)
