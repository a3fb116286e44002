"""Reductions (sum, mean, max/min, var/std, norm) and softmax-style normalisations."""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any

import numpy as np

from ..core import dtypes
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import record
from .elementwise import broadcast_operands, masked_fill, where
from .indexing import scatter_into_zeros
from .shape import wrap_dims


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Reduced dims, non-negative and sorted; None or () mean all of them (as in torch.sum)."""
    dims = wrap_dims(range(ndim) if dim is None else dim, ndim)
    if ndim == 0:
        return ()
    return tuple(sorted(dims)) or tuple(range(ndim))


def _expand_back(g: Any, shape: tuple, dims: tuple, keepdim: bool) -> Any:
    """Undo a reduction's shape change: re-insert reduced dims, then broadcast."""
    return formula.expand(_keep(g, dims, keepdim, len(shape)), shape)


def _keep(g: Any, dims: tuple | None, keepdim: bool, ndim: int) -> Any:
    """Re-insert the reduced dims (size 1) that keepdim=False dropped, so g broadcasts."""
    if keepdim or dims is None or not ndim:
        return g
    for d in dims:
        g = formula.unsqueeze(g, d)
    return g


def _count(shape: tuple, dims: Any) -> int:
    return int(np.prod([shape[d] for d in dims], dtype=np.int64))


def _sum_dtype(a: Tensor, dtype):
    if dtype is not None:
        return dtype.np
    return np.int64 if a.dtype.category < 2 else a._data.dtype


class SumBackward0(Node):
    def backward(self, g):
        return (formula.expand(g, self.self_sym_sizes),)


class SumBackward1(Node):
    def backward(self, g):
        return (_expand_back(g, self.self_sym_sizes, self.dim, self.keepdim),)


def sum(a: Tensor, dim: Any = None, keepdim: bool = False, dtype=None) -> Tensor:  # noqa: A001
    out_dtype = _sum_dtype(a, dtype)
    if dim is None:
        data = np.asarray(a._data.sum(dtype=out_dtype))
        return record(SumBackward0, data, (a,), self_sym_sizes=tuple(a.shape))
    dims = _dims(dim, a.ndim)
    data = np.asarray(a._data.sum(axis=dims, keepdims=keepdim, dtype=out_dtype))
    return record(
        SumBackward1, data, (a,), self_sym_sizes=tuple(a.shape), dim=dims, keepdim=keepdim
    )


class MeanBackward0(Node):
    def backward(self, g):
        return (formula.expand(g, self.self_sym_sizes) / self.count,)


class MeanBackward1(Node):
    def backward(self, g):
        return (_expand_back(g, self.self_sym_sizes, self.dim, self.keepdim) / self.count,)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, dtype=None) -> Tensor:
    if not a.dtype.is_floating_point and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a "
            "floating point or complex dtype. Got: "
            f"{dtypes.SCALAR_NAMES[a.dtype.name]}"
        )
    dims = None if dim is None else _dims(dim, a.ndim)
    count = _count(a.shape, range(a.ndim) if dims is None else dims)
    with np.errstate(invalid="ignore"):  # the mean of nothing is nan, silently
        data = np.asarray(a._data.sum(axis=dims, keepdims=keepdim) / a._data.dtype.type(count))
    if dims is None:
        return record(
            MeanBackward0, data, (a,), self_sym_sizes=tuple(a.shape), count=builtins.max(count, 1)
        )
    return record(
        MeanBackward1,
        data,
        (a,),
        self_sym_sizes=tuple(a.shape),
        dim=dims,
        keepdim=keepdim,
        count=count,
    )


# --- max / min ---------------------------------------------------------------------------
MinMax = namedtuple("MinMax", ["values", "indices"])


class _EvenlyDistribute(Node):
    """Full max()/min(): ties share the gradient evenly (PyTorch's evenly_distribute_backward)."""

    def backward(self, g):
        mask = self.mask
        return (g * (mask / mask.sum()).astype(formula.data(g).dtype),)


class MaxBackward1(_EvenlyDistribute):
    pass


class MinBackward1(_EvenlyDistribute):
    pass


class _IndexedReduce(Node):
    """max/min along a dim: the gradient goes to the selected index of each slice."""

    def backward(self, g):
        if not self.shape:
            return (g,)
        if not self.keepdim:
            g = formula.unsqueeze(g, self.dim)
        idx = np.expand_dims(self.indices, self.dim) if not self.keepdim else self.indices
        key = tuple(
            idx
            if d == self.dim
            else np.arange(s).reshape([-1 if i == d else 1 for i in range(len(self.shape))])
            for d, s in enumerate(self.shape)
        )
        return (scatter_into_zeros(g, self.shape, key),)


class MaxBackward0(_IndexedReduce):
    pass


class MinBackward0(_IndexedReduce):
    pass


