"""The transcendental functions beyond exp/log/sin/cos/tanh (elementwise.py): rsqrt, log10
... erfc and atan2. Integer and bool inputs become the default float. Each gradient is the formula
PyTorch's derivatives.yaml gives (self or the result saved as PyTorch saves it), written with
operators and the `_either` helpers, so it runs on arrays in a plain backward and is recorded
on Tensors under create_graph; the order of operations is PyTorch's, so that inf and NaN land
where they land in PyTorch. Forward mode reuses each gradient (`tangents.elementwise`), but for
atan2, whose forward formula PyTorch writes out (NaN at the origin)."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..core import forward_grad
from ..core.node import Node
from ..core.tensor import Tensor
from . import elementwise as ew
from . import formula, tangents
from ._record import record
from .elementwise import _float_result, _unary, broadcast_operands

LN10, LN2 = math.log(10.0), math.log(2.0)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _either(op: Callable[[Tensor], Tensor], np_op: Callable) -> Callable[[Any], Any]:
    """A formula's function: `op` on Tensors (recorded under create_graph), `np_op` on arrays."""
    return lambda x: op(x) if isinstance(x, Tensor) else np_op(x)


def _vectorized(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """A math-module function over an array (numpy has no erf), in float64."""
    each = np.vectorize(fn, otypes=[np.float64])
    return lambda x: np.asarray(each(x))


_np_erf, _np_erfc = _vectorized(math.erf), _vectorized(math.erfc)


def _np_rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


class RsqrtBackward0(Node):
    """1 / sqrt(x), also inside asin's, acos's, asinh's and acosh's gradients: its own
    gradient is -0.5 * g * result³."""

    jvp = tangents.elementwise

    def backward(self, g):
        return (-0.5 * g * self.saved("result") ** 3,)


def rsqrt(a: Tensor) -> Tensor:
    return _unary(RsqrtBackward0, _np_rsqrt, a, save_result=True)


_rsqrt = _either(rsqrt, _np_rsqrt)
_reciprocal = _either(ew.reciprocal, np.reciprocal)


# --- logarithms and exponentials -----------------------------------------------------------
class Log10Backward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g / (self.saved("self") * LN10),)


def log10(a: Tensor) -> Tensor:
    return _unary(Log10Backward0, np.log10, a, save_self=True)


class Log2Backward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g / (self.saved("self") * LN2),)


def log2(a: Tensor) -> Tensor:
    return _unary(Log2Backward0, np.log2, a, save_self=True)


class Log1PBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g / (self.saved("self") + 1),)


def log1p(a: Tensor) -> Tensor:
    return _unary(Log1PBackward0, np.log1p, a, save_self=True)


class Expm1Backward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * (self.saved("result") + 1),)


def expm1(a: Tensor) -> Tensor:
    return _unary(Expm1Backward0, np.expm1, a, save_result=True)


# --- trigonometric -------------------------------------------------------------------------
class TanBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * (1 + self.saved("result") ** 2),)


def tan(a: Tensor) -> Tensor:
    return _unary(TanBackward0, np.tan, a, save_result=True)


class AsinBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        x = self.saved("self")
        return (g * _rsqrt(-x * x + 1),)


def asin(a: Tensor) -> Tensor:
    return _unary(AsinBackward0, np.arcsin, a, save_self=True)


class AcosBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        x = self.saved("self")
        return (g * -_rsqrt(-x * x + 1),)


def acos(a: Tensor) -> Tensor:
    return _unary(AcosBackward0, np.arccos, a, save_self=True)


class AtanBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        x = self.saved("self")
        return (g / (x * x + 1),)


def atan(a: Tensor) -> Tensor:
    return _unary(AtanBackward0, np.arctan, a, save_self=True)


class Atan2Backward0(Node):
    """PyTorch's atan2_backward: g * other / (self² + other²) and g * -self / (...), where
    1 / (self² + other²) is taken as 0 at the origin (so both gradients are 0 there)."""

    def jvp(self, out, tangents):
        """PyTorch's forward formula divides at the origin too (NaN there)."""
        x, y = self.saved("self"), self.saved("other")
        t_x, t_y = (formula.tangent_or_zeros(self, tangents, i) for i in (0, 1))
        return (y * t_x - x * t_y) / (x * x + y * y)

    def backward(self, g):
        x, y = self.saved("self"), self.saved("other")
        denominator = x * x + y * y
        recip = formula.keep(formula.data(denominator) != 0, _reciprocal(denominator))
        ga = g * y * recip if self.next_functions[0][0] is not None else None
        gb = g * -x * recip if self.next_functions[1][0] is not None else None
        return ga, gb


