"""conv2d, and the node conv_transpose2d shares with it. Its forward F(x, w), input-gradient
Gx(g, w) and weight-gradient Gw(x, g) are each others' derivatives, so double backward through
a convolution needs no extra formulas, and conv_transpose2d, whose forward is Gx, needs none.

NaN placement follows the algorithm PyTorch picks (see `Spec.multiply_padding`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import kernels
from ...core import autocast
from ...core.dtypes import C_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula, tangents
from .._record import record
from .conv_spec import Pair, Spec, expand, spec_for
from .tangent_rules import total


def _bias_grad(g: Any) -> Any:
    return formula.kernel_or_ops(
        (g,), lambda: kernels.conv2d_bias_grad(formula.data(g)), lambda: g.sum((0, 2, 3))
    )


class ConvolutionBackward0(Node):
    def backward(self, g):
        x, w, spec = self.saved("input"), self.saved("weight"), self.spec
        need = [f is not None for f, _ in self.next_functions]
        gx = gw = None
        if self.transposed:  # the forward was Gx(x, w): F and Gw, roles swapped
            if need[0]:
                gx = convolution(g, w, None, spec, out_shape=x.shape)
            if need[1]:
                gw = conv2d_weight_grad(g, x, w.shape, spec)
        else:
            if need[0]:
                gx = conv2d_input_grad(g, w, x.shape, spec)
            if need[1]:
                gw = conv2d_weight_grad(x, g, w.shape, spec)
        return gx, gw, _bias_grad(g) if need[2] else None

    def jvp(self, out, tangents):
        """Bilinear in (x, w), plus the bias: conv(tx, w) + conv(x, tw) + tb."""
        tx, tw, tb = tangents
        x, w, spec, shape = self.saved("input"), self.saved("weight"), self.spec, out.shape
        return total(
            None if tx is None else convolution(tx, w, None, spec, self.transposed, shape),
            None if tw is None else convolution(x, tw, None, spec, self.transposed, shape),
            None if tb is None else tb.reshape(1, -1, 1, 1).expand(shape),
        )


class _ConvBackwardBackward(Node):
    def name(self) -> str:
        return "ConvolutionBackwardBackward0"


class ConvInputGrad(_ConvBackwardBackward):
    def backward(self, h):
        g, w, spec = self.saved("grad"), self.saved("weight"), self.spec
        dg = convolution(h, w, None, spec, out_shape=g.shape)
        return dg, conv2d_weight_grad(h, g, w.shape, spec)

    def jvp(self, out, tangents):
        tg, tw = tangents
        g, w, spec = self.saved("grad"), self.saved("weight"), self.spec
        return total(
            None if tg is None else conv2d_input_grad(tg, w, out.shape, spec),
            None if tw is None else conv2d_input_grad(g, tw, out.shape, spec),
        )


def conv2d_input_grad(g: Any, w: Any, x_shape: tuple, spec: Spec) -> Any:
    """Gx: the input gradient of F for an output gradient g (recorded on Tensors)."""
    data = kernels.conv2d_input_grad(formula.data(g), formula.data(w), tuple(x_shape), *spec[:4])
    return formula.result(ConvInputGrad, data, (g, w), save={"grad": g, "weight": w}, spec=spec)


class ConvWeightGrad(_ConvBackwardBackward):
    def backward(self, h):
        x, g, spec = self.saved("input"), self.saved("grad"), self.spec
        dg = convolution(x, h, None, spec, out_shape=g.shape)
        return conv2d_input_grad(g, h, x.shape, spec), dg

    def jvp(self, out, tangents):
        tx, tg = tangents
        x, g, spec = self.saved("input"), self.saved("grad"), self.spec
        return total(
            None if tx is None else conv2d_weight_grad(tx, g, out.shape, spec),
            None if tg is None else conv2d_weight_grad(x, tg, out.shape, spec),
        )


def conv2d_weight_grad(x: Any, g: Any, w_shape: tuple, spec: Spec) -> Any:
    """Gw: the weight gradient of F for an output gradient g (recorded on Tensors)."""
    data = kernels.conv2d_weight_grad(formula.data(x), formula.data(g), tuple(w_shape), *spec)
    return formula.result(ConvWeightGrad, data, (x, g), save={"input": x, "grad": g}, spec=spec)


def convolution(
    x: Any, w: Any, bias: Any, spec: Spec, transposed: bool = False, out_shape: tuple = ()
) -> Any:
    """F(x, w) + bias; with `transposed`, Gx(x, w) + bias: conv_transpose2d's forward, sized
    `out_shape`. Recorded as ConvolutionBackward0 on Tensors. F's `out_shape`, when given, may
    leave out its last rows and columns: conv_transpose2d's output_padding adds rows and
    columns to its output that no input position reads, whose F, its derivative, never
    computes there (the node's backward then runs on that smaller gradient, like PyTorch's)."""
    xd, wd, bd = formula.data(x), formula.data(w), None if bias is None else formula.data(bias)
    if transposed:
        data = kernels.conv2d_input_grad(xd, wd, out_shape, *spec[:4])
        if bd is not None:
            data += bd.reshape(1, -1, 1, 1)
    else:
        data = kernels.conv2d_forward(xd, wd, bd, *spec)
        if out_shape and data.shape[2:] != tuple(out_shape[2:]):
            data = np.ascontiguousarray(data[..., : out_shape[2], : out_shape[3]])
    return formula.result(
        ConvolutionBackward0,
        data,
        (x, w, bias),
        save={"input": x, "weight": w},
        spec=spec,
        transposed=transposed,
    )


class ConstantPadNdBackward0(Node):
    jvp = tangents.linear(
        lambda node, out, t: _pad_end(t, out.shape[2] - t.shape[2], out.shape[3] - t.shape[3])
    )

    def backward(self, g):
        return (g[..., : self.self_sym_sizes[2], : self.self_sym_sizes[3]],)


def _pad_end(x: Tensor, rows: int, cols: int) -> Tensor:
    """x with zero rows and columns appended: padding='same' with an even kernel pads one more
    at the end, as real zeros (PyTorch's constant_pad_nd), whatever the backend."""
    data = np.pad(x._data, ((0, 0), (0, 0), (0, rows), (0, cols)))
    return record(ConstantPadNdBackward0, data, (x,), self_sym_sizes=tuple(x.shape))


def _same(x: Tensor, w: Tensor, stride: Any, dilation: Any) -> tuple[Tensor, Pair]:
    """padding='same': the input (padded at the end where the kernel's reach is odd) and
    the symmetric padding that keeps the output the input's size."""
    if w.ndim != x.ndim:
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight"
            f"{list(w.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} instead"
        )
    stride = [stride] if isinstance(stride, int) else list(stride)
    if len(stride) not in (1, 2):
        raise RuntimeError("stride cannot broadcast to 2 dimensions")
    if any(s != 1 for s in stride):
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    dilation = expand(dilation, "dilation")
    reach = [dilation[a] * (w.shape[2 + a] - 1) for a in (0, 1)]
    if reach[0] % 2 or reach[1] % 2:
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created",
            UserWarning,
            stacklevel=3,
        )
        x = _pad_end(x, reach[0] % 2, reach[1] % 2)
    return x, (reach[0] // 2, reach[1] // 2)


def check_bias_dtype(x: Tensor, bias: Tensor | None, padding: Any) -> None:
    """PyTorch's first check of a convolution (before its shapes; after them for 'same' and
    'valid' padding, which take another path): the bias in the input's dtype."""
    if bias is not None and bias.dtype != x.dtype and not isinstance(padding, str):
        raise RuntimeError(
            f"Input type ({C_NAMES[x.dtype.name]}) and bias type "
            f"({C_NAMES[bias.dtype.name]}) should be the same"
        )


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    x, weight, bias = autocast.lower(input, weight, bias)
    check_bias_dtype(x, bias, padding)
    if x.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
            f"{list(x.shape)}"
        )
    unbatched = x.ndim == 3
    if unbatched:
        x = x.unsqueeze(0)
    if isinstance(padding, str):
        if padding == "same":
            x, padding = _same(x, weight, stride, dilation)
        elif padding == "valid":
            padding = 0
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    spec = spec_for(x, weight, bias, (stride, padding, dilation), groups)
    out = convolution(x, weight, bias, spec)
    return out.squeeze(0) if unbatched else out
