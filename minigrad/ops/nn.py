"""Neural-network ops: linear, conv2d, max_pool2d and the losses. Heavy lifting is in kernels/.

conv2d's forward F(x, w), input-gradient Gx(g, w) and weight-gradient Gw(x, g) are each others'
derivatives, so double backward through a convolution works without any extra formulas.
cross_entropy computes log_softmax and the per-sample losses in one kernel but records
PyTorch's two nodes. Backward formulas that are not kernels run as one numpy/kernel call unless
create_graph asks for a differentiable graph (`formula.kernel_or_ops`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import kernels
from ..core.dtypes import SCALAR_NAMES
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import operands, record
from .elementwise import div_scalar
from .indexing import IndexPutBackward0Grad
from .linalg import addmm
from .reduction import LogSoftmaxBackward0
from .shape import broadcast_shapes


def _pair(v: Any) -> int:
    if isinstance(v, (tuple, list)):
        if any(e != v[0] for e in v):
            raise NotImplementedError("minigrad supports square kernels, strides and padding only")
        return int(v[0])
    return int(v)


class ConvolutionBackward0(Node):
    def backward(self, g):
        x, w = self.saved("input"), self.saved("weight")
        s, p = self.stride, self.padding
        gx = conv2d_input_grad(g, w, x.shape, s, p) if self.next_functions[0][0] else None
        gw = conv2d_weight_grad(x, g, w.shape, s, p) if self.next_functions[1][0] else None
        gb = None
        if self.next_functions[2][0]:
            gb = formula.kernel_or_ops(
                (g,), lambda: kernels.conv2d_bias_grad(formula.data(g)), lambda: g.sum((0, 2, 3))
            )
        return gx, gw, gb


class _ConvBackwardBackward(Node):
    runs_on_arrays = False  # its formula calls the conv ops on Tensors

    def name(self) -> str:
        return "ConvolutionBackwardBackward0"


class ConvInputGrad(_ConvBackwardBackward):
    def backward(self, h):
        g, w = self.saved("grad"), self.saved("weight")
        return (
            _conv(h, w, self.stride, self.padding),
            conv2d_weight_grad(h, g, w.shape, self.stride, self.padding),
        )


def conv2d_input_grad(g: Any, w: Any, x_shape: tuple, stride: int, pad: int) -> Any:
    data = kernels.conv2d_input_grad(formula.data(g), formula.data(w), tuple(x_shape), stride, pad)
    return formula.result(
        ConvInputGrad, data, (g, w), save={"grad": g, "weight": w}, stride=stride, padding=pad
    )


class ConvWeightGrad(_ConvBackwardBackward):
    def backward(self, h):
        x, g = self.saved("input"), self.saved("grad")
        return (
            conv2d_input_grad(g, h, x.shape, self.stride, self.padding),
            _conv(x, h, self.stride, self.padding),
        )


def conv2d_weight_grad(x: Any, g: Any, w_shape: tuple, stride: int, pad: int) -> Any:
    data = kernels.conv2d_weight_grad(formula.data(x), formula.data(g), tuple(w_shape), stride, pad)
    return formula.result(
        ConvWeightGrad, data, (x, g), save={"input": x, "grad": g}, stride=stride, padding=pad
    )


def _conv(x: Tensor, w: Tensor, stride: int, pad: int) -> Tensor:
    data = kernels.conv2d_forward(x._data, w._data, None, stride, pad)
    return record(
        ConvolutionBackward0,
        data,
        (x, w, None),
        save={"input": x, "weight": w},
        stride=stride,
        padding=pad,
    )


def conv2d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    if _pair(dilation) != 1 or groups != 1:
        raise NotImplementedError("minigrad's conv2d supports dilation=1 and groups=1")
    s, p = _pair(stride), _pair(padding)
    unbatched = x.ndim == 3
    if unbatched:
        x = x.unsqueeze(0)
    if x.ndim != 4:
        raise RuntimeError(
            f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got "
            f"input of size: {list(x.shape)}"
        )
    if x.shape[1] != weight.shape[1]:
        raise RuntimeError(
            f"Given groups=1, weight of size {list(weight.shape)}, expected "
            f"input{list(x.shape)} to have {weight.shape[1]} channels, but got "
            f"{x.shape[1]} channels instead"
        )
    if x.dtype != weight.dtype:
        raise RuntimeError(
            f"Input type ({x.dtype}) and weight type ({weight.dtype}) should be the same"
        )
    data = kernels.conv2d_forward(x._data, weight._data, None if bias is None else bias._data, s, p)
    out = record(
        ConvolutionBackward0,
        data,
        (x, weight, bias),
        save={"input": x, "weight": weight},
        stride=s,
        padding=p,
    )
    return out.squeeze(0) if unbatched else out


class MaxPool2DWithIndicesBackward0(Node):
    """Saves the input and the indices it returns, as PyTorch does: changing either in place
    makes backward refuse. (The flat indices it scatters with are its own.)"""

    def backward(self, g):
        self.saved("self")
        self.saved("result1")
        return (_scatter_flat(g, self.indices, self.self_sym_sizes),)


class _ScatterFlat(Node):
    def backward(self, h):
        return (_gather_flat(h, self.indices, self.grad_shape),)


def _scatter_flat(g: Any, indices: np.ndarray, shape: tuple) -> Any:
    """Pooling's backward: g added at the input positions its maxima came from."""
    batched = shape if len(shape) == 4 else (1, *shape)
    g_data = formula.data(g)
    data = kernels.max_pool2d_backward(g_data.reshape(indices.shape), indices, batched)
    return formula.result(
        _ScatterFlat, data.reshape(shape), (g,), indices=indices, grad_shape=g_data.shape
    )


class _GatherFlat(Node):
    def backward(self, g):
        return (_scatter_flat(g, self.indices, self.self_sym_sizes),)


def _gather_flat(h: Any, indices: np.ndarray, shape: tuple) -> Any:
    h_data = formula.data(h)
    data = h_data.reshape(-1)[indices].reshape(shape)
    return formula.result(_GatherFlat, data, (h,), indices=indices, self_sym_sizes=h_data.shape)


def max_pool2d(
    x: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    if _pair(dilation) != 1 or ceil_mode:
        raise NotImplementedError("minigrad's max_pool2d supports dilation=1, ceil_mode=False")
    if x.ndim not in (3, 4) or x.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    k = _pair(kernel_size)
    s = k if stride in (None, ()) else _pair(stride)
    p = _pair(padding)
    if p > k // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={p}, "
            f"kernel_size={k} and dilation=1"
        )
    unbatched = x.ndim == 3
    values, idx = kernels.max_pool2d_forward(x._data[None] if unbatched else x._data, k, s, p)
    indices = None  # made only when returned: nobody else can change them
    if return_indices:
        plane = idx % (x.shape[-2] * x.shape[-1])  # torch: the index within each (H, W) plane
        indices = Tensor._wrap(plane[0] if unbatched else plane)
    out = record(
        MaxPool2DWithIndicesBackward0,
        values[0] if unbatched else values,
        (x,),
        save={"self": x, "result1": indices},
        indices=idx,
        self_sym_sizes=tuple(x.shape),
    )
    return (out, indices) if return_indices else out


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


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if x.ndim == 2 and bias is not None:
        return addmm(bias, x, weight.t())
    out = x.matmul(weight.t())
    return out + bias if bias is not None else out
