"""conv1d: conv2d's kernels and checks run on the 1-d tensors viewed as 2-d with height 1,
which is how PyTorch runs it too (its view1d_as_2d), recorded as one ConvolutionBackward0 on
the 1-d tensors, as PyTorch records it. The shape errors name the 1-d shapes, as PyTorch's
do; the other checks are conv2d's (they print no shapes)."""

from __future__ import annotations

import warnings
from typing import Any

from ... import kernels
from ...core import autocast
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .conv import (
    _bias_grad,
    check_bias_dtype,
    conv2d_input_grad,
    conv2d_weight_grad,
    convolution,
)
from .conv_spec import Spec, _check_shapes, spec_for
from .pad import pad
from .tangent_rules import total


def _single(value: Any, name: str) -> int:
    values = [int(v) for v in value] if isinstance(value, (tuple, list)) else [int(value)]
    if len(values) != 1:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of 1 values to match the "
            f"convolution dimensions, but got {name}={values}"
        )
    return values[0]


def _as_2d(x: Any) -> Any:
    return formula.unsqueeze(x, 2)


def _as_1d(x: Any) -> Any:
    return formula.squeeze(x, 2)


class ConvolutionBackward0(Node):
    """conv2d's input and weight gradients, on the saved tensors and the gradient viewed
    as 2-d (under create_graph those views are recorded too)."""

    def backward(self, g):
        x, w, spec = _as_2d(self.saved("input")), _as_2d(self.saved("weight")), self.spec
        g2 = _as_2d(g)
        need = [f is not None for f, _ in self.next_functions]
        gx = _as_1d(conv2d_input_grad(g2, w, x.shape, spec)) if need[0] else None
        gw = _as_1d(conv2d_weight_grad(x, g2, w.shape, spec)) if need[1] else None
        return gx, gw, _bias_grad(g2) if need[2] else None

    def jvp(self, out, tangents):
        """conv2d's rule on the 2-d views: conv(tx, w) + conv(x, tw) + tb."""
        tx, tw, tb = tangents
        x, w, spec = self.saved("input"), self.saved("weight"), self.spec

        def conv(a, b):
            return _as_1d(convolution(_as_2d(a), _as_2d(b), None, spec))

        return total(
            None if tx is None else conv(tx, w),
            None if tw is None else conv(x, tw),
            None if tb is None else tb.reshape(1, -1, 1).expand(out.shape),
        )


def _same(x: Tensor, w: Tensor, stride: Any, dilation: Any) -> tuple[Tensor, int]:
    """padding='same': the input, padded with a zero at the end where the kernel's reach is
    odd (a recorded constant pad, as in PyTorch), and the padding on both sides."""
    if w.ndim != x.ndim:  # (worded as PyTorch's padding-string path words it)
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight"
            f"{list(w.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} instead"
        )
    if _single(stride, "stride") != 1:
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    reach = _single(dilation, "dilation") * (w.shape[-1] - 1)
    if reach % 2:
        warnings.warn(
            "Using padding='same' with even kernel lengths and odd dilation may require a "
            "zero-padded copy of the input be created",
            UserWarning,
            stacklevel=3,
        )
        x = pad(x, (0, 1))
    return x, reach // 2


_NAMES = ("stride", "padding", "dilation")


def _spec(x: Tensor, w: Tensor, bias: Tensor | None, args: tuple, groups: int) -> Spec:
    """conv2d's Spec for the 2-d views: (1, stride), (0, padding), (1, dilation). A shape
    error is raised as PyTorch words it for the 1-d shapes."""
    stride, padding, dilation = (_single(v, n) for v, n in zip(args, _NAMES))
    if w.ndim != x.ndim:
        raise RuntimeError(
            f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight "
            f"{list(w.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} instead"
        )
    views = [Tensor._wrap(_as_2d(t._data)) for t in (x, w)]
    args2 = ((1, stride), (0, padding), (1, dilation))
    try:
        return spec_for(*views, bias, args2, groups)
    except RuntimeError:
        if groups > 0 and padding >= 0 and stride > 0 and dilation >= 0:  # (args were fine)
            one_d = Spec((stride,), (padding,), (dilation,), groups, False)
            _check_shapes(x.shape, w.shape, bias, one_d, False)
        raise


def conv1d(
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
    if x.ndim not in (2, 3):
        raise RuntimeError(
            "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
            f"{list(x.shape)}"
        )
    if weight.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    unbatched = x.ndim == 2
    if unbatched:
        x = x.unsqueeze(0)
    if isinstance(padding, str):
        if padding == "same":
            x, padding = _same(x, weight, stride, dilation)
        elif padding == "valid":
            padding = 0
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    spec = _spec(x, weight, bias, (stride, padding, dilation), groups)
    bd = None if bias is None else bias._data
    data = kernels.conv2d_forward(_as_2d(x._data), _as_2d(weight._data), bd, *spec)
    out = formula.result(
        ConvolutionBackward0,
        _as_1d(data),
        (x, weight, bias),
        save={"input": x, "weight": weight},
        spec=spec,
    )
    return out.squeeze(0) if unbatched else out
