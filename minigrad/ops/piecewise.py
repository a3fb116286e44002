"""Piecewise-constant ops (sign, round, floor, ceil, trunc): their gradient is zero almost
everywhere, which PyTorch records as a node that returns zeros; argsort has no gradient."""

from __future__ import annotations

import numpy as np

from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import record


class _ZeroGradient(Node):
    """PyTorch's zeros_like(grad): 0 even where g holds inf or NaN, and no history."""

    def backward(self, g):
        return (formula.zeros_like(g),)


class SignBackward0(_ZeroGradient):
    pass


def sign(a: Tensor) -> Tensor:
    """PyTorch's sign is (0 < x) - (x < 0): 0 at NaN (numpy's is NaN); bools stay themselves."""
    x = a._data
    return record(SignBackward0, x.copy() if x.dtype == np.bool_ else formula.sign(x), (a,))


class RoundBackward0(_ZeroGradient):
    pass


def round(a: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001
    return record(RoundBackward0, np.round(a._data, decimals), (a,))


class FloorBackward0(_ZeroGradient):
    pass


def floor(a: Tensor) -> Tensor:
    return record(FloorBackward0, np.floor(a._data), (a,))


class CeilBackward0(_ZeroGradient):
    pass


def ceil(a: Tensor) -> Tensor:
    return record(CeilBackward0, np.ceil(a._data), (a,))


class TruncBackward0(_ZeroGradient):
    pass


def trunc(a: Tensor) -> Tensor:
    return record(TruncBackward0, np.trunc(a._data), (a,))


def argsort(a: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    keys = -a._data if descending else a._data
    return Tensor._wrap(np.argsort(keys, axis=dim, kind="stable").astype(np.int64))