def _minmax(a: Tensor, dim: Any, keepdim: bool, largest: bool):
    x, name = a._data, "max" if largest else "min"
    if dim is None:
        if x.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' "
                "argument."
            )
        value = x.max() if largest else x.min()
        cls = MaxBackward1 if largest else MinBackward1
        return record(cls, np.asarray(value), (a,), mask=(x == value))
    dims = _dims(dim, a.ndim)
    cls = MaxBackward0 if largest else MinBackward0
    if not dims:  # a 0-d tensor is its own max along dim 0 / -1
        out = record(cls, x.copy(), (a,), indices=None, dim=0, keepdim=keepdim, shape=())
        return MinMax(out, Tensor._wrap(np.zeros((), np.int64)))
    (d,) = dims
    if x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = (np.argmax if largest else np.argmin)(x, axis=d, keepdims=True)
    values = np.take_along_axis(x, idx, d)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    out = record(cls, values, (a,), indices=idx, dim=d, keepdim=keepdim, shape=tuple(a.shape))
    return MinMax(out, Tensor._wrap(idx.astype(np.int64)))


class MaximumBackward0(Node):
    """Where both sides are equal each gets half the gradient, as in PyTorch; where one side
    loses it gets none (NaN loses nowhere, so both keep the gradient there)."""

    runs_on_arrays = False  # written with where/masked_fill on Tensors
    _self_loses, _other_loses = np.less, np.greater  # numpy ufuncs: no method binding

    def backward(self, g):
        x, y = self.saved("self")._data, self.saved("other")._data
        half = where(x == y, g / 2, g)
        return masked_fill(half, self._self_loses(x, y), 0), masked_fill(
            half, self._other_loses(x, y), 0
        )


class MinimumBackward0(MaximumBackward0):
    _self_loses, _other_loses = np.greater, np.less


def _binary_extreme(a: Tensor, b: Tensor, largest: bool) -> Tensor:
    (ta, tb), (x, y), _ = broadcast_operands(a, b)
    data = np.maximum(x, y) if largest else np.minimum(x, y)
    cls = MaximumBackward0 if largest else MinimumBackward0
    return record(cls, data, (ta, tb), save={"self": ta, "other": tb})


def max(a: Tensor, dim: Any = None, keepdim: bool = False):  # noqa: A001
    if isinstance(dim, Tensor):  # torch.max(a, b) is torch.maximum
        return _binary_extreme(a, dim, largest=True)
    return _minmax(a, dim, keepdim, largest=True)


def min(a: Tensor, dim: Any = None, keepdim: bool = False):  # noqa: A001
    if isinstance(dim, Tensor):
        return _binary_extreme(a, dim, largest=False)
    return _minmax(a, dim, keepdim, largest=False)


