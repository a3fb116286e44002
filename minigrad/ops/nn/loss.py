"""cross_entropy and mse_loss. cross_entropy follows PyTorch's three routes: class-probability
targets (a target shaped like the input) and label smoothing are written with ops, as PyTorch
writes them (same graph); class indices are log_softmax then nll_loss, and for (C,) or (N, C)
logits the two run in one kernel but record PyTorch's two nodes. Backward formulas that are
not kernels run as one numpy/kernel call unless create_graph asks for a differentiable graph
(`formula.kernel_or_ops`)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import kernels
from ...core import autocast
from ...core.dtypes import SCALAR_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .._record import operands, record
from ..elementwise import div_scalar
from ..reduction import LogSoftmaxBackward0
from ..shape import broadcast_shapes
from .nll import (
    check_classes,
    check_weight,
    nll_loss,
    out_of_bounds,
    reduce_nll,
    target_classes,
)
from .tangent_rules import reduced_pointwise, total


class _LossLogSoftmaxBackward0(LogSoftmaxBackward0):
    """cross_entropy's log_softmax node: one kernel call when no graph is being built."""

    def name(self) -> str:
        return "LogSoftmaxBackward0"

    def backward(self, g):
        r = self.saved("result")
        rows = (-1, r.shape[-1])  # a 1-d input is one row

        def kernel() -> np.ndarray:
            out = kernels.log_softmax_backward(
                formula.data(g).reshape(rows), formula.data(r).reshape(rows)
            )
            return out.reshape(r.shape)

        return (
            formula.kernel_or_ops((g, r), kernel, lambda: LogSoftmaxBackward0.backward(self, g)[0]),
        )


def _fused(x: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    """log_softmax and -logp at the targets of (C,) or (N, C) logits in one kernel."""
    check_classes(x, target)
    check_weight(weight, x)
    shape = x._data.shape
    t = target_classes(target)
    t = t.reshape(()) if len(shape) == 1 else t
    rows = x._data.reshape(t.size, shape[-1])
    logp_data, losses, weights, count, bad = kernels.cross_entropy_forward(
        rows, t.reshape(-1), ignore_index
    )
    if bad >= 0:
        raise out_of_bounds(int(t.reshape(-1)[bad]))
    logp = record(
        _LossLogSoftmaxBackward0,
        logp_data.reshape(shape),
        (x,),
        save_result=True,
        dim=len(shape) - 1,
    )
    counted = (weights.reshape(t.shape), count) if weight is None else None
    losses = losses.reshape(t.shape)
    return reduce_nll(logp, losses, t, weight, reduction, ignore_index, target, counted)


def _check_smoothing(label_smoothing: float) -> None:
    if label_smoothing > 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing:g}")


def _class_view(weight: Tensor, ndim: int, class_dim: int) -> Tensor:
    """The weights shaped to broadcast along the class dim."""
    shape = [1] * ndim
    shape[class_dim] = weight.shape[0]
    return weight.view(*shape)


