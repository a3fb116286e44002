"""The losses: nll_loss, cross_entropy, mse_loss. cross_entropy computes log_softmax and the
per-sample losses in one kernel but records PyTorch's two nodes. Backward formulas that are not
kernels run as one numpy/kernel call unless create_graph asks for a differentiable graph
(`formula.kernel_or_ops`)."""

from __future__ import annotations

import warnings

import numpy as np

from ... import kernels
from ...core.dtypes import SCALAR_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .._record import operands, record
from ..elementwise import div_scalar
from ..indexing import IndexPutBackward0Grad
from ..reduction import LogSoftmaxBackward0
from ..shape import broadcast_shapes


def _class_targets(target: Tensor, shape: tuple, ignore_index: int) -> np.ndarray:
    """Target class indices as an (N,) int64 array (N = 1 for a 1-d input), checked like
    PyTorch checks them."""
    t = target._data
    if t.dtype not in (np.int64, np.uint8):
        name = SCALAR_NAMES.get(t.dtype.name, t.dtype.name.capitalize())
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {name}")
    if t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    n, batch = (1, t.size) if len(shape) == 1 else (shape[0], t.shape[0] if t.ndim else 0)
    if batch != n:
        raise ValueError(f"Expected input batch_size ({n}) to match target batch_size ({batch}).")
    t = t.reshape(n).astype(np.int64, copy=False)
    if t.size and (t.min() < 0 or t.max() >= shape[-1]):  # two reductions in the usual case
        bad = (t != ignore_index) & ((t < 0) | (t >= shape[-1]))
        if bad.any():
            raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    return t


def _check_classes(x: Tensor) -> None:
    if x.ndim not in (1, 2):
        raise NotImplementedError("minigrad's nll_loss/cross_entropy take (C,) or (N, C) inputs")


def _soft_cross_entropy(x: Tensor, probs: Tensor, reduction: str) -> Tensor:
    """Class-probability targets, written the way torch writes them (same graph)."""
    dim = 1 if x.ndim > 1 else 0
    prod = x.log_softmax(dim) * probs
    if reduction == "none":
        return -prod.sum(dim)
    total = -prod.sum()
    return div_scalar(total, x.numel() // x.shape[dim]) if reduction == "mean" else total


class NllLossBackward0(Node):
    """The target tensor is saved as PyTorch saves it: changed in place, backward refuses."""

    def backward(self, g):
        target = np.reshape(formula.data(self.saved("target")), -1).astype(np.int64, copy=False)
        coef = g * -self.scale  # one coefficient per sample in every reduction mode
        shape = self.self_sym_sizes
        data = kernels.nll_loss_backward(
            np.reshape(formula.data(coef), -1), target, self.ignore_index, shape[-1]
        )
        if not isinstance(coef, Tensor):
            return (data.reshape(shape),)
        picked = np.where(target != self.ignore_index, target, 0)
        key = (np.arange(len(picked)), picked) if len(shape) == 2 else (picked,)
        return (record(IndexPutBackward0Grad, data.reshape(shape), (coef,), key=key),)


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


def _nll(
    logp: Tensor,
    losses: np.ndarray,
    t: np.ndarray,
    reduction: str,
    ignore_index: int,
    target: Tensor,
) -> Tensor:
    """Reduce per-sample losses (0 where ignored) and record NllLossBackward0 on logp; `t` is
    `target`'s classes as _class_targets returns them."""
    dtype = logp._data.dtype
    valid = t != ignore_index
    count = np.count_nonzero(valid)
    if reduction == "mean":
        data = np.asarray(losses.sum() / count if count else np.nan, dtype=dtype)
        scale = valid * dtype.type(1 / (count if count else 1))
    elif reduction == "sum":
        data = np.asarray(losses.sum(), dtype=dtype)
        scale = valid.astype(dtype)
    else:
        data = losses.astype(dtype, copy=False).reshape(logp.shape[:-1])
        scale = valid.astype(dtype).reshape(logp.shape[:-1])
    return record(
        NllLossBackward0,
        data,
        (logp,),
        save={"target": target},
        scale=scale,
        ignore_index=ignore_index,
        self_sym_sizes=logp._data.shape,
    )


def nll_loss(
    logp: Tensor, target: Tensor, reduction: str = "mean", ignore_index: int = -100
) -> Tensor:
    _check_classes(logp)
    t = _class_targets(target, tuple(logp.shape), ignore_index)
    valid = t != ignore_index
    rows = logp._data.reshape(len(t), -1)
    losses = -rows[np.arange(len(t)), np.where(valid, t, 0)] * valid
    return _nll(logp, losses, t, reduction, ignore_index, target)


def cross_entropy(
    x: Tensor, target: Tensor, reduction: str = "mean", ignore_index: int = -100
) -> Tensor:
    shape = x._data.shape
    if target._data.shape == shape and target.dtype.is_floating_point:
        return _soft_cross_entropy(x, target, reduction)
    _check_classes(x)
    # log_softmax and the per-sample losses in one kernel, recorded as torch's two nodes
    t = _class_targets(target, shape, ignore_index)
    logp_data, losses = kernels.cross_entropy_forward(x._data.reshape(len(t), -1), t, ignore_index)
    logp = record(
        _LossLogSoftmaxBackward0,
        logp_data.reshape(shape),
        (x,),
        save_result=True,
        dim=len(shape) - 1,
    )
    return _nll(logp, losses, t, reduction, ignore_index, target)


class MseLossBackward0(Node):
    """2 / numel * (x - t) * g (2 for 'sum'), numel counted after broadcasting, computed in the
    promoted dtype (the engine casts each input's gradient back to its dtype)."""

    def backward(self, g):
        x, t = self.saved("self"), self.saved("target")
        dtype = self.dtype
        scale = 2 / formula.data(x).size if self.reduction == "mean" else 2

        def kernel() -> np.ndarray:
            x_data, t_data = (formula.data(v).astype(dtype.np, copy=False) for v in (x, t))
            return (x_data - t_data) * (scale * formula.data(g))

        def ops() -> Tensor:
            x_, t_ = (v if v.dtype is dtype else formula.to(v, dtype) for v in (x, t))
            return (x_ - t_) * scale * g

        grad = formula.kernel_or_ops((x, t, g), kernel, ops)
        if self.next_functions[1][0] is None:
            return grad, None
        return grad, formula.kernel_or_ops((grad,), lambda: -formula.data(grad), lambda: -grad)


def mse_loss(x: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    """F.mse_loss: input and target are broadcast first (torch.broadcast_tensors, recorded as
    ExpandBackward0), so the mean is over the broadcast elements and the gradient is summed
    back; they then promote together (a float result, else PyTorch's error)."""
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
    _, (x_data, t_data), dtype = operands(x, target)
    if not dtype.is_floating_point:
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{SCALAR_NAMES[dtype.name]}'")
    diff = x_data - t_data
    sq = diff * diff
    data = np.asarray(
        sq.mean() if reduction == "mean" else sq.sum() if reduction == "sum" else sq,
        dtype=dtype.np,
    )
    save = {"self": x, "target": target}
    return record(MseLossBackward0, data, (x, target), save=save, reduction=reduction, dtype=dtype)
