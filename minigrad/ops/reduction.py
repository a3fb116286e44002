"""Reductions (sum, mean, max/min, var/std, norm) and softmax-style normalisations."""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any

import numpy as np

from .. import dtypes
from ..autograd.graph import Node
from ..tensor import Tensor
from ._record import record


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    span = builtins.max(ndim, 1)
    for d in dims:
        if not -span <= d < span:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-span}, {span - 1}], but got {d})")
        out.append(d % span)
    return tuple(out)


def _expand_back(g: Tensor, shape: tuple, dims: tuple, keepdim: bool) -> Tensor:
    """Undo a reduction's shape change: re-insert reduced dims, then broadcast."""
    if not keepdim and len(shape):
        for d in sorted(dims):
            g = g.unsqueeze(d)
    return g.expand(shape)


class SumBackward0(Node):
    def backward(self, g):
        return (g.expand(self.self_sym_sizes),)


class SumBackward1(Node):
    def backward(self, g):
        return (_expand_back(g, self.self_sym_sizes, self.dim, self.keepdim),)


class MeanBackward0(Node):
    def backward(self, g):
        return (g.expand(self.self_sym_sizes) / self.count,)


class MeanBackward1(Node):
    def backward(self, g):
        return (_expand_back(g, self.self_sym_sizes, self.dim, self.keepdim) / self.count,)


def _sum_dtype(a: Tensor, dtype):
    if dtype is not None:
        return dtype.np
    return np.int64 if a.dtype.category < 2 else a._data.dtype


def sum(a: Tensor, dim: Any = None, keepdim: bool = False, dtype=None) -> Tensor:  # noqa: A001
    out_dtype = _sum_dtype(a, dtype)
    if dim is None:
        data = np.asarray(a._data.sum(dtype=out_dtype))
        return record(SumBackward0, data, (a,), self_sym_sizes=tuple(a.shape))
    dims = _dims(dim, a.ndim)
    data = np.asarray(a._data.sum(axis=dims, keepdims=keepdim, dtype=out_dtype))
    return record(SumBackward1, data, (a,), self_sym_sizes=tuple(a.shape), dim=dims,
                  keepdim=keepdim)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, dtype=None) -> Tensor:
    if not a.dtype.is_floating_point and dtype is None:
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a "
                           f"floating point or complex dtype. Got: {dtypes.SCALAR_NAMES[a.dtype.name]}")
    if dim is None:
        data = np.asarray(a._data.mean(dtype=a._data.dtype))
        return record(MeanBackward0, data, (a,), self_sym_sizes=tuple(a.shape),
                      count=builtins.max(a._data.size, 1))
    dims = _dims(dim, a.ndim)
    data = np.asarray(a._data.mean(axis=dims, keepdims=keepdim, dtype=a._data.dtype))
    count = int(np.prod([a.shape[d] for d in dims])) if a.ndim else 1
    return record(MeanBackward1, data, (a,), self_sym_sizes=tuple(a.shape), dim=dims,
                  keepdim=keepdim, count=count)


# --- max / min ---------------------------------------------------------------------------
MinMax = namedtuple("MinMax", ["values", "indices"])


class _EvenlyDistribute(Node):
    """Full max()/min(): ties share the gradient evenly (PyTorch's evenly_distribute_backward)."""

    def backward(self, g):
        mask = self.mask
        return (g * (mask / mask.sum()).astype(g._data.dtype),)


class MaxBackward1(_EvenlyDistribute):
    pass


class MinBackward1(_EvenlyDistribute):
    pass


class _IndexedReduce(Node):
    def backward(self, g):
        from .indexing import scatter_into_zeros

        if not self.keepdim:
            g = g.unsqueeze(self.dim)
        idx = np.expand_dims(self.indices, self.dim) if not self.keepdim else self.indices
        key = tuple(idx if d == self.dim else np.arange(s).reshape(
            [-1 if i == d else 1 for i in range(len(self.shape))])
            for d, s in enumerate(self.shape))
        return (scatter_into_zeros(g, self.shape, key),)


class MaxBackward0(_IndexedReduce):
    pass


class MinBackward0(_IndexedReduce):
    pass


