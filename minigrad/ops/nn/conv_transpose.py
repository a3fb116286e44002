"""conv_transpose2d: the input gradient Gx of the conv2d it reverses, run as a forward. It
records conv2d's node (ConvolutionBackward0, as PyTorch does), whose backward is then F and
Gw, so everything, double backward included, reuses conv.py."""

from __future__ import annotations

from typing import Any

from ...core import autocast
from ...core.tensor import Tensor
from .conv import convolution
from .conv_spec import expand, spec_for, transposed_size


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    x, weight, bias = autocast.lower(input, weight, bias)
    if isinstance(padding, str):
        raise TypeError("conv_transpose2d(): argument 'padding' must be tuple of ints, not str")
    if x.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input "
            f"of size: {list(x.shape)}"
        )
    unbatched = x.ndim == 3
    if unbatched:
        x = x.unsqueeze(0)
    spec = spec_for(x, weight, bias, (stride, padding, dilation), groups, output_padding)
    out_shape = transposed_size(
        x.shape, weight.shape, spec, expand(output_padding, "output_padding")
    )
    out = convolution(x, weight, bias, spec, transposed=True, out_shape=out_shape)
    return out.squeeze(0) if unbatched else out
