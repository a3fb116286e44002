"""Elementwise ops. Backward formulas are written with formula.py's vocabulary, so they run on
arrays in a plain backward and on Tensors (recorded) under create_graph; broadcast gradients are
reduced to each input's shape by the engine (validate_outputs)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import kernels
from ..core import dtypes
from ..core.node import Node
from ..core.shapes import iterator_layout
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import cast, is_operand, operands, record
from .shape import broadcast_shapes


def _float_result(arrays: list[np.ndarray], dtype):
    """True division and transcendental ops turn integer inputs into the default float."""
    if dtype.is_floating_point:
        return arrays, dtype
    d = dtypes.get_default_dtype()
    return [cast(a, d.np) for a in arrays], d


def broadcast_operands(*values: Any) -> tuple[list[Tensor], list[np.ndarray], Any]:
    """`operands`, after checking that the shapes broadcast (PyTorch's error if not)."""
    tensors, arrays, dtype = operands(*values)
    if len(arrays) == 2:
        if not _pair_broadcasts(arrays[0].shape, arrays[1].shape):
            broadcast_shapes(arrays[0].shape, arrays[1].shape)  # raises
        return tensors, arrays, dtype
    first = None
    for x in arrays:
        if not x.shape:
            continue  # 0-d operands broadcast with anything
        if first is None:
            first = x.shape
        elif x.shape != first:
            broadcast_shapes(*(x.shape for x in arrays))
            break
    return tensors, arrays, dtype


def _pair_broadcasts(a: tuple, b: tuple) -> bool:
    """Whether two shapes broadcast together (the usual binary op: one test, no tuples)."""
    if a == b:
        return True
    for n, m in zip(reversed(a), reversed(b)):
        if n != m and n != 1 and m != 1:
            return False
    return True


# --- binary ------------------------------------------------------------------------------
def _times_alpha(y: np.ndarray, alpha: Any, dtype: dtypes.dtype) -> np.ndarray:
    """y * alpha in the result dtype (a bool result ands with bool(alpha)), after PyTorch's
    checks that alpha fits that dtype."""
    if isinstance(alpha, bool):
        if dtype is not dtypes.bool_:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif dtype.category < 2 and not isinstance(alpha, int):
        raise RuntimeError(
            "For integral input tensors, argument alpha must not be a floating point number."
        )
    return y * dtype.np.type(alpha)


class AddBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return g, (g if self.alpha == 1 else g * self.alpha)


def add(a: Any, b: Any, alpha: float = 1) -> Tensor:
    (ta, tb), (x, y), dtype = broadcast_operands(a, b)
    if type(alpha) is not int or alpha != 1:
        y = _times_alpha(y, alpha, dtype)
    return record(AddBackward0, iterator_layout(x + y, x, y), (ta, tb), alpha=alpha)


def _is_bool(value: Any) -> bool:
    if isinstance(value, Tensor):
        return value._data.dtype == np.bool_
    return isinstance(value, (bool, np.bool_))


def _check_sub(a: Any, b: Any) -> None:
    """PyTorch refuses `-` whenever one side is bool (Python True included)."""
    kinds = (_is_bool(a), _is_bool(b))
    if all(kinds):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if any(kinds):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` "
            "operator instead."
        )


class SubBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return g, -g if self.alpha == 1 else g * -self.alpha


class RsubBackward0(Node):
    """other - self, both tensors (the operator `tensor.__rsub__(tensor)`)."""

    jvp = tangents.elementwise

    def backward(self, g):
        return -g, g


class RsubBackward1(Node):
    """number - self."""

    jvp = tangents.elementwise

    def backward(self, g):
        return (-g,)


def sub(a: Any, b: Any, alpha: float = 1) -> Tensor:
    _check_sub(a, b)
    (ta, tb), (x, y), dtype = broadcast_operands(a, b)
    if type(alpha) is not int or alpha != 1:
        y = _times_alpha(y, alpha, dtype)
    return record(SubBackward0, iterator_layout(x - y, x, y), (ta, tb), alpha=alpha)


def rsub(a: Tensor, b: Any) -> Tensor:
    """b - a, recorded as PyTorch's rsub: RsubBackward0 on both when b is a tensor,
    RsubBackward1 on `a` alone when b is a number."""
    _check_sub(a, b)
    (tb, ta), (y, x), _ = broadcast_operands(b, a)
    if isinstance(b, Tensor):
        return record(RsubBackward0, iterator_layout(y - x, y, x), (ta, tb))
    return record(RsubBackward1, y - x, (ta,))


class MulBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        other = self.saved("other")
        self_ = self.saved("self")
        return (g * other if other is not None else None, g * self_ if self_ is not None else None)


def mul(a: Any, b: Any) -> Tensor:
    if type(b) is float and type(a) is Tensor and a._grad_fn is None and a._fw_grad is None:
        x = a._data  # (the optimizer's `lr * grad`: a tensor with no history, needing none,
        # so nothing records whatever the grad mode, and the number need not be wrapped)
        if not (a._requires_grad or a._is_inference or a._base is not None) and x.dtype.kind == "f":
            return Tensor._wrap(iterator_layout(x * x.dtype.type(b), x))
    (ta, tb), (x, y), _ = broadcast_operands(a, b)
    save = {"other": (tb, 0), "self": (ta, 1)}  # each for the other's gradient
    return record(MulBackward0, iterator_layout(x * y, x, y), (ta, tb), save_for=save)


class DivBackward0(Node):
    """PyTorch's div_tensor_self/other_backward: g / other and -g * ((self / other) / other)."""

    def jvp(self, out, tangents):
        """PyTorch's (t_self - t_other * result) / other, one division (so x/0 gives ±inf
        where the sum of the two terms would give inf - inf = NaN)."""
        ta, tb = tangents
        other = self.saved("other")
        if tb is None:
            return ta / other
        carried = tb * out if ta is None else ta - tb * out
        return (-carried if ta is None else carried) / other

    def backward(self, g):
        other = self.saved("other")
        self_ = self.saved("self")
        ga = g / other if self.next_functions[0][0] is not None else None
        gb = -g * ((self_ / other) / other) if self_ is not None else None
        return ga, gb


class DivBackward2(Node):
    """div with a rounding mode: piecewise constant, so both gradients are 0 whatever arrives
    (inf and NaN included), with no history. Both operands are saved, as PyTorch saves them."""

    jvp = tangents.elementwise

    def backward(self, g):
        self.saved("self"), self.saved("other")  # unpacked, so version-checked, as in PyTorch
        zeros = formula.zeros_like(g)
        return tuple(zeros if fn is not None else None for fn, _ in self.next_functions)


def div(a: Any, b: Any, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' "
            f"but found '{rounding_mode}'"
        )
    (ta, tb), (x, y), dtype = broadcast_operands(a, b)
    save, save_for = {"other": tb}, {"self": (ta, 1)}  # (other: for both gradients)
    if rounding_mode is not None:
        data = _rounded_quotient(x, y, dtype, rounding_mode)
        return record(DivBackward2, data, (ta, tb), save=save, save_for=save_for)
    (x, y), _ = _float_result([x, y], dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        data = iterator_layout(x / y, x, y)
        return record(DivBackward0, data, (ta, tb), save=save, save_for=save_for)


def _rounded_quotient(x: np.ndarray, y: np.ndarray, dtype: dtypes.dtype, mode: str) -> np.ndarray:
    """x / y rounded toward -inf ("floor") or 0 ("trunc") in the promoted dtype; an integer
    division by zero is PyTorch's RuntimeError, a float one IEEE's inf or NaN."""
    if dtype is dtypes.bool_:
        raise NotImplementedError(f"\"div_{mode}_cpu\" not implemented for 'Bool'")
    if dtype.category == 1:
        if not np.all(y):
            raise RuntimeError("ZeroDivisionError")
        q = np.floor_divide(x, y)
        return q + ((q < 0) & (q * y != x)) if mode == "trunc" else q
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.floor_divide(x, y) if mode == "floor" else np.trunc(x / y)


def rdiv(a: Tensor, other: Any) -> Tensor:
    """other / a as PyTorch's `Tensor.__rtruediv__` computes it: a.reciprocal() * other."""
    return mul(reciprocal(a), other)


class DivBackward1(Node):
    """Tensor / Scalar as PyTorch's own code calls it (at::div); `t / 2` records DivBackward0."""

    jvp = tangents.elementwise

    def backward(self, g):
        return (g / self.other,)


def div_scalar(a: Tensor, other: float) -> Tensor:
    (ta, _), (x, y), dtype = broadcast_operands(a, other)
    (x, y), _ = _float_result([x, y], dtype)
    return record(DivBackward1, x / y, (ta,), other=other)


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x ** y in the promoted dtype; integer powers follow PyTorch, where a negative exponent
    gives 1 for base 1, +-1 for base -1 and 0 otherwise (numpy raises instead)."""
    if x.dtype == np.bool_:
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if x.dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.power(x, y)
    negative = y < 0
    data = np.power(x, np.where(negative, 0, y))
    minus_one = np.where(y % 2 == 1, -1, 1)
    return np.where(negative, np.where(x == 1, 1, np.where(x == -1, minus_one, 0)), data).astype(
        x.dtype
    )


# PyTorch's pow(tensor, number) kernel computes these exponents without pow(), which differs at
# special values: x ** -0.5 is 1 / sqrt(x), -inf at -0.0 and NaN at -inf (pow says inf and 0).
_SPECIAL_POWERS = {
    0.5: np.sqrt,
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    -0.5: lambda x: 1 / np.sqrt(x),
    -1: lambda x: 1 / x,
    -2: lambda x: 1 / (x * x),
}


def _power_scalar(x: np.ndarray, e: Any) -> np.ndarray:
    """x ** e for a number e, as PyTorch's kernel computes it; a bool tensor takes a bool
    exponent (x ** True is x, x ** False is all True)."""
    if x.dtype == np.bool_:
        return x.copy() if e else np.ones_like(x)
    special = _SPECIAL_POWERS.get(e) if x.dtype.kind == "f" and not isinstance(e, bool) else None
    if special is None:
        return _power(x, np.asarray(e, dtype=x.dtype))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return special(x)


def _pow_number(x: Any, e: Any) -> Any:
    """x ** e in a formula: recorded on Tensors, PyTorch's kernel on arrays."""
    return pow(x, e) if isinstance(x, Tensor) else _power_scalar(x, e)


class PowBackward0(Node):
    """PyTorch's pow_backward: g * (e * x.pow(e - 1)), zeros_like(x) for e = 0."""

    jvp = tangents.elementwise

    def backward(self, g):
        x, e = self.saved("self"), self.exponent
        if e == 0:  # PyTorch: zeros_like(self), whatever the gradient holds
            return (formula.zeros_like(x),)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return (g * (e * _pow_number(x, e - 1)),)


class PowBackward1(Node):
    """PyTorch's pow_backward_self selects (0 where the exponent is 0); pow_backward_exponent
    multiplies g by where(self == 0 & exponent >= 0, 0, result * log(self))."""

    jvp = tangents.elementwise

    def backward(self, g):
        x, e, r = self.saved("self"), self.saved("exponent"), self.saved("result")
        if not isinstance(x, Tensor):  # numpy would take float32 with int64 to float64
            x, e = x.astype(r.dtype, copy=False), e.astype(r.dtype, copy=False)
        xd, ed = formula.data(x), formula.data(e)
        ga = gb = None
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.next_functions[0][0] is not None:
                ga = formula.keep(ed != 0, g * (e * x ** (e - 1)))
            if self.next_functions[1][0] is not None:
                flat = (xd == 0) & (ed >= 0)
                gb = g * formula.keep(~flat, r * formula.log(x))
        return ga, gb


class PowBackward2(Node):
    """number ** tensor: g * result * log(base); for base 0, PyTorch puts 0 in place of
    result * log(0) where the exponent is >= 0 (and multiplies that by g)."""

    jvp = tangents.elementwise

    def backward(self, g):
        r, e = self.saved("result"), formula.data(self.saved("exponent"))
        if self.base == 0:
            with np.errstate(invalid="ignore"):
                return (g * formula.keep(~(e >= 0), r * -np.inf),)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (g * (r * float(np.log(self.base))),)


def pow(a: Any, b: Any) -> Tensor:  # noqa: A001 - torch.pow
    (ta, tb), (x, y), dtype = broadcast_operands(a, b)
    if not isinstance(a, (Tensor, np.ndarray)):  # number ** tensor
        save = {"exponent": tb}
        return record(PowBackward2, _power(x, y), (tb,), save=save, save_result=True, base=a)
    if not isinstance(b, (Tensor, np.ndarray)):  # tensor ** number
        if dtype.category == 1 and b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return record(PowBackward0, _power_scalar(x, b), (ta,), save={"self": ta}, exponent=b)
    data = iterator_layout(_power(x, y), x, y)
    return record(PowBackward1, data, (ta, tb), save={"self": ta, "exponent": tb}, save_result=True)


class NegBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (-g,)


def neg(a: Tensor) -> Tensor:
    if a._data.dtype == np.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you "
            "are trying to invert a mask, use the `~` or `logical_not()` operator "
            "instead."
        )
    return record(NegBackward0, -a._data, (a,))


# --- unary --------------------------------------------------------------------------------
# numpy functions that never warn on a float (inf, NaN, huge, subnormal: checked with
# np.errstate(all="raise")), so need no errstate around them (which costs ~1 us a call)
QUIET = frozenset({np.tanh, np.arctan, np.arcsinh})


def _unary(node_cls: type[Node], fn, a: Tensor, save_self=False, save_result=False) -> Tensor:
    x = a._data
    if x.dtype.kind != "f":
        x = cast(x, dtypes.get_default_dtype().np)  # ints become the default float
    if fn in QUIET:
        data = fn(x)
    else:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            data = fn(x)
    return record(
        node_cls,
        data.astype(x.dtype, copy=False),
        (a,),
        save={"self": a} if save_self else None,
        save_result=save_result,
    )


class ExpBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * self.saved("result"),)


def exp(a: Tensor) -> Tensor:
    return _unary(ExpBackward0, np.exp, a, save_result=True)


class LogBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g / self.saved("self"),)


def log(a: Tensor) -> Tensor:
    return _unary(LogBackward0, np.log, a, save_self=True)


class SinBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * formula.cos(self.saved("self")),)


def sin(a: Tensor) -> Tensor:
    return _unary(SinBackward0, np.sin, a, save_self=True)


class CosBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * -formula.sin(self.saved("self")),)


def cos(a: Tensor) -> Tensor:
    return _unary(CosBackward0, np.cos, a, save_self=True)


class TanhBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (tanh_backward(g, self.saved("result")),)


class TanhBackwardBackward0(Node):
    """tanh's gradient as one recorded op under create_graph (PyTorch's tanh_backward)."""

    jvp = tangents.elementwise

    def backward(self, gg):
        go, y = self.saved("grad_output"), self.saved("output")
        g_go = tanh_backward(gg, y) if self.next_functions[0][0] else None
        return g_go, (gg * (-2 * y * go) if self.next_functions[1][0] else None)


def tanh_backward(g: Any, y: Any) -> Any:
    """g * (1 - y²) for tanh's output y: the numbers, or on Tensors a recorded op."""
    gd, yd = formula.data(g), formula.data(y)
    data = gd * (1 - yd * yd)
    save = {"grad_output": g, "output": y}
    return formula.result(TanhBackwardBackward0, data, (g, y), save=save)


def tanh(a: Tensor) -> Tensor:
    return _unary(TanhBackward0, np.tanh, a, save_result=True)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), as PyTorch's CPU kernel computes it: far below zero exp overflows to
    inf and the result is exactly 0 (float32 below about -88.7), not a subnormal."""
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


class SigmoidBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (sigmoid_backward(g, self.saved("result")),)


class SigmoidBackwardBackward0(Node):
    """sigmoid's gradient as one recorded op under create_graph (PyTorch's sigmoid_backward)."""

    jvp = tangents.elementwise

    def backward(self, gg):
        go, y = self.saved("grad_output"), self.saved("output")
        g_go = sigmoid_backward(gg, y) if self.next_functions[0][0] else None
        return g_go, (gg * go * (1 - 2 * y) if self.next_functions[1][0] else None)


def sigmoid_backward(g: Any, y: Any) -> Any:
    """g * y * (1 - y) for sigmoid's output y: the numbers, or on Tensors a recorded op."""
    gd, yd = formula.data(g), formula.data(y)
    data = gd * yd * (1 - yd)
    save = {"grad_output": g, "output": y}
    return formula.result(SigmoidBackwardBackward0, data, (g, y), save=save)


def sigmoid(a: Tensor) -> Tensor:
    return _unary(SigmoidBackward0, _sigmoid, a, save_result=True)


class ReluBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        r = self.saved("result")
        return (
            formula.kernel_or_ops(
                (g, r),
                lambda: kernels.relu_backward(formula.data(g), formula.data(r)),
                lambda: threshold_backward(g, r),
            ),
        )


class ThresholdBackwardBackward0(Node):
    """relu's gradient recorded as an op (create_graph), as PyTorch records threshold_backward:
    linear in the incoming gradient, flat (zero gradient) in the saved result."""

    jvp = tangents.elementwise

    def backward(self, gg):
        r = self.saved("self")
        zeros = np.zeros_like(formula.data(gg))
        if isinstance(gg, Tensor):
            return threshold_backward(gg, r), Tensor._wrap(zeros)
        return kernels.relu_backward(gg, r), zeros


def threshold_backward(g: Tensor, result: Tensor) -> Tensor:
    """g where relu's result is above 0 (or NaN, as in torch), else 0; recorded on (g, result)."""
    data = kernels.relu_backward(g._data, result._data)
    save = {"self": result, "threshold": 0}
    return record(ThresholdBackwardBackward0, data, (g, result), save=save)


def relu(a: Tensor) -> Tensor:
    if a._data.dtype == np.bool_:
        raise RuntimeError("Boolean inputs not supported for relu")
    return record(ReluBackward0, kernels.relu_forward(a._data), (a,), save_result=True)


class AbsBackward0(Node):
    """g * sgn(x), multiplied as PyTorch does (inf * 0 is NaN at x = 0; sgn(NaN) is 0). Under
    create_graph the sign is recorded, as PyTorch's self.sgn(): the gradient then takes x's
    history even when g has none (g from an empty window of a view written in place)."""

    jvp = tangents.elementwise

    def backward(self, g):
        x = self.saved("self")
        sign = formula.sign(x)
        if isinstance(x, Tensor):
            sign = record(SgnBackward0, sign, (x,))
        return (g * sign,)


class SgnBackward0(Node):
    """The sign in abs's gradient: its own gradient is 0 (inf and NaN included), as PyTorch's."""

    jvp = tangents.elementwise

    def backward(self, g):
        return (formula.zeros_like(g),)


def abs(a: Tensor) -> Tensor:  # noqa: A001
    if a._data.dtype == np.bool_:
        raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
    return record(AbsBackward0, np.abs(a._data), (a,), save={"self": a})


class SqrtBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g / (2 * self.saved("result")),)


def sqrt(a: Tensor) -> Tensor:
    return _unary(SqrtBackward0, np.sqrt, a, save_result=True)


class ReciprocalBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        r = self.saved("result")
        return (-g * (r * r),)


def reciprocal(a: Tensor) -> Tensor:
    return _unary(ReciprocalBackward0, np.reciprocal, a, save_result=True)


class ClampBackward1(Node):
    """clamp with number bounds; PyTorch names it ClampBackward1 whichever bounds are given.
    The gradient passes where min <= x <= max (not at NaN), selected as PyTorch's where does."""

    jvp = tangents.elementwise

    def backward(self, g):
        x = formula.data(self.saved("self"))
        if self.min is None:
            inside = x <= self.max
        else:
            inside = x >= self.min
            if self.max is not None:
                inside &= x <= self.max
        return (formula.keep(inside, g),)


class ClampBackward0(Node):
    """clamp with tensor bounds (PyTorch's clamp_backward and clamp_backward_min_max): x's
    gradient passes where min <= x <= max; a bound's where it is the value taken: min where
    x < min (and min < max), max where x > max (or max < min). NaN compares false throughout.
    `slots`: which of x, min, max are the node's inputs (clamp_min's node has no max)."""

    slots = (0, 1, 2)
    keeps_ties = False  # (clamp_min and clamp_max give x's tangent where x equals the bound)

    def jvp(self, out, tangents):
        """PyTorch's: the tangent of whichever value was taken. With one bound clamp takes the
        bound's where x is not strictly inside (NaN included), clamp_min/clamp_max x's where it
        equals the bound; with both, x's tangent unless x is beyond one."""
        given = dict(zip(self.slots, tangents, strict=True))
        x, lo, hi = self.saved("self"), self.saved("min"), self.saved("max")
        zero = formula.zeros_like(out)
        tx, tlo, thi = (given.get(i) for i in range(3))
        tx, tlo, thi = (zero if t is None else t.expand(out.shape) for t in (tx, tlo, thi))
        if lo is None:
            return where(x <= hi if self.keeps_ties else x < hi, tx, thi)
        if hi is None:
            return where(x >= lo if self.keeps_ties else x > lo, tx, tlo)
        return where(lo > hi, thi, where(x < lo, tlo, where(x > hi, thi, tx)))

    def backward(self, g):
        x = formula.data(self.saved("self"))
        lo, hi = self.saved("min"), self.saved("max")
        lo = None if lo is None else formula.data(lo)
        hi = None if hi is None else formula.data(hi)
        if lo is None:
            inside, low, high = x <= hi, None, x > hi
        elif hi is None:
            inside, low, high = x >= lo, x < lo, None
        else:
            inside, low, high = (x >= lo) & (x <= hi), (x < lo) & (lo < hi), (x > hi) | (hi < lo)
        masks = (inside, low, high)
        return tuple(
            formula.keep(masks[i], g) if fn is not None else None
            for i, (fn, _) in zip(self.slots, self.next_functions)
        )


def _clamp_kernel(bounds: tuple, dtype: dtypes.dtype, tensors: bool) -> None:
    """PyTorch has no bool clamp with two bounds, nor any with number bounds."""
    if dtype is not dtypes.bool_ or (tensors and None in bounds):
        return
    which = "" if None not in bounds else "_min" if bounds[1] is None else "_max"
    name = f"clamp{which}_scalar_cpu" if not tensors else "clamp_cpu"
    raise NotImplementedError(f"\"{name}\" not implemented for 'Bool'")


def clamp_dtype(a: Tensor, min: Any = None, max: Any = None) -> dtypes.dtype:  # noqa: A002
    """The dtype clamp(a, min, max) returns (the bounds take part in type promotion)."""
    return operands(a, *(v for v in (min, max) if v is not None))[2]


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """The bounds take part in type promotion: an int tensor clamped at 0.5 becomes float.
    Tensor bounds broadcast with `a` and get gradients; min > max gives max everywhere."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return _clamped(a, min, max, ClampBackward1, ClampBackward0)


class ClampMinBackward0(ClampBackward1):
    """clamp_min(x, number): clamp's gradient, under PyTorch's name for it."""


class ClampMinBackward1(ClampBackward0):
    """clamp_min(x, tensor)."""

    slots = (0, 1)
    keeps_ties = True


class ClampMaxBackward0(ClampBackward1):
    """clamp_max(x, number)."""


class ClampMaxBackward1(ClampBackward0):
    """clamp_max(x, tensor)."""

    slots = (0, 2)
    keeps_ties = True


def clamp_min(a: Tensor, min: Any) -> Tensor:  # noqa: A002
    return _clamped(a, min, None, ClampMinBackward0, ClampMinBackward1)


def clamp_max(a: Tensor, max: Any) -> Tensor:  # noqa: A002
    return _clamped(a, None, max, ClampMaxBackward0, ClampMaxBackward1)


def _clamped(a: Tensor, min: Any, max: Any, number_node: type, tensor_node: type) -> Tensor:  # noqa: A002
    """clamp's forward, recorded as `number_node` for number bounds, else `tensor_node`."""
    given = [v for v in (min, max) if v is not None]
    tensors = [isinstance(v, Tensor) for v in given]
    if any(tensors) and not all(tensors):
        got = ", ".join(type(v).__name__ for v in (a, min, max))
        raise TypeError(f"clamp() received an invalid combination of arguments - got ({got})")
    (ta, *tb), (x, *yb), dtype = broadcast_operands(a, *given)
    _clamp_kernel((min, max), dtype, all(tensors))
    lo = yb[0] if min is not None else None
    hi = yb[-1] if max is not None else None
    # on a tie PyTorch keeps x (clamp(-0.0, min=0) is -0.0); numpy keeps its second argument
    data = x if lo is None else np.maximum(lo, x)
    data = data if hi is None else np.minimum(hi, data)
    if not all(tensors):
        return record(number_node, data, (ta,), save={"self": ta}, min=min, max=max)
    tlo = tb[0] if min is not None else None
    thi = tb[-1] if max is not None else None
    inputs = tuple((ta, tlo, thi)[i] for i in tensor_node.slots)
    return record(tensor_node, data, inputs, save={"self": ta, "min": tlo, "max": thi})


class WhereBackward0(Node):
    """The condition is saved as PyTorch saves it: changed in place, backward refuses."""

    jvp = tangents.elementwise

    def backward(self, g):
        cond = formula.data(self.saved("condition"))
        ga = formula.keep(cond, g) if self.next_functions[0][0] is not None else None
        gb = formula.keep(~cond, g) if self.next_functions[1][0] is not None else None
        return ga, gb


def where(cond: Any, a: Any = None, b: Any = None) -> Any:
    """where(cond, a, b) selects; where(cond) alone is cond.nonzero(as_tuple=True)."""
    c = cond._data if isinstance(cond, Tensor) else np.asarray(cond)
    if a is None and b is None:
        return tuple(Tensor._wrap(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(c)))
    if not is_operand(a) or not is_operand(b):
        got = ", ".join(type(v).__name__ for v in (cond, a, b))
        raise TypeError(
            f"where() received an invalid combination of arguments - got ({got}), but expected "
            "one of:\n * (Tensor condition)\n * (Tensor condition, Tensor input, Tensor other, *, "
            "Tensor out = None)\n * (Tensor condition, Number self, Tensor other)\n"
            " * (Tensor condition, Tensor input, Number other)\n"
            " * (Tensor condition, Number self, Number other)"
        )
    if c.dtype != np.bool_:
        name = dtypes.SCALAR_NAMES[dtypes.from_numpy_dtype(c.dtype).name]
        raise RuntimeError(
            f"where expected condition to be a boolean tensor, but got a tensor with dtype {name}"
        )
    (ta, tb), (x, y), _ = operands(a, b)
    broadcast_shapes(c.shape, x.shape, y.shape)
    save = {"condition": cond if isinstance(cond, Tensor) else c}
    return record(WhereBackward0, iterator_layout(np.where(c, x, y), c, x, y), (ta, tb), save=save)


# C++ names of the types a number is converted to, as PyTorch's overflow check prints them
_CPP_TYPES = {
    "float32": "float",
    "float64": "double",
    "float16": "c10::Half",
    "int64": "int64_t",
    "int32": "int",
}


def checked_scalar(value: Any, np_dtype: np.dtype) -> np.ndarray:
    """A Python number as a 0-d array of `np_dtype`, refused as PyTorch refuses a number out of
    the dtype's range (an inf or NaN into an integer, 1e300 into float32); bool takes anything."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind == "b":
        return np.asarray(bool(value))
    if np_dtype.kind == "f":
        number = float(value)
        top = float(np.finfo(np_dtype).max)
        fits = not np.isfinite(number) or -top <= number <= top
    else:
        info = np.iinfo(np_dtype)
        fits = bool(np.isfinite(value)) and info.min <= int(value) <= info.max
    if not fits:
        name = _CPP_TYPES.get(np_dtype.name, np_dtype.name)
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return np.asarray(value, dtype=np_dtype)


class MaskedFillBackward0(Node):
    """The mask is saved as PyTorch saves it (version-checked)."""

    jvp = tangents.elementwise

    def backward(self, g):
        return (formula.keep(~formula.data(self.saved("mask")), g, formula.MaskedFillKeep),)


class MaskedFillBackward1(Node):
    """A 0-dim tensor value gets the sum of the gradient at the filled places; its tangent
    goes to every filled place."""

    def jvp(self, out, tangents):
        mask = formula.data(self.saved("mask"))
        shape = out._data.shape
        terms = [
            formula.keep(m, t if t._data.shape == shape else t.expand(shape))
            for m, t in zip((~mask, mask), tangents)
            if t is not None
        ]
        return terms[0] if len(terms) == 1 else terms[0] + terms[1]

    def backward(self, g):
        mask = formula.data(self.saved("mask"))
        ga = formula.keep(~mask, g) if self.next_functions[0][0] is not None else None
        gv = formula.keep(mask, g).sum() if self.next_functions[1][0] is not None else None
        return ga, gv


def _filled(mask: np.ndarray, value: Any, x: np.ndarray) -> np.ndarray:
    """PyTorch fills a contiguous clone of `x` (broadcast against the mask), whatever the
    layout of `x`."""
    data = np.where(mask, value, x)
    return data if data.flags.c_contiguous else data.copy(order="C")


def masked_fill(a: Tensor, mask: Any, value: Any) -> Tensor:
    """Like PyTorch's out-of-place masked_fill, `a` broadcasts against the mask."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{dtypes.C_NAMES.get(m.dtype.name, m.dtype.name)}"
        )
    if not is_operand(value):
        got = ", ".join(type(v).__name__ for v in (mask, value))
        raise TypeError(
            f"masked_fill() received an invalid combination of arguments - got ({got}), but "
            "expected one of:\n * (Tensor mask, Tensor value)\n * (Tensor mask, Number value)"
        )
    broadcast_shapes(m.shape, a.shape)
    save = {"mask": mask if isinstance(mask, Tensor) else m}
    if not isinstance(value, Tensor):
        data = _filled(m, checked_scalar(value, a._data.dtype), a._data)
        return record(MaskedFillBackward0, data, (a,), save=save)
    if value.ndim:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got "
            f"tensor with {value.ndim} dimension(s)."
        )
    number = checked_scalar(value._data.item(), a._data.dtype)  # (PyTorch reads its number)
    return record(MaskedFillBackward1, _filled(m, number, a._data), (a, value), save=save)
