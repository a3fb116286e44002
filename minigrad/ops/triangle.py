"""tril/triu: keep the lower (upper) triangle of the last two dims, zero the rest. The kept
places are chosen by position, never by multiplying, so inf and NaN outside them vanish."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.tensor import Tensor
from . import tangents
from ._record import record


def _mask(shape: tuple, diagonal: int, lower: bool) -> np.ndarray:
    rows, cols = shape[-2:]
    keep = np.tri(rows, cols, diagonal, dtype=bool)
    return keep if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)


def _triangle(g: Any, diagonal: int, lower: bool) -> Any:
    """The formula both ways: on arrays the numbers, on Tensors the recorded op again (the
    gradient of tril is tril of the gradient, as PyTorch records it)."""
    if isinstance(g, Tensor):
        return (tril if lower else triu)(g, diagonal)
    return np.where(_mask(g.shape, diagonal, lower), g, g.dtype.type(0))


class TrilBackward0(Node):
    lower = True
    jvp = tangents.linear(lambda node, out, t: _triangle(t, node.diagonal, node.lower))

    def backward(self, g):
        return (_triangle(g, self.diagonal, self.lower),)


class TriuBackward0(TrilBackward0):
    lower = False


def _run(a: Tensor, diagonal: int, lower: bool) -> Tensor:
    name = "tril" if lower else "triu"
    if a.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    x = a._data
    data = np.where(_mask(x.shape, diagonal, lower), x, x.dtype.type(0))
    cls = TrilBackward0 if lower else TriuBackward0
    return record(cls, data, (a,), diagonal=diagonal)


def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    return _run(a, diagonal, lower=True)


def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    return _run(a, diagonal, lower=False)
