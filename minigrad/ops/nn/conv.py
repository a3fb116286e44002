"""conv2d. Its forward F(x, w), input-gradient Gx(g, w) and weight-gradient Gw(x, g) are each
others' derivatives, so double backward through a convolution needs no extra formulas."""

from __future__ import annotations

from typing import Any

from ... import kernels
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .._record import record


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
