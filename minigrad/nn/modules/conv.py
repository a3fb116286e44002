"""Conv2d (every padding_mode: the non-zero ones pad with F.pad first, as PyTorch does),
ConvTranspose2d (zero padding only, as in PyTorch) and LazyConv2d."""

from __future__ import annotations

from typing import Any

from ... import creation
from ...core.grad_mode import no_grad
from ...core.tensor import Size, Tensor
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .linear import reset_weight_and_bias
from .module import Module

__all__ = ["Conv2d", "ConvTranspose2d", "LazyConv2d"]


def _pair(v: Any) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _reversed_padding(padding: Any, kernel_size: tuple, dilation: tuple) -> tuple:
    """F.pad's (left, right) pairs, last dim first, for a padding_mode other than zeros: the
    padding given, or for 'same' the total d (k - 1) split with the extra on the right."""
    if not isinstance(padding, str):
        return tuple(p for p in reversed(padding) for _ in range(2))
    if padding == "valid":
        return (0, 0) * len(kernel_size)
    pairs = []
    for d, k in zip(reversed(dilation), reversed(kernel_size)):
        total = d * (k - 1)
        pairs += [total // 2, total - total // 2]
    return tuple(pairs)


class _ConvNd(Module):
    """What both layers share: PyTorch's argument checks, weight (out_channels,
    in_channels/groups, kh, kw) or, transposed, (in_channels, out_channels/groups, kh, kw),
    and PyTorch's init."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        transposed: bool,
        output_padding: Any,
        groups: int,
        bias: bool,
        padding_mode: str,
        dtype: Any,
    ) -> None:
        super().__init__()
        stride = _pair(stride)
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            valid = {"same", "valid"}
            if padding not in valid:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {valid}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in modes:
            raise ValueError(
                f"padding_mode must be one of {modes}, but got padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _pair(kernel_size), stride
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.dilation, self.transposed = _pair(dilation), transposed
        self.output_padding, self.groups = _pair(output_padding), groups
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = _reversed_padding(
            self.padding, self.kernel_size, self.dilation
        )
        shape = (out_channels, in_channels // groups)
        if transposed:
            shape = (in_channels, out_channels // groups)
        self.weight = Parameter(creation.empty((*shape, *self.kernel_size), dtype=dtype))
        if bias:
            self.bias = Parameter(creation.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_weight_and_bias(self.weight, self.bias)

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class Conv2d(_ConvNd):
    """2-D cross-correlation, padding a number, a pair, 'valid' or 'same'."""

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
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            False,
            0,
            groups,
            bias,
            padding_mode,
            dtype,
        )

    def forward(self, input: Tensor) -> Tensor:
        if self.padding_mode != "zeros":
            padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return F.conv2d(
                padded, self.weight, self.bias, self.stride, (0, 0), self.dilation, self.groups
            )
        return F.conv2d(
            input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
        )


class ConvTranspose2d(_ConvNd):
    """The transpose of Conv2d (its input gradient as a layer); forward's output_size picks the
    output_padding that reaches that size."""

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        super().__init__(
            in_channels,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            True,
            output_padding,
            groups,
            bias,
            padding_mode,
            dtype,
        )

    def _output_padding(self, input: Tensor, output_size: Any) -> tuple:
        """PyTorch's _ConvTransposeNd._output_padding: the extra rows and columns that make
        the output `output_size` (its last two entries), checked against what is reachable."""
        if output_size is None:
            return self.output_padding
        outer = 2 if input.ndim == 4 else 1
        size = list(output_size)
        if len(size) == outer + 2:
            size = size[outer:]
        if len(size) != 2:
            raise ValueError(
                f"ConvTranspose2D: for {input.ndim}D input, output_size must have 2 or "
                f"{outer + 2} elements (got {len(size)})"
            )
        low = [
            (input.shape[a + outer] - 1) * self.stride[a]
            - 2 * self.padding[a]
            + self.dilation[a] * (self.kernel_size[a] - 1)
            + 1
            for a in (0, 1)
        ]
        high = [low[a] + self.stride[a] - 1 for a in (0, 1)]
        for a in (0, 1):
            if not low[a] <= size[a] <= high[a]:
                raise ValueError(
                    f"requested an output size of {size}, but valid sizes range from {low} to "
                    f"{high} (for an input of {Size(input.shape[2:])})"
                )
        return tuple(size[a] - low[a] for a in (0, 1))

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return F.conv_transpose2d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )


class LazyConv2d(LazyModuleMixin, Conv2d):
    """A Conv2d whose in_channels is read off its first input (dim 1, or 0 unbatched)."""

    cls_to_become = Conv2d

    def __init__(
        self,
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
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        self.weight = UninitializedParameter(dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input: Tensor, *args: Any, **kwargs: Any) -> None:
        if self.has_uninitialized_params():
            self.in_channels = input.shape[0] if input.ndim == 3 else input.shape[1]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with no_grad():
                shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
                self.weight.materialize(shape)
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()
        else:  # materialised by load_state_dict
            self.in_channels = self.weight.shape[1] * self.groups
