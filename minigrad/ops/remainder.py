"""remainder (the `%` operator: the sign of the divisor, Python's) and fmod (the sign of the
dividend, C's). Integers divided by zero raise PyTorch's ZeroDivisionError; floats follow IEEE
(NaN). The gradient is g for the dividend and -g times the rounded quotient for the divisor."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.node import Node
from ..core.shapes import iterator_layout
from ..core.tensor import Tensor
from . import elementwise as ew
from . import tangents
from ._record import record
from .elementwise import broadcast_operands
from .not_implemented import NotImplementedBackward


def _divisor_gradient(node: Node, g: Any, mode: str) -> tuple:
    """(g, -g * self.div(other, rounding_mode=mode)), the second only when `other` needs it."""
    if node.next_functions[1][0] is None:
        return g, None
    x, y = node.saved("self"), node.saved("other")
    if isinstance(x, Tensor):
        quotient = ew.div(x, y, rounding_mode=mode)
    else:
        quotient = ew._rounded_quotient(x, y, dtypes.from_numpy_dtype(x.dtype), mode)
    return g, -g * quotient


class RemainderBackward0(Node):
    """remainder(tensor, number)."""

    jvp = tangents.elementwise

    def backward(self, g):
        return (g,)


class RemainderBackward1(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return _divisor_gradient(self, g, "floor")


def _floored(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """PyTorch's float remainder: fmod, moved by the divisor where the signs differ (so
    remainder(-0.0, 2) is -0.0 and remainder(3, -inf) is -inf)."""
    mod = np.fmod(x, y)
    return np.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


def _modulo(name: str, a: Any, b: Any, kernels: tuple) -> tuple[list[Tensor], np.ndarray]:
    """The operands, and a % b by the integer or float kernel of the promoted dtype."""
    (ta, tb), (x, y), dtype = broadcast_operands(a, b)
    if dtype is dtypes.bool_:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    if dtype.category == 1:
        if not np.all(y) and np.broadcast(x, y).size:
            raise RuntimeError("ZeroDivisionError")
        return [ta, tb], iterator_layout(kernels[0](x, y), x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return [ta, tb], iterator_layout(kernels[1](x, y), x, y)


def remainder(a: Any, other: Any) -> Tensor:
    (ta, tb), data = _modulo("remainder", a, other, (np.remainder, _floored))
    if not isinstance(a, Tensor):  # number % tensor: no derivative in PyTorch
        return record(NotImplementedBackward, data, (tb,), op="remainder")
    if not isinstance(other, Tensor):
        return record(RemainderBackward0, data, (ta,))
    save = {"self": (ta, 1), "other": (tb, 1)}
    return record(RemainderBackward1, data, (ta, tb), save_for=save)


class FmodBackward0(Node):
    """fmod(tensor, number)."""

    jvp = tangents.elementwise

    def backward(self, g):
        return (g,)


class FmodBackward1(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return _divisor_gradient(self, g, "trunc")


def fmod(a: Tensor, other: Any) -> Tensor:
    if not isinstance(a, Tensor):
        raise TypeError(
            f"fmod() received an invalid combination of arguments - got ({type(a).__name__}, "
            f"{type(other).__name__}), but expected one of:\n * (Tensor input, Tensor other, *, "
            "Tensor out = None)\n * (Tensor input, Number other, *, Tensor out = None)\n"
        )
    (ta, tb), data = _modulo("fmod", a, other, (np.fmod, np.fmod))
    if not isinstance(other, Tensor):
        return record(FmodBackward0, data, (ta,))
    save = {"self": (ta, 1), "other": (tb, 1)}
    return record(FmodBackward1, data, (ta, tb), save_for=save)
