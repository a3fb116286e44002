"""sort: values in order along a dim, and where each came from. Ties keep their original order
(PyTorch's CPU sort does, stable or not) and NaN counts as the largest value."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import record
from .indexing import ScatterBackward0, scatter_into_zeros
from .shape import wrap_dim

SortResult = namedtuple("sort", ["values", "indices"])


class SortBackward0(Node):
    """Each gradient goes back to the place its value was sorted from."""

    def jvp(self, out, tangents):
        """Each tangent read where its value was taken from (a gather by the indices)."""
        if not self.shape:
            return tangents[0].clone()
        return tangents[0].gather(self.dim, self.saved("indices"))

    def backward(self, g):
        if not self.shape:
            return (g,)
        idx = formula.data(self.saved("indices"))
        key = tuple(
            idx
            if d == self.dim
            else np.arange(s).reshape([-1 if i == d else 1 for i in range(idx.ndim)])
            for d, s in enumerate(self.shape)
        )
        return (scatter_into_zeros(g, self.shape, key, ScatterBackward0),)


class SortBackward1(SortBackward0):
    """sort called with `stable=` (PyTorch's other overload): the same formula."""


def _order(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    if x.ndim == 0:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(x, axis=dim, kind="stable").astype(np.int64, copy=False)
    values = x.astype(np.int64) if x.dtype.kind in "bu" else x
    nan_last = ~np.isnan(values) if values.dtype.kind == "f" else np.ones(x.shape, bool)
    order = np.lexsort((np.negative(values), nan_last), axis=dim)  # stable: ties keep order
    return order.astype(np.int64, copy=False)


def sort(
    a: Tensor, dim: int = -1, descending: bool = False, stable: bool | None = None
) -> SortResult:
    d = wrap_dim(dim, a.ndim)
    x = a._data
    idx = _order(x, d, descending)
    values = x.copy() if x.ndim == 0 else np.take_along_axis(x, idx, d)
    indices = Tensor._wrap(idx)
    cls = SortBackward0 if stable is None else SortBackward1
    out = record(cls, values, (a,), save={"indices": indices}, dim=d, shape=x.shape)
    return SortResult(out, indices)


# --- topk ----------------------------------------------------------------------------------
TopkResult = namedtuple("topk", ["values", "indices"])


class TopkBackward0(SortBackward0):
    """The same scatter as sort's: each value's gradient goes back where it was taken from."""


def topk(
    a: Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,  # noqa: A002
) -> TopkResult:
    """The k largest (smallest) along dim, in order, ties in their original order and NaN the
    largest, as sort has them. `sorted=False` returns them sorted too (PyTorch's order is then
    its selection algorithm's)."""
    d = wrap_dim(dim, a.ndim)
    x = a._data
    if x.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    size = x.shape[d] if x.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        idx = np.zeros((), np.int64)
        values = x.copy()
    else:
        idx = np.take(_order(x, d, largest), np.arange(k), axis=d)
        values = np.take_along_axis(x, idx, d)
    indices = Tensor._wrap(idx)
    out = record(TopkBackward0, values, (a,), save={"indices": indices}, dim=d, shape=x.shape)
    return TopkResult(out, indices)
