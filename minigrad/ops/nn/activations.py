"""The elementwise activations of torch.nn.functional, each a node named as PyTorch names it.

Every backward formula is written with formula.py's vocabulary (and the `_where`, `_tanh`,
`_sigmoid` below), so a plain backward runs it on arrays and create_graph records it on
Tensors, which differentiates again to any order. Selections (`_where`, `formula.keep`) keep an
inf or NaN of the unselected branch out, as PyTorch's kernels select rather than multiply.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.dtypes import SCALAR_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula, tangents
from .._record import record
from ..elementwise import where
from ..not_implemented import NotImplementedBackward

_erf = np.frompyfunc(math.erf, 1, 1)
_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_TANH_K = math.sqrt(2 / math.pi)
_TANH_C = 0.044715


def _where(mask: Any, a: Any, b: Any) -> Any:
    """a where `mask` holds, else b; recorded as where() when a or b is a Tensor."""
    m = np.asarray(formula.data(mask))
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        return where(Tensor._wrap(m), a, b)
    return np.where(m, a, b)


def _inside(mask: Any, x: Any) -> Any:
    """x where `mask` holds, else 0: a branch's input, so that the branch PyTorch does not
    select computes nothing infinite (its gradient there is then 0, not 0 * inf)."""
    return _where(mask, x, 0.0)


def _tanh(x: Any) -> Any:
    return x.tanh() if isinstance(x, Tensor) else np.tanh(x)


def _sigmoid(x: Any) -> Any:
    if isinstance(x, Tensor):
        return x.sigmoid()
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _float(a: Tensor, kernel: str) -> np.ndarray:
    """The input's numbers; integer and bool inputs raise PyTorch's NotImplementedError."""
    x = a._data
    if x.dtype.kind != "f":
        raise NotImplementedError(
            f"\"{kernel}\" not implemented for '{SCALAR_NAMES.get(x.dtype.name, x.dtype.name)}'"
        )
    return x


def _unary(node_cls: type[Node], data: np.ndarray, a: Tensor, **save: Any) -> Tensor:
    """Record `node_cls` on `a` (its output `data` in a's dtype), saving `a` as "self" and the
    scalar arguments in `save` (readable as grad_fn._saved_<name>, as in PyTorch)."""
    data = np.asarray(data).astype(a._data.dtype, copy=False)
    return record(node_cls, data, (a,), save={"self": a, **save}, **save)


class _Activation(Node):
    """backward(g) = self.formula(g, x) for the saved input x."""

    jvp = tangents.elementwise

    def formula(self, g: Any, x: Any) -> Any:  # pragma: no cover - overridden
        raise NotImplementedError

    def backward(self, g):
        return (self.formula(g, self.saved("self")),)


# --- gelu --------------------------------------------------------------------------------
class _NormalCdf(Node):
    """Phi(x), recorded inside gelu's gradient under create_graph: its own gradient is the
    normal density, written with ops, so higher orders follow."""

    jvp = tangents.elementwise

    def backward(self, g):
        x = self.saved("self")
        return (g * (formula.exp(x * x * -0.5) * _INV_SQRT_2PI),)


def _normal_cdf(x: Any) -> Any:
    xd = formula.data(x)
    erf = np.asarray(_erf(np.asarray(xd, dtype=np.float64) * _SQRT_HALF), dtype=np.float64)
    data = (0.5 * (1 + erf)).astype(xd.dtype)
    if isinstance(x, Tensor):
        return record(_NormalCdf, data, (x,), save={"self": x})
    return data


class GeluBackward0(_Activation):
    def formula(self, g, x):
        if self.approximate == "tanh":
            t = _tanh((x + x * x * x * _TANH_C) * _TANH_K)
            inner = (x * x * (3 * _TANH_C) + 1) * _TANH_K
            return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * inner)
        pdf = formula.exp(x * x * -0.5) * _INV_SQRT_2PI
        return g * (_normal_cdf(x) + x * pdf)


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    x = _float(input, "GeluKernelImpl")
    with np.errstate(invalid="ignore", over="ignore"):
        if approximate == "tanh":
            data = 0.5 * x * (1 + np.tanh(_TANH_K * (x + _TANH_C * x * x * x)))
        else:
            data = x * _normal_cdf(x) if x.size else x.copy()
    return _unary(GeluBackward0, data, input, approximate=approximate)


# --- leaky_relu, elu ---------------------------------------------------------------------
def _leaky(x: np.ndarray, slope: float) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.where(x > 0, x, x * x.dtype.type(slope))


class LeakyReluBackward0(_Activation):
    def formula(self, g, x):
        return _where(formula.data(x) > 0, g, g * self.negative_slope)


class LeakyReluBackward1(Node):
    """leaky_relu_ saves its result; PyTorch refuses a negative slope there (the sign of the
    result no longer tells which side the input was on)."""

    jvp = tangents.elementwise

    def backward(self, g):
        r = self.saved("result")
        if self.negative_slope < 0:
            raise RuntimeError(
                "In-place leakyReLu backward calculation is triggered with a negative slope "
                "which is not supported. This is caused by calling in-place forward function "
                "with a negative slope, please call out-of-place version instead. File an issue "
                "at https://github.com/pytorch/pytorch if you do require supporting in-place "
                "leakRelu backward calculation with negative slope"
            )
        return (_where(formula.data(r) > 0, g, g * self.negative_slope),)


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    x = _float(input, "leaky_relu_cpu")
    return _unary(
        LeakyReluBackward0, _leaky(x, negative_slope), input, negative_slope=negative_slope
    )


def leaky_relu_result(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """leaky_relu as its in-place form records it (LeakyReluBackward1, on the result)."""
    x = _float(input, "leaky_relu_cpu")
    save = {"negative_slope": negative_slope}
    data = _leaky(x, negative_slope)
    return record(LeakyReluBackward1, data, (input,), save=save, save_result=True, **save)


def _elu(x: np.ndarray, alpha: float) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))


class EluBackward0(_Activation):
    def formula(self, g, x):
        xd = formula.data(x)  # (its second derivative counts x < 0 only, as PyTorch's)
        return _where(xd <= 0, g * formula.exp(_inside(xd < 0, x)) * self.alpha, g)


class EluBackward1(Node):
    """elu_ saves its result: for x <= 0 the gradient is g * (result + alpha)."""

    jvp = tangents.elementwise

    def backward(self, g):
        r = self.saved("result")
        if self.alpha < 0:
            raise RuntimeError(
                "In-place elu backward calculation is triggered with a negative slope which is "
                "not supported. This is caused by calling in-place forward function with a "
                "negative slope, please call out-of-place version instead."
            )
        rd = formula.data(r)
        return (_where(rd <= 0, g * (_inside(rd < 0, r) + self.alpha), g),)


def elu(input: Tensor, alpha: float = 1.0) -> Tensor:
    x = _float(input, "elu_cpu")
    return _unary(EluBackward0, _elu(x, alpha), input, alpha=alpha)


def elu_result(input: Tensor, alpha: float = 1.0) -> Tensor:
    """elu as its in-place form records it (EluBackward1, on the result)."""
    x = _float(input, "elu_cpu")
    save = {"alpha": alpha}
    return record(EluBackward1, _elu(x, alpha), (input,), save=save, save_result=True, **save)


# --- silu, mish, softplus, logsigmoid ----------------------------------------------------
class SiluBackward0(_Activation):
    def formula(self, g, x):
        s = _sigmoid(x)
        return g * s * (x * (1 - s) + 1)


def silu(input: Tensor) -> Tensor:
    x = _float(input, "silu_cpu")
    with np.errstate(invalid="ignore"):
        return _unary(SiluBackward0, x * _sigmoid(x), input)


def _softplus(x: Any) -> Any:
    """log(1 + exp(x)) on arrays (inf for a huge x) or Tensors."""
    if isinstance(x, Tensor):
        return (x.exp() + 1).log()
    with np.errstate(over="ignore"):
        return np.log1p(np.exp(x))


class MishBackward0(_Activation):
    def formula(self, g, x):
        t = _tanh(_softplus(x))
        return g * (t + x * _sigmoid(x) * (1 - t * t))


def mish(input: Tensor) -> Tensor:
    x = _float(input, "mish_cpu")
    with np.errstate(invalid="ignore"):
        return _unary(MishBackward0, x * np.tanh(_softplus(x)), input)


class SoftplusBackward0(_Activation):
    def formula(self, g, x):
        scaled = x * self.beta
        linear = formula.data(scaled) > self.threshold
        with np.errstate(over="ignore", invalid="ignore"):
            z = formula.exp(_inside(~linear, scaled))
            return _where(linear, g, g * z / (z + 1))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    x = _float(input, "softplus_cpu")
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        scaled = x * x.dtype.type(beta)
        data = np.where(scaled > threshold, x, _softplus(scaled) / x.dtype.type(beta))
    return _unary(SoftplusBackward0, data, input, beta=beta, threshold=threshold)


class LogSigmoidBackward0(_Activation):
    """g * sigmoid(-x): 1 at -inf, 0 at inf."""

    def formula(self, g, x):
        return g * _sigmoid(-x)


def logsigmoid(input: Tensor) -> Tensor:
    x = _float(input, "log_sigmoid_cpu")
    with np.errstate(invalid="ignore"):
        data = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    return _unary(LogSigmoidBackward0, data, input)


# --- hardtanh, hardswish, hardsigmoid ----------------------------------------------------
class HardtanhBackward0(_Activation):
    """g strictly inside (min_val, max_val), else 0 (NaN included); flat in x."""

    def formula(self, g, x):
        xd = formula.data(x)
        return formula.keep((xd > self.min_val) & (xd < self.max_val), g)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """Integer inputs are clamped too (no gradient); bool ones are refused."""
    x = input._data
    if x.dtype == np.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")
    data = np.clip(x, x.dtype.type(min_val), x.dtype.type(max_val))
    bounds = {"min_val": min_val, "max_val": max_val}
    return record(HardtanhBackward0, data, (input,), save={"self": input, **bounds}, **bounds)


class HardswishBackward0(_Activation):
    def formula(self, g, x):
        xd = formula.data(x)
        inside = (xd > -3) & (xd < 3)
        return _where(
            xd <= -3, formula.zeros_like(g), _where(inside, g * (_inside(inside, x) / 3 + 0.5), g)
        )


def hardswish(input: Tensor) -> Tensor:
    x = _float(input, "hardswish_cpu")
    with np.errstate(invalid="ignore"):
        return _unary(HardswishBackward0, x * np.clip(x + 3, 0, 6) / 6, input)


class HardsigmoidBackward0(_Activation):
    """g / 6 strictly inside (-3, 3); PyTorch has no derivative of this gradient."""

    def formula(self, g, x):
        xd = formula.data(x)
        inside = (xd > -3) & (xd < 3)
        if not isinstance(g, Tensor):
            return np.where(inside, g / 6, g.dtype.type(0))
        data = np.where(inside, g._data / 6, g._data.dtype.type(0))
        return record(NotImplementedBackward, data, (g, x), op="hardsigmoid_backward")


def hardsigmoid(input: Tensor) -> Tensor:
    x = _float(input, "hardsigmoid_cpu")
    return _unary(HardsigmoidBackward0, np.clip(x + 3, 0, 6) / 6, input)
