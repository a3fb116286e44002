"""gather, scatter and scatter_add: along one dim, element (i, j, ...) of `index` names where
to read (gather) or write (scatter) along that dim; the other coordinates are its own. The
index may be smaller than the tensors in every dim but `dim` (only its box is touched).

Gradients as PyTorch's formulas: gather's is zeros.scatter_add(g); scatter's is g with the
written places set to 0 (for self, a recorded scatter of 0) and g gathered (for src);
scatter_add's is g (self) and g gathered (src). Repeated indices: scatter keeps the last
write, as PyTorch's CPU kernel (which runs in order) does."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ..core.node import Node
from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import argument_error, record
from .shape import tangent_or_zeros


def _check_index(name: str, index: Tensor) -> None:
    if index._data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _same_ndim(index: Tensor, other: Tensor, what: str) -> None:
    if index.ndim != other.ndim and max(index.ndim, other.ndim) > 1:
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")


def _key(index: np.ndarray, d: int) -> tuple:
    """The coordinates each element of `index` names: index itself along d, its own elsewhere."""
    return tuple(
        index if i == d else np.arange(n).reshape([-1 if k == i else 1 for k in range(index.ndim)])
        for i, n in enumerate(index.shape)
    )


def _in_bounds(index: np.ndarray, size: int, d: int) -> None:
    bad = index[(index < 0) | (index >= size)]
    if bad.size:
        raise RuntimeError(
            f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}"
        )


def _at_least_1d(x: np.ndarray) -> np.ndarray:
    return x.reshape(1) if x.ndim == 0 else x


# --- gather -------------------------------------------------------------------------------
class GatherBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: gather(t, node.dim, node.saved("index")))

    def backward(self, g):
        index = formula.data(self.saved("index"))
        return (scatter_add_into_zeros(g, self.self_sym_sizes, self.dim, index),)


def scatter_add_into_zeros(g: Any, shape: tuple, d: int, index: np.ndarray) -> Any:
    """zeros(shape).scatter_add(d, index, g): gather's gradient, recorded on Tensors (as
    ScatterAddBackward0, PyTorch's)."""
    if isinstance(g, Tensor):
        zeros = Tensor._wrap(np.zeros(shape, formula.data(g).dtype))
        return scatter_add(zeros, d, Tensor._wrap(index), g)
    out = np.zeros(shape, g.dtype)
    if index.size:
        np.add.at(_at_least_1d(out), _key(_at_least_1d(index), d), _at_least_1d(g))
    return out