def _minmax(a: Tensor, dim: Any, keepdim: bool, largest: bool):
    x = a._data
    if dim is None:
        if x.size == 0:
            raise RuntimeError("max(): Expected reduction dim to be specified for input.numel() == "
                               "0. Specify the reduction dim with the 'dim' argument.")
        value = x.max() if largest else x.min()
        cls = MaxBackward1 if largest else MinBackward1
        return record(cls, np.asarray(value), (a,), mask=(x == value))
    (d,) = _dims(dim, a.ndim)
    idx = (np.argmax if largest else np.argmin)(x, axis=d) if x.ndim else np.zeros((), np.int64)
    values = np.take_along_axis(x, np.expand_dims(idx, d), d) if x.ndim else x
    if not keepdim and x.ndim:
        values = values.squeeze(d)
    else:
        idx = np.expand_dims(idx, d) if x.ndim else idx
    cls = MaxBackward0 if largest else MinBackward0
    out = record(cls, np.asarray(values), (a,), indices=idx, dim=d, keepdim=keepdim,
                 shape=tuple(a.shape))
    return MinMax(out, Tensor._wrap(np.asarray(idx, dtype=np.int64)))


def max(a: Tensor, dim: Any = None, keepdim: bool = False):  # noqa: A001
    if isinstance(dim, Tensor):
        from .elementwise import where

        return where(a._data >= dim._data, a, dim)
    return _minmax(a, dim, keepdim, largest=True)


def min(a: Tensor, dim: Any = None, keepdim: bool = False):  # noqa: A001
    if isinstance(dim, Tensor):
        from .elementwise import where

        return where(a._data <= dim._data, a, dim)
    return _minmax(a, dim, keepdim, largest=False)


def argmax(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(np.asarray(np.argmax(a._data), dtype=np.int64))
    return Tensor._wrap(np.asarray(np.argmax(a._data, axis=dim, keepdims=keepdim), np.int64))


# --- var / std / norm -------------------------------------------------------------------
def _correction(unbiased: Any, correction: Any) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased in (None, True) else 0


def var(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    """Composite of differentiable ops; PyTorch's VarBackward0 name comes from the last step."""
    c = _correction(unbiased, correction)
    dims = _dims(dim, a.ndim) if dim is not None else None
    centered = a - a.mean(dim=dims, keepdim=True) if a.ndim else a - a
    n = a._data.size if dims is None else int(np.prod([a.shape[d] for d in dims]))
    return (centered * centered).sum(dim=dims, keepdim=keepdim) / (n - c)


def std(a: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:
    return var(a, dim, unbiased, keepdim, correction=correction).sqrt()


class LinalgVectorNormBackward0(Node):
    def backward(self, g):
        x, r = self.saved("self"), self.saved("result")
        if self.ord == 2:
            g = _expand_back(g, x.shape, self.dim, self.keepdim) if self.dim is not None else g
            r = _expand_back(r, x.shape, self.dim, self.keepdim) if self.dim is not None else r
            safe = r.masked_fill(r._data == 0, 1)
            return (g * x / safe * (r._data != 0),)
        if self.ord == 1:
            g = _expand_back(g, x.shape, self.dim, self.keepdim) if self.dim is not None else g
            return (g * np.sign(x._data),)
        p = self.ord
        g = _expand_back(g, x.shape, self.dim, self.keepdim) if self.dim is not None else g
        r = _expand_back(r, x.shape, self.dim, self.keepdim) if self.dim is not None else r
        return (g * x.abs() ** (p - 2) * x / r ** (p - 1),)


def norm(a: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    p = 2 if p in (None, "fro") else p
    dims = _dims(dim, a.ndim) if dim is not None else None
    data = np.asarray(np.linalg.norm(a._data.reshape(-1), ord=p) if dims is None else
                      np.sum(np.abs(a._data) ** p, axis=dims, keepdims=keepdim) ** (1 / p))
    return record(LinalgVectorNormBackward0, data.astype(a._data.dtype), (a,), save={"self": a},
                  save_result=True, ord=p, dim=dims, keepdim=keepdim)


# --- softmax family ---------------------------------------------------------------------
class SoftmaxBackward0(Node):
    def backward(self, g):
        r = self.saved("result")
        return (r * (g - (g * r).sum(self.dim, keepdim=True)),)


class LogSoftmaxBackward0(Node):
    def backward(self, g):
        r = self.saved("result")
        return (g - r.exp() * g.sum(self.dim, keepdim=True),)


def _stable_log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    shifted = x - x.max(axis=dim, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))


def softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    x = a._data.astype(dtype.np) if dtype is not None else a._data
    shifted = np.exp(x - x.max(axis=dim, keepdims=True))
    data = shifted / shifted.sum(axis=dim, keepdims=True)
    return record(SoftmaxBackward0, data, (a,), save_result=True, dim=dim)


def log_softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    x = a._data.astype(dtype.np) if dtype is not None else a._data
    return record(LogSoftmaxBackward0, _stable_log_softmax(x, dim), (a,), save_result=True,
                  dim=dim)
