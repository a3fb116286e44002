"""Selections that copy: index_select (whole slices at given indices along one dim),
masked_select (the elements where a broadcast mask holds, as a 1-D tensor) and nonzero (where
the elements are not 0). The gradients put g back where the elements came from. The method
forms differ only in the position their TypeError names (self is not counted)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import argument_error, record
from .index_add import index_add
from .indexing import ScatterBackward0, scatter_into_zeros
from .shape import broadcast_shapes


# --- index_select --------------------------------------------------------------------------
class IndexSelectBackward0(Node):
    """zeros(self's sizes).index_add_(dim, index, g): repeated indices add up; recorded as
    index_add under create_graph, as in PyTorch. A 0-d input gets g itself."""

    jvp = tangents.linear(
        lambda node, out, t: t.index_select(node.dim, node.saved("index")) if t.ndim else t.clone()
    )

    def backward(self, g):
        index, shape = self.saved("index"), self.self_sym_sizes
        if not shape:
            return (g.reshape(()),)
        if isinstance(g, Tensor):
            zeros = Tensor._wrap(np.zeros(shape, g._data.dtype))
            return (index_add(zeros, self.dim, index.reshape(-1), g),)  # (a 0-d index too)
        out = np.zeros(shape, g.dtype)
        np.add.at(out, (slice(None),) * self.dim + (index.reshape(-1),), g)
        return (out,)


def _picks(index: Any, position: int, size: int, scalar: bool) -> np.ndarray:
    """index as an int64 vector, after PyTorch's checks: a Tensor of int32/int64, at most 1-D,
    every index in [0, size); one index only into a 0-d input."""
    if not isinstance(index, Tensor):
        raise argument_error("index_select", "index", position, index)
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    picks = index._data.reshape(-1).astype(np.int64)
    if scalar and picks.size != 1:
        raise RuntimeError(
            f"index_select(): Index to scalar can have only 1 value, got {picks.size} value(s)"
        )
    if picks.size and not (picks.min() >= 0 and picks.max() < size):
        raise IndexError("index out of range in self")
    return picks


def _index_select(a: Tensor, dim: Any, index: Any, position: int) -> Tensor:
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        raise TypeError(
            f"index_select(): argument 'dim' (position {position - 1}) must be int, not "
            f"{type(dim).__name__}"
        )
    d = wrap_dim(dim, a.ndim)
    scalar = a.ndim == 0
    picks = _picks(index, position, 1 if scalar else a.shape[d], scalar)
    data = a._data.copy() if scalar else np.take(a._data, picks, axis=d)
    shape = tuple(a.shape)
    save = {"index": index}
    return record(IndexSelectBackward0, data, (a,), save=save, dim=d, self_sym_sizes=shape)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:  # noqa: A002
    return _index_select(input, dim, index, 3)


def index_select_method(self: Tensor, dim: int, index: Tensor) -> Tensor:
    return _index_select(self, dim, index, 2)


# --- masked_select -------------------------------------------------------------------------
class MaskedScatterBackward0(ScatterBackward0):
    """masked_select's gradient as recorded under create_graph (PyTorch's masked_scatter_)."""

    jvp = tangents.linear(
        lambda node, out, t: scatter_into_zeros(t, out.shape, node.key, type(node))
    )


class MaskedSelectBackward0(Node):
    """g put back where the broadcast mask holds, zeros elsewhere, summed down to self's
    shape (an element picked through several broadcast copies gets their sum)."""

    jvp = tangents.linear(lambda node, out, t: t.masked_select(node.saved("mask")))

    def backward(self, g):
        mask, x = formula.data(self.saved("mask")), self.saved("self")
        shape = broadcast_shapes(mask.shape, np.shape(formula.data(x)))
        where = (np.flatnonzero(np.broadcast_to(mask, shape)),)
        size = int(np.prod(shape, dtype=np.int64))
        full = scatter_into_zeros(g, (size,), where, MaskedScatterBackward0).reshape(shape)
        return (formula.sum_to(full, np.shape(formula.data(x))),)


def _masked_select(a: Tensor, mask: Any, position: int) -> Tensor:
    if not isinstance(mask, Tensor):
        raise argument_error("masked_select", "mask", position, mask)
    if mask._data.dtype != np.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    shape = broadcast_shapes(mask.shape, a.shape)
    data = np.broadcast_to(a._data, shape)[np.broadcast_to(mask._data, shape)]
    return record(MaskedSelectBackward0, data, (a,), save={"mask": mask, "self": a})


def masked_select(input: Tensor, mask: Tensor) -> Tensor:  # noqa: A002
    return _masked_select(input, mask, 2)


def masked_select_method(self: Tensor, mask: Tensor) -> Tensor:
    return _masked_select(self, mask, 1)


# --- nonzero -------------------------------------------------------------------------------
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:  # noqa: A002
    """The indices of the elements that are not 0 (NaN is not 0, -0.0 is), in row-major order:
    one row each (an (n, ndim) int64 tensor), or with as_tuple one index tensor per dim (a 0-d
    input counts as 1-D there)."""
    x = input._data
    if as_tuple:
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(x)))
    return Tensor._wrap(np.ascontiguousarray(np.argwhere(x), dtype=np.int64))
