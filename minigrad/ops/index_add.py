"""index_add: `out[..., index[i], ...] = self[..., index[i], ...] + alpha * source[..., i, ...]`
along one dim, repeated indices adding up; `x.index_add_(...)` is its in-place form."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.dtypes import SCALAR_NAMES
from ..core.node import Node
from ..core.tensor import Tensor
from ._record import record
from .shape import tangent_or_zeros, wrap_dim


class IndexAddBackward0(Node):
    """self's gradient passes through; source's is the gradient read back at `index`."""

    def jvp(self, out, tangents):
        source = tangent_or_zeros(self, tangents, 1)
        return index_add(
            tangent_or_zeros(self, tangents, 0), self.dim, self.saved("index"), source, self.alpha
        )

    def backward(self, g):
        index = self.saved("index")
        key = (slice(None),) * self.dim + (index if isinstance(index, np.ndarray) else index._data,)
        grad_source = g[key] if self.alpha == 1 else g[key] * self.alpha
        return g, grad_source


def _check(name: str, a: Tensor, d: int, index: Tensor, source: Tensor) -> None:
    if index._data.dtype not in (np.int64, np.int32):
        kind = SCALAR_NAMES[index.dtype.name]
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index but got: {kind}")
    if index.ndim > 1:
        raise IndexError(
            f"{name}(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
            f"{SCALAR_NAMES[index.dtype.name]} and size: {list(index.shape)}"
        )
    if source._data.dtype != a._data.dtype:
        raise RuntimeError(
            f"{name}(): self ({SCALAR_NAMES[a.dtype.name]}) and source "
            f"({SCALAR_NAMES[source.dtype.name]}) must have the same scalar type"
        )
    count = index._data.size
    along = source.shape[d] if source.ndim else 1
    if count != along:
        raise RuntimeError(
            f"{name}(): Number of indices ({count}) should be equal to source.size(dim): "
            f"({along}), for dim: {d}"
        )
    size = a.shape[d] if a.ndim else 1
    if count and not (-size <= index._data.min() and index._data.max() < size):
        raise IndexError("index out of range in self")


def index_add(a: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any = 1) -> Tensor:
    d = wrap_dim(dim, a.ndim)
    _check("index_add_", a, d, index, source)
    out = a._data.copy()
    key = (slice(None),) * d + (index._data.reshape(-1),)
    added = source._data if alpha == 1 else source._data * alpha
    np.add.at(out, key, added.astype(out.dtype, copy=False))
    save = {"index": index}
    return record(IndexAddBackward0, out, (a, source), save=save, dim=d, alpha=alpha)