def _probabilities(
    x: Tensor, target: Tensor, weight, reduction: str, ignore_index: int, label_smoothing: float
) -> Tensor:
    """Targets holding each class's probability: -(log_softmax(x) * target).sum(...)."""
    if not target.dtype.is_floating_point:
        name = SCALAR_NAMES.get(target._data.dtype.name, target._data.dtype.name)
        raise RuntimeError(
            f"Expected floating point type for target with class probabilities, got {name}"
        )
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if x.ndim == 0:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    class_dim = 0 if x.ndim == 1 else 1
    n_classes = x.shape[class_dim]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(
            f"cross_entropy: weight tensor should be defined either for all {n_classes} classes "
            f"or no classes but got weight tensor of shape: {list(weight.shape)}"
        )
    logp = x.log_softmax(class_dim)
    if label_smoothing > 0.0:
        _check_smoothing(label_smoothing)
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * (_class_view(weight, logp.ndim, class_dim) if logp.ndim > 1 else weight)
    if reduction == "none":
        return -prod.sum(class_dim)
    if reduction == "sum" or logp.numel() == 0:  # an empty mean is NaN (fill_, as in torch)
        total = prod.sum()
        return -(total if reduction == "sum" else total.fill_(float("nan")))
    return div_scalar(-prod.sum(), logp.numel() // n_classes)


def _smoothed(
    x: Tensor, target: Tensor, weight, reduction: str, ignore_index: int, label_smoothing: float
) -> Tensor:
    """Class indices with label smoothing: the NLL term mixed with the mean over classes."""
    _check_smoothing(label_smoothing)
    class_dim = 0 if x.ndim == 1 else 1
    logp = x.log_softmax(class_dim)
    nll = nll_loss(logp, target, weight, reduction, ignore_index)
    n_classes = logp.shape[class_dim]
    if weight is not None:
        smooth = -(logp * _class_view(weight, logp.ndim, class_dim)).sum(class_dim)
    else:
        smooth = -logp.sum(class_dim)
    ignored = target._data == ignore_index
    smooth.masked_fill_(Tensor._wrap(ignored), 0.0)
    if reduction == "mean":
        kept = target._data[~ignored].astype(np.int64)
        count = weight._data[kept].sum() if weight is not None else np.int64(kept.size)
        ret = smooth.sum() / Tensor._wrap(np.asarray(count))
    else:
        ret = smooth.sum() if reduction == "sum" else smooth
    return (1 - label_smoothing) * nll + ret * (label_smoothing / n_classes)


def cross_entropy(
    x: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
) -> Tensor:
    if autocast.cpu_on:
        x, target, weight = autocast.widen(x, target, weight)
    if x._data.shape == target._data.shape:
        return _probabilities(x, target, weight, reduction, ignore_index, label_smoothing)
    if label_smoothing > 0.0:
        return _smoothed(x, target, weight, reduction, ignore_index, label_smoothing)
    data = x._data
    if data.ndim in (1, 2) and data.shape[-1] and data.dtype.kind == "f":
        return _fused(x, target, weight, reduction, ignore_index)
    return nll_loss(x.log_softmax(0 if x.ndim == 1 else 1), target, weight, reduction, ignore_index)


class MseLossBackward0(Node):
    """2 / numel * (x - t) * g (2 for 'sum'), numel counted after broadcasting, computed in the
    promoted dtype (the engine casts each input's gradient back to its dtype). The target's
    gradient is PyTorch's own formula, 2 / numel * (t - x) * g: the same numbers as the negated
    input gradient, but under create_graph a separate term (at an infinite difference the two
    add up to inf - inf = NaN, as in PyTorch)."""

    jvp = reduced_pointwise

    def backward(self, g):
        x, t = self.saved("self"), self.saved("target")
        dtype = self.dtype
        scale = 2 / max(formula.data(x).size, 1) if self.reduction == "mean" else 2

        def kernel() -> np.ndarray:
            x_data, t_data = (formula.data(v).astype(dtype.np, copy=False) for v in (x, t))
            return (x_data - t_data) * (scale * formula.data(g))

        def ops(a: Tensor, b: Tensor) -> Tensor:
            a, b = (v if v.dtype is dtype else formula.to(v, dtype) for v in (a, b))
            return mse_loss_backward(g, a, b, scale)

        grad = formula.kernel_or_ops((x, t, g), kernel, lambda: ops(x, t))
        if self.next_functions[1][0] is None:
            return grad, None
        return grad, formula.kernel_or_ops(
            (x, t, g), lambda: -formula.data(grad), lambda: ops(t, x)
        )


class MseLossBackwardBackward0(Node):
    """mse_loss's gradient as one recorded op under create_graph (PyTorch's mse_loss_backward,
    with its double-backward formulas): linear in the incoming gradient and in x - t."""

    def backward(self, gg):
        go, x, t = (self.saved(k) for k in ("grad_output", "self", "target"))
        edges, scale = self.next_functions, self.scale
        g_go = None
        if edges[0][0] is not None:
            g_go = mse_loss_backward(gg, x, t, scale)
            if go.ndim == 0:  # a reduced loss: its single grad_output gets the sum
                g_go = g_go.sum() if isinstance(g_go, Tensor) else np.asarray(g_go.sum())
        g_x = gg * go * scale if edges[1][0] is not None else None
        g_t = -(gg * go * scale) if edges[2][0] is not None else None
        return g_go, g_x, g_t

    def jvp(self, out, tangents):
        """Bilinear in grad_output and x - t."""
        t_go, tx, tt = tangents
        go, x, t = (self.saved(k) for k in ("grad_output", "self", "target"))
        dt = None if tx is None and tt is None else total(tx, None if tt is None else -tt)
        return total(
            None if dt is None else dt * go * self.scale,
            None if t_go is None else (x - t) * (t_go * self.scale),
        )


def mse_loss_backward(g: Any, x: Any, t: Any, scale: float) -> Any:
    """(x - t) * scale * g: the numbers, or on Tensors one recorded op."""
    data = (formula.data(x) - formula.data(t)) * (scale * formula.data(g))
    save = {"grad_output": g, "self": x, "target": t}
    return formula.result(MseLossBackwardBackward0, data, (g, x, t), save=save, scale=scale)


def mse_loss(
    x: Tensor, target: Tensor, reduction: str = "mean", weight: Tensor | None = None
) -> Tensor:
    """F.mse_loss: input and target are broadcast first (torch.broadcast_tensors, recorded as
    ExpandBackward0), so the mean is over the broadcast elements and the gradient is summed
    back; they then promote together (a float result, else PyTorch's error). With weights,
    PyTorch's weighted mean written with ops: sum(w * (x - t)**2) / sum(w)."""
    if autocast.cpu_on:
        x, target, weight = autocast.widen(x, target, weight)
    input_shape = x.shape
    if x.shape != target.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({x.shape}). This will likely lead to incorrect results due to "
            "broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )
        shape = broadcast_shapes(tuple(x.shape), tuple(target.shape))
        x = x if x.shape == shape else x.expand(shape)
        target = target if target.shape == shape else target.expand(shape)
    if weight is not None:
        return _weighted_mse(x, target, weight, reduction, input_shape)
    _, (x_data, t_data), dtype = operands(x, target)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{SCALAR_NAMES[dtype.name]}'")
    diff = x_data - t_data
    sq = diff * diff
    if reduction == "none":
        data = sq
    elif reduction == "sum" or not sq.size:  # an empty mean is NaN, as in PyTorch
        data = np.asarray(sq.sum() if reduction == "sum" else np.nan, dtype=dtype.np)
    else:
        data = np.asarray(sq.mean(), dtype=dtype.np)
    save = {"self": x, "target": target}
    return record(MseLossBackward0, data, (x, target), save=save, reduction=reduction, dtype=dtype)


def _weighted_mse(x: Tensor, target: Tensor, weight: Tensor, reduction: str, shape) -> Tensor:
    if weight.shape != shape:
        raise ValueError("Weights and input must have the same size.")
    errors = (x - target).pow(2) * weight
    if reduction == "none":
        return errors
    if reduction == "sum":
        return errors.sum()
    if reduction == "mean":
        return errors.sum() / weight.sum()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")
