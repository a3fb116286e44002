"""binary_cross_entropy and binary_cross_entropy_with_logits, with PyTorch's formulas.

binary_cross_entropy clamps each logarithm at -100 and divides its slope by
max(x (1 - x), 1e-12); under create_graph its input gradient is recorded as PyTorch's
BinaryCrossEntropyBackwardBackward0, whose own formulas (with PyTorch's epsilons) are written
with ops. The target's gradient, -logit(x), and everything of the logits version are written
with formula ops, as PyTorch composes them, so they differentiate again by themselves."""

from __future__ import annotations

import numpy as np

from ...core import autocast
from ...core.dtypes import SCALAR_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula, tangents
from .._record import record
from ..elementwise import _sigmoid
from ..shape import broadcast_shapes
from .arguments import broadcast_shapes as torch_broadcast_shapes
from .arguments import not_differentiable
from .tangent_rules import reduced_pointwise

EPSILON = 1e-12


def _name(t: Tensor) -> str:
    return SCALAR_NAMES[t.dtype.name]


def _sig(x):
    return x.sigmoid() if isinstance(x, Tensor) else _sigmoid(x)


def _reduced(grad, weight, reduction: str, numel: int):
    """A pointwise gradient times the weights, divided by numel for the mean."""
    if weight is not None:
        grad = grad * weight
    return formula.divide(grad, numel) if reduction == "mean" else grad


def _check_fits(shape: tuple, other: tuple) -> None:
    """An in-place product into `shape` (PyTorch's loss.mul_(weight)) cannot grow it."""
    full = broadcast_shapes(shape, other)
    if full != tuple(shape):
        raise RuntimeError(
            f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}"
        )


class LogSigmoidBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        return (g * _sig(-self.saved("self")),)


def log_sigmoid(x):
    """min(x, 0) - log1p(exp(-|x|)): stable at both ends (-inf at -inf, 0 at inf)."""
    data = formula.data(x)
    with np.errstate(over="ignore"):
        out = np.minimum(data, 0) - np.log1p(np.exp(-np.abs(data)))
    if isinstance(x, Tensor):
        return record(LogSigmoidBackward0, out, (x,), save={"self": x})
    return out


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """PyTorch's composite formulas: (sigmoid(x) - t) g, or with pos_weight p
    ((p t + 1 - t) sigmoid(x) - p t) g, for the input; -x g, or
    (log_sigmoid(-x) - p log_sigmoid(x)) g, for the target; times the weights, / numel."""

    jvp = reduced_pointwise

    def backward(self, g):
        x, t = self.saved("self"), self.saved("target")
        w = self.saved("weight") if self.has_weight else None
        p = self.saved("pos_weight") if self.has_pos_weight else None
        n = formula.data(x).size
        if p is None:
            gx = (_sig(x) - t) * g
            gt = -x * g if self.next_functions[1][0] is not None else None
        else:
            pt = p * t
            gx = ((pt + 1 - t) * _sig(x) - pt) * g
            gt = None
            if self.next_functions[1][0] is not None:
                gt = (log_sigmoid(-x) - log_sigmoid(x) * p) * g
        gx = _reduced(gx, w, self.reduction, n)
        return gx, (None if gt is None else _reduced(gt, w, self.reduction, n))


def binary_cross_entropy_with_logits(
    x: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: str = "mean",
) -> Tensor:
    """(1 - t) x - log_sigmoid(x) (1 + (p - 1) t), times the weights: written into the
    target's dtype as PyTorch's in-place steps are."""
    if autocast.cpu_on:
        x, target, weight, pos_weight = autocast.widen(x, target, weight, pos_weight)
    if target.shape != x.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({x.shape})")
    not_differentiable("binary_cross_entropy_with_logits", weight=weight, pos_weight=pos_weight)
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{_name(x)}'")
    if not target.dtype.is_floating_point:
        raise RuntimeError(
            f"result type {_name(x)} can't be cast to the desired output type {_name(target)}"
        )
    shape = tuple(x.shape)
    arrays = [v._data for v in (x, target, weight, pos_weight) if v is not None]
    dtype = np.result_type(*(a.dtype for a in arrays))
    xd, td = x._data.astype(dtype, copy=False), target._data.astype(dtype, copy=False)
    ls = log_sigmoid(xd)
    if pos_weight is not None:
        _check_fits(shape, broadcast_shapes(pos_weight.shape, tuple(target.shape)))
        ls = ls * ((pos_weight._data - 1) * td + 1)
    loss = (1 - td) * xd - ls
    if weight is not None:
        _check_fits(shape, tuple(weight.shape))
        loss = loss * weight._data
    out = loss if reduction == "none" else loss.sum() if reduction == "sum" else _mean(loss)
    save = {"self": x, "target": target, "weight": weight, "pos_weight": pos_weight}
    return record(
        BinaryCrossEntropyWithLogitsBackward0,
        np.asarray(out, dtype=target._data.dtype),
        (x, target),
        save={k: v for k, v in save.items() if v is not None},
        has_weight=weight is not None,
        has_pos_weight=pos_weight is not None,
        reduction=reduction,
    )