def gather(a: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    d = wrap_dim(dim, a.ndim)
    _check_index("gather", index)
    _same_ndim(index, a, "input")
    x, idx = _at_least_1d(a._data), _at_least_1d(index._data)
    for i, (n, m) in enumerate(zip(idx.shape, x.shape)):
        if i != d and n > m:
            raise RuntimeError(
                f"Size does not match at dimension {i} expected index {list(index.shape)} to be "
                f"no larger than self {list(a.shape)} apart from dimension {d}"
            )
    if idx.size:
        _in_bounds(idx, x.shape[d], d)
        data = x[_key(idx, d)].reshape(index.shape)
    else:
        data = np.zeros(index.shape, x.dtype)
    save = {"index": index}
    return record(GatherBackward0, data, (a,), save=save, dim=d, self_sym_sizes=tuple(a.shape))


# --- scatter / scatter_add ----------------------------------------------------------------
def _check_scatter(a: Tensor, d: int, index: Tensor, src: Tensor | None) -> None:
    _check_index("scatter", index)
    _same_ndim(index, a, "self")
    if src is not None:
        _same_ndim(index, src, "src")
    idx = _at_least_1d(index._data)
    x_shape = _at_least_1d(a._data).shape
    src_shape = _at_least_1d(src._data).shape if src is not None else None
    for i, n in enumerate(idx.shape):
        if (i != d and n > x_shape[i]) or (src_shape is not None and n > src_shape[i]):
            raise RuntimeError(
                f"Expected index {list(index.shape)} to be no larger than self {list(a.shape)} "
                f"apart from dimension {d}"
                + (
                    f" and to be no larger size than src {list(src.shape)}"
                    if src is not None
                    else ""
                )
            )
    if src is not None and src._data.dtype != a._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if idx.size:
        _in_bounds(idx, x_shape[d], d)


def _written(a: Tensor, d: int, index: Tensor, src: np.ndarray | None, value: Any, add: bool):
    out = _at_least_1d(a._data.copy())
    idx = _at_least_1d(index._data)
    if idx.size:
        key = _key(idx, d)
        if src is not None:
            values = _at_least_1d(src)[tuple(slice(0, n) for n in idx.shape)]
        else:
            values = np.asarray(value).astype(out.dtype)
        if add:
            np.add.at(out, key, values)
        else:
            out[key] = values  # numpy assigns repeated places in order: the last one stays
    return out.reshape(a.shape)


class ScatterBackward0(Node):
    """scatter with a src tensor."""

    def jvp(self, out, tangents):
        src = tangent_or_zeros(self, tangents, 1)
        return scatter(tangent_or_zeros(self, tangents, 0), self.dim, self.saved("index"), src)

    def backward(self, g):
        index = self.saved("index")
        g_self = _zero_at(g, self.dim, index) if self.next_functions[0][0] else None
        g_src = _gather_src(g, self.dim, index) if self.next_functions[1][0] else None
        return g_self, g_src


class ScatterBackward1(Node):
    """scatter with a value: only self has a gradient."""

    jvp = tangents.linear(lambda node, out, t: scatter(t, node.dim, node.saved("index"), 0))

    def backward(self, g):
        return (_zero_at(g, self.dim, self.saved("index")),)


def _zero_at(g: Any, d: int, index: Any) -> Any:
    """g.scatter(d, index, 0): recorded on Tensors (ScatterBackward1, as PyTorch's)."""
    if isinstance(g, Tensor):
        return scatter(g, d, index if isinstance(index, Tensor) else Tensor._wrap(index), 0)
    out = _at_least_1d(g.copy())
    idx = _at_least_1d(formula.data(index))
    if idx.size:
        out[_key(idx, d)] = 0
    return out.reshape(g.shape)


def _gather_src(g: Any, d: int, index: Any) -> Any:
    """g.gather(d, index): src's gradient, the shape of index (recorded on Tensors)."""
    if isinstance(g, Tensor):
        return gather(g, d, index if isinstance(index, Tensor) else Tensor._wrap(index))
    idx = formula.data(index)
    if not idx.size:
        return np.zeros(idx.shape, g.dtype)
    return _at_least_1d(g)[_key(_at_least_1d(idx), d)].reshape(idx.shape)


def scatter(
    a: Tensor,
    dim: int,
    index: Tensor,
    src: Any = None,
    value: Any = None,
    *,
    reduce: str | None = None,
) -> Tensor:
    """`src` a Tensor (ScatterBackward0) or a number, or `value=` a number (ScatterBackward1).
    `reduce=` (deprecated in PyTorch) is not supported."""
    if reduce is not None:
        raise NotImplementedError("scatter(reduce=...) is not supported: use scatter_add")
    if src is None:
        src = value
    d = wrap_dim(dim, a.ndim)
    if isinstance(src, Tensor):
        _check_scatter(a, d, index, src)
        data = _written(a, d, index, src._data, None, add=False)
        return record(ScatterBackward0, data, (a, src), save={"index": index}, dim=d)
    if not isinstance(src, numbers.Number):
        raise argument_error("scatter", "value", 3, src)
    _check_scatter(a, d, index, None)
    data = _written(a, d, index, None, src, add=False)
    return record(ScatterBackward1, data, (a,), save={"index": index}, dim=d)


class ScatterAddBackward0(Node):
    def jvp(self, out, tangents):
        src = tangent_or_zeros(self, tangents, 1)
        return scatter_add(tangent_or_zeros(self, tangents, 0), self.dim, self.saved("index"), src)

    def backward(self, g):
        g_src = _gather_src(g, self.dim, self.saved("index")) if self.next_functions[1][0] else None
        return g, g_src


def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    if not isinstance(src, Tensor):
        raise argument_error("scatter_add", "src", 3, src)
    d = wrap_dim(dim, a.ndim)
    _check_scatter(a, d, index, src)
    data = _written(a, d, index, src._data, None, add=True)
    return record(ScatterAddBackward0, data, (a, src), save={"index": index}, dim=d)