def atan2(a: Tensor, b: Tensor) -> Tensor:
    """Both operands are tensors (PyTorch takes no number here), promoted to a float."""
    (ta, tb), (x, y), dtype = broadcast_operands(a, b)
    (x, y), _ = _float_result([x, y], dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        data = np.arctan2(x, y)
    return record(Atan2Backward0, data, (ta, tb), save={"self": ta, "other": tb})


# --- hyperbolic ----------------------------------------------------------------------------
class SinhBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * _cosh(self.saved("self")),)


def sinh(a: Tensor) -> Tensor:
    return _unary(SinhBackward0, np.sinh, a, save_self=True)


class CoshBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * _sinh(self.saved("self")),)


def cosh(a: Tensor) -> Tensor:
    return _unary(CoshBackward0, np.cosh, a, save_self=True)


_sinh, _cosh = _either(sinh, np.sinh), _either(cosh, np.cosh)


class AsinhBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * _rsqrt(self.saved("self") ** 2 + 1),)


def asinh(a: Tensor) -> Tensor:
    return _unary(AsinhBackward0, np.arcsinh, a, save_self=True)


class AcoshBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * _rsqrt(self.saved("self") ** 2 - 1),)


def acosh(a: Tensor) -> Tensor:
    return _unary(AcoshBackward0, np.arccosh, a, save_self=True)


class AtanhBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * 1 / (1 - self.saved("self") ** 2),)


def atanh(a: Tensor) -> Tensor:
    return _unary(AtanhBackward0, np.arctanh, a, save_self=True)


class _NoInplaceDerivative(Node):
    """What PyTorch records for asinh_, acosh_ and atanh_: it has no derivative for their
    in-place versions, so backward through one raises."""

    op = ""

    def jvp(self, out, tangents):
        """Nor a forward one: PyTorch's error names the in-place op (asinh_)."""
        message = forward_grad.not_implemented(self).args[0]
        raise NotImplementedError(message.replace(f" {self.op} ", f" {self.op}_ ", 1))

    def backward(self, g):
        raise NotImplementedError(
            f"the derivative for 'inplace version of {self.op}' is not implemented."
        )


class AsinhBackward1(_NoInplaceDerivative):
    op = "asinh"


class AcoshBackward1(_NoInplaceDerivative):
    op = "acosh"


class AtanhBackward1(_NoInplaceDerivative):
    op = "atanh"


# --- error function ------------------------------------------------------------------------
class ErfBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (TWO_OVER_SQRT_PI * formula.exp(-(self.saved("self") ** 2)) * g,)


def erf(a: Tensor) -> Tensor:
    return _unary(ErfBackward0, _np_erf, a, save_self=True)


class ErfcBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (-TWO_OVER_SQRT_PI * formula.exp(-(self.saved("self") ** 2)) * g,)


def erfc(a: Tensor) -> Tensor:
    return _unary(ErfcBackward0, _np_erfc, a, save_self=True)


UNARY = {
    "rsqrt": rsqrt,
    "log10": log10,
    "log2": log2,
    "log1p": log1p,
    "expm1": expm1,
    "tan": tan,
    "asin": asin,
    "acos": acos,
    "atan": atan,
    "sinh": sinh,
    "cosh": cosh,
    "asinh": asinh,
    "acosh": acosh,
    "atanh": atanh,
    "erf": erf,
    "erfc": erfc,
}
# numpy's names, which PyTorch takes as aliases (the same op, the same node)
ALIASES = {
    "arcsin": "asin",
    "arccos": "acos",
    "arctan": "atan",
    "arcsinh": "asinh",
    "arccosh": "acosh",
    "arctanh": "atanh",
}
FUNCTIONS = {**UNARY, **{alias: UNARY[name] for alias, name in ALIASES.items()}}
# what an in-place twin runs (on a snapshot, ops/inplace.py) where it is not the op itself
INPLACE = {
    "asinh": partial(_unary, AsinhBackward1, np.arcsinh),
    "acosh": partial(_unary, AcoshBackward1, np.arccosh),
    "atanh": partial(_unary, AtanhBackward1, np.arctanh),
}
INPLACE.update({alias: INPLACE[name] for alias, name in ALIASES.items() if name in INPLACE})