def _mean(loss: np.ndarray) -> np.ndarray:
    """loss.mean(), NaN (without numpy's warning) when empty."""
    return loss.sum() / loss.size if loss.size else np.asarray(np.nan, dtype=loss.dtype)


def _denominator(x):
    """max(x (1 - x), 1e-12), a constant (PyTorch computes it without grad)."""
    d = formula.data(x)
    return np.maximum((1 - d) * d, d.dtype.type(EPSILON))


class LogitBackward0(Node):
    jvp = tangents.elementwise

    def backward(self, g):
        x = self.saved("self")
        return (g / (x * (1 - x)),)


def logit(x):
    """log(x / (1 - x)): the target's slope; its own node, whose gradient g / (x (1 - x)) is
    inf, not NaN, at 0 and 1 (as PyTorch's)."""
    data = formula.data(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(data / (1 - data))
    if isinstance(x, Tensor):
        return record(LogitBackward0, out, (x,), save={"self": x})
    return out


class BinaryCrossEntropyBackward0(Node):
    """(x - t) / max(x (1 - x), 1e-12) g for the input, -logit(x) g for the target, times
    the weights, / numel."""

    jvp = reduced_pointwise

    def backward(self, g):
        x, t = self.saved("self"), self.saved("target")
        w = self.saved("weight") if self.has_weight else None
        n = formula.data(x).size
        gx = bce_input_grad(g, x, t, w, self.reduction)
        if self.next_functions[1][0] is None:
            return gx, None
        return gx, _reduced(-logit(x) * g, w, self.reduction, n)


class BinaryCrossEntropyBackwardBackward0(Node):
    """PyTorch's double backward of the input gradient, for grad_output, self and target."""

    jvp = tangents.elementwise  # (its backward gives each input an output-shaped term)

    def backward(self, gg):
        g, x, t = (self.saved(k) for k in ("grad_output", "self", "target"))
        w = self.saved("weight") if self.has_weight else None
        n, red = formula.data(x).size, self.reduction
        out = [None, None, None]
        if self.next_functions[0][0] is not None:
            slope = (x - t) / ((x + EPSILON) * (1 - x + EPSILON))
            out[0] = _reduced(slope * gg, w, red, n)
        if self.next_functions[1][0] is not None:
            curve = (x * x - 2 * x * t + t) / ((x + EPSILON) ** 2 * (1 - x + EPSILON) ** 2)
            out[1] = _reduced(curve * (gg * g), w, red, n)
        if self.next_functions[2][0] is not None:
            out[2] = _reduced(-gg * g / _denominator(x), w, red, n)
        return tuple(out)


def bce_input_grad(g, x, t, w, reduction: str):
    """PyTorch's binary_cross_entropy_backward: recorded under create_graph as its own node."""
    gd, xd, td = (formula.data(v) for v in (g, x, t))
    data = _reduced(gd * (xd - td) / _denominator(xd), formula.data(w), reduction, xd.size)
    if not isinstance(g, Tensor):
        return data
    save = {"grad_output": g, "self": x, "target": t, "weight": w}
    return record(
        BinaryCrossEntropyBackwardBackward0,
        np.asarray(data, dtype=xd.dtype),
        (g, x, t),
        save={k: v for k, v in save.items() if v is not None},
        has_weight=w is not None,
        reduction=reduction,
    )


def binary_cross_entropy(
    x: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean"
) -> Tensor:
    """-w (t max(log x, -100) + (1 - t) max(log(1 - x), -100)); the weights are expanded to
    the target's shape first (a view, as in PyTorch)."""
    if autocast.cpu_on:
        x, target, weight = autocast.widen(x, target, weight)
    if target.shape != x.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({x.shape}) is deprecated. Please ensure they have the same size."
        )
    if weight is not None:
        weight = weight.expand(torch_broadcast_shapes(tuple(target.shape), tuple(weight.shape)))
    not_differentiable("binary_cross_entropy", weight=weight)
    if target.dtype != x.dtype:
        raise RuntimeError(f"Found dtype {_name(target)} but expected {_name(x)}")
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"binary_cross_entropy\" not implemented for '{_name(x)}'")
    if weight is not None:
        _check_fits(tuple(x.shape), tuple(weight.shape))
    xd, td = x._data, target._data
    bad_x, bad_t = ~((xd >= 0) & (xd <= 1)), ~((td >= 0) & (td <= 1))
    if bad_x.any() or bad_t.any():  # PyTorch checks element by element, input first
        first = np.argmax((bad_x | bad_t).reshape(-1))
        which = "input" if bad_x.reshape(-1)[first] else "target"
        raise RuntimeError(f"all elements of {which} should be between 0 and 1")
    floor = xd.dtype.type(-100)
    with np.errstate(divide="ignore"):
        loss = (td - 1) * np.maximum(np.log1p(-xd), floor) - td * np.maximum(np.log(xd), floor)
    if weight is not None:
        loss = loss * weight._data
    out = loss if reduction == "none" else loss.sum() if reduction == "sum" else _mean(loss)
    save = {"self": x, "target": target, "weight": weight}
    return record(
        BinaryCrossEntropyBackward0,
        np.asarray(out, dtype=xd.dtype),
        (x, target),
        save={k: v for k, v in save.items() if v is not None},
        has_weight=weight is not None,
        reduction=reduction,
    )
