"""Conv2d over minigrad's conv2d op (square kernels, groups=1, zero padding)."""

from __future__ import annotations

from typing import Any

from ... import creation
from ...core.tensor import Tensor
from .. import functional as F
from ..parameter import Parameter
from .linear import reset_weight_and_bias
from .module import Module

__all__ = ["Conv2d"]


def _pair(v: Any) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


class Conv2d(Module):
    """2-D cross-correlation; weight (out_channels, in_channels, kh, kw), PyTorch's init."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        self.kernel_size, self.stride = _pair(kernel_size), _pair(stride)
        self.dilation = _pair(dilation)
        if isinstance(padding, str):
            valid = {"same", "valid"}
            if padding not in valid:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _pair(padding)
        if padding_mode != "zeros":
            raise NotImplementedError("minigrad's Conv2d supports padding_mode='zeros' only")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.groups, self.padding_mode = groups, padding_mode
        self.transposed, self.output_padding = False, (0, 0)
        self.weight = Parameter(
            creation.empty((out_channels, in_channels // groups, *self.kernel_size), dtype=dtype)
        )
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_weight_and_bias(self.weight, self.bias)

    def _numeric_padding(self) -> tuple:
        if self.padding == "valid":
            return (0, 0)
        if self.padding == "same":
            if any(k % 2 == 0 for k in self.kernel_size):
                raise NotImplementedError("minigrad's padding='same' needs odd kernel sizes")
            return tuple(k // 2 for k in self.kernel_size)
        return self.padding

    def forward(self, input: Tensor) -> Tensor:
        return F.conv2d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self._numeric_padding(),
            self.dilation,
            self.groups,
        )

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s