def argmax(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(np.asarray(np.argmax(a._data), dtype=np.int64))
    return Tensor._wrap(np.asarray(np.argmax(a._data, axis=dim, keepdims=keepdim), np.int64))


# --- var / std / norm -------------------------------------------------------------------
def _require_float(a: Tensor, message: str) -> None:
    if not a.dtype.is_floating_point:
        raise RuntimeError(message)


def _var_args(a: Tensor, dim: Any, unbiased: Any, correction: Any) -> tuple:
    """(dims or None, correction); `var(False)` is the old unbiased-only overload."""
    _require_float(a, "std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
    return (_dims(dim, a.ndim) if dim is not None else None), correction


def _var_backward(
    g: Tensor, x: Tensor, dims: tuple | None, correction: float, keepdim: bool
) -> Tensor:
    """PyTorch's var_backward: 2 / (n - correction) * g * (x - mean)."""
    if dims is None or x.ndim == 0:
        dof = x.numel() - correction
        if dof <= 0:  # infinite scale: nan where x equals the mean, inf elsewhere
            return g * np.where(x._data == x._data.mean(), np.nan, np.inf).astype(x._data.dtype)
        return g * (2.0 / dof) * (x - x.mean())
    with np.errstate(divide="ignore"):
        scale = np.float64(2.0) / (_count(x.shape, dims) - correction)
    return _keep(g, dims, keepdim, x.ndim) * float(scale) * (x - x.mean(dims, keepdim=True))


def _var_data(a: Tensor, dims: tuple | None, correction: float, keepdim: bool) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(
            np.var(a._data, axis=dims, ddof=correction, keepdims=keepdim, dtype=a._data.dtype)
        )


class VarBackward0(Node):
    runs_on_arrays = False  # _var_backward is written with Tensor methods

    def backward(self, g):
        return (_var_backward(g, self.saved("self"), self.dim, self.correction, self.keepdim),)


def var(
    a: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    dims, c = _var_args(a, dim, unbiased, correction)
    return record(
        VarBackward0,
        _var_data(a, dims, c, keepdim),
        (a,),
        save={"self": a},
        dim=dims,
        correction=c,
        keepdim=keepdim,
    )


class StdBackward0(Node):
    runs_on_arrays = False  # masked_fill on Tensors, and _var_backward

    def backward(self, g):
        r = self.saved("result")
        with np.errstate(divide="ignore", invalid="ignore"):
            g = (g / (r * 2)).masked_fill(r._data == 0, 0)
        return (_var_backward(g, self.saved("self"), self.dim, self.correction, self.keepdim),)


def std(
    a: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    dims, c = _var_args(a, dim, unbiased, correction)
    return record(
        StdBackward0,
        np.sqrt(_var_data(a, dims, c, keepdim)),
        (a,),
        save={"self": a},
        save_result=True,
        dim=dims,
        correction=c,
        keepdim=keepdim,
    )


def _vector_norm(x: np.ndarray, p: float, dims: tuple | None, keepdim: bool) -> np.ndarray:
    ax = np.abs(x)
    if p == np.inf:
        return ax.max(axis=dims, keepdims=keepdim)
    if p == -np.inf:
        return ax.min(axis=dims, keepdims=keepdim)
    if p == 0:
        return (ax != 0).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
    if p == 1:
        return ax.sum(axis=dims, keepdims=keepdim)
    if p == 2:
        return np.sqrt((ax * ax).sum(axis=dims, keepdims=keepdim))
    return (ax**p).sum(axis=dims, keepdims=keepdim) ** (1 / p)


class LinalgVectorNormBackward0(Node):
    """PyTorch's norm_backward, case by case (p = 0, 1, 2, +-inf, < 1, < 2, other)."""

    runs_on_arrays = False  # written with Tensor methods (masked_fill, abs, pow)

    def backward(self, g):
        x, r, p = self.saved("self"), self.saved("result"), self.ord
        g, r = (_keep(t, self.dim, self.keepdim, x.ndim) for t in (g, r))
        sign = np.sign(x._data)
        if p == 0:
            return (g * np.zeros_like(x._data),)
        if p == 1:
            return (g * sign,)
        if p == 2:
            with np.errstate(divide="ignore", invalid="ignore"):
                return (g * (x / r).masked_fill(r._data == 0, 0),)
        if np.isinf(p):
            ax = np.abs(x._data)
            mask = (ax == r._data) | np.isnan(ax)
            count = mask.sum(axis=self.dim, keepdims=True)
            return (g / count.astype(x._data.dtype) * (mask * sign).astype(x._data.dtype),)
        with np.errstate(divide="ignore", invalid="ignore"):
            if p < 1:
                scaled = (x.abs() ** (p - 1)).masked_fill(x._data == 0, 0) * sign
                return (scaled * g * r ** (1 - p),)
            scaled = x.abs() ** (p - 1) * sign if p < 2 else x * x.abs() ** (p - 2)
            return (scaled * (g / r ** (p - 1)).masked_fill(r._data == 0, 0),)


def norm(a: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    _require_float(
        a,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. "
        f"Got {dtypes.SCALAR_NAMES[a.dtype.name]}",
    )
    p = 2 if p in (None, "fro") else p
    dims = _dims(dim, a.ndim) if dim is not None else None
    data = np.asarray(_vector_norm(a._data, p, dims, keepdim), dtype=a._data.dtype)
    return record(
        LinalgVectorNormBackward0,
        data,
        (a,),
        save={"self": a},
        save_result=True,
        ord=p,
        dim=dims,
        keepdim=keepdim,
    )


# --- softmax family ---------------------------------------------------------------------
def _softmax_input(a: Tensor, dim: int, dtype: Any, kernel: str) -> tuple[Tensor, tuple]:
    """Cast to `dtype` first (a recorded ToCopy, as in PyTorch); integers have no kernel."""
    if dtype is not None:
        a = a.to(dtype)
    dims = _dims(dim, a.ndim)
    if not a.dtype.is_floating_point:
        last = "_lastdim" if dims == (a.ndim - 1,) else ""
        raise NotImplementedError(
            f'"{kernel}{last}_kernel_impl" not implemented for '
            f"'{dtypes.SCALAR_NAMES[a.dtype.name]}'"
        )
    return a, dims


class SoftmaxBackward0(Node):
    def backward(self, g):
        r = self.saved("result")
        return (r * (g - formula.sum_keepdim(g * r, self.dim)),)


def softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    a, dims = _softmax_input(a, dim, dtype, "softmax")
    x = a._data
    shifted = np.exp(x - x.max(axis=dims, keepdims=True))
    data = shifted / shifted.sum(axis=dims, keepdims=True)
    return record(SoftmaxBackward0, data, (a,), save_result=True, dim=dims)


class LogSoftmaxBackward0(Node):
    def backward(self, g):
        r = self.saved("result")
        return (g - formula.exp(r) * formula.sum_keepdim(g, self.dim),)


def log_softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    a, dims = _softmax_input(a, dim, dtype, "log_softmax")
    x = a._data
    shifted = x - x.max(axis=dims, keepdims=True)
    data = shifted - np.log(np.exp(shifted).sum(axis=dims, keepdims=True))
    return record(LogSoftmaxBackward0, data, (a,), save_result=True, dim=dims)
