"""Piecewise-constant ops (sign, sgn, round, floor, ceil, trunc): their gradient is zero almost
everywhere, which PyTorch records as a node that returns zeros; argsort has no gradient.
Integer tensors are already whole: rounding returns a copy (bool has no kernel)."""

from __future__ import annotations

import numpy as np

from ..core.dtypes import SCALAR_NAMES
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import record
from .ordering import _order
from .shape import wrap_dim


class _ZeroGradient(Node):
    """PyTorch's zeros_like(grad): 0 even where g holds inf or NaN, and no history."""

    # (forward too: a zero tangent, whatever the input's holds)
    jvp = tangents.linear(lambda node, out, t: formula.zeros_like(out))

    def backward(self, g):
        return (formula.zeros_like(g),)


class SignBackward0(_ZeroGradient):
    pass


def sign(a: Tensor) -> Tensor:
    """PyTorch's sign is (0 < x) - (x < 0): 0 at NaN (numpy's is NaN); bools stay themselves."""
    x = a._data
    return record(SignBackward0, x.copy() if x.dtype == np.bool_ else formula.sign(x), (a,))


class SgnBackward0(_ZeroGradient):
    """Zeros, like sign's; PyTorch's formula (written for complex numbers) keeps the input and
    the result, so writing either in place is refused."""

    def backward(self, g):
        self.saved("self"), self.saved("result")
        return super().backward(g)


def sgn(a: Tensor) -> Tensor:
    """sign for real tensors, recorded under its own name: the one PyTorch's formulas use (a
    norm's gradient under create_graph goes through SgnBackward0)."""
    x = a._data
    data = x.copy() if x.dtype == np.bool_ else formula.sign(x)
    return record(SgnBackward0, data, (a,), save={"self": a}, save_result=True)


def _integral(a: Tensor, kernel: str) -> Tensor | None:
    """A copy of an integer tensor (already whole), PyTorch's error for bool, else None."""
    x = a._data
    if x.dtype == np.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    return Tensor._wrap(x.copy()) if x.dtype.kind != "f" else None


class RoundBackward0(_ZeroGradient):
    pass


class RoundBackward1(_ZeroGradient):
    """round(decimals=...): PyTorch's other overload, even for decimals=0."""


def round(a: Tensor, decimals: int | None = None) -> Tensor:  # noqa: A001
    if decimals is None:
        whole = _integral(a, "round_vml_cpu")
        return whole if whole is not None else record(RoundBackward0, np.round(a._data), (a,))
    x = a._data
    if x.dtype.kind != "f":
        kernel = "round_vml_cpu" if decimals == 0 else "round_cpu"
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{SCALAR_NAMES[a.dtype.name]}'"
        )
    return record(RoundBackward1, np.round(x, decimals), (a,))


class FloorBackward0(_ZeroGradient):
    pass


def floor(a: Tensor) -> Tensor:
    whole = _integral(a, "floor_vml_cpu")
    return whole if whole is not None else record(FloorBackward0, np.floor(a._data), (a,))


class CeilBackward0(_ZeroGradient):
    pass


def ceil(a: Tensor) -> Tensor:
    whole = _integral(a, "ceil_vml_cpu")
    return whole if whole is not None else record(CeilBackward0, np.ceil(a._data), (a,))


class TruncBackward0(_ZeroGradient):
    pass


def trunc(a: Tensor) -> Tensor:
    whole = _integral(a, "trunc_vml_cpu")
    return whole if whole is not None else record(TruncBackward0, np.trunc(a._data), (a,))


def argsort(a: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The indices sort() returns (ties in their original order, NaN the largest)."""
    d = wrap_dim(dim, a.ndim)
    if a.ndim == 0:
        return Tensor._wrap(np.zeros((), np.int64))
    return Tensor._wrap(_order(a._data, d, descending).astype(np.int64))
