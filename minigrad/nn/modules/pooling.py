"""Pooling layers over nn.functional: MaxPool2d, and (issue 21) MaxPool1d, AvgPool1d,
AvgPool2d, AdaptiveAvgPool2d and AdaptiveMaxPool2d."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = [
    "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "MaxPool1d",
    "MaxPool2d",
]


def _same(v: Any) -> Any:
    return v


def _single(v: Any) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class _PoolNd(Module):
    """The window every kernel pooling layer keeps, one place for PyTorch's rule that the
    stride defaults to the kernel size, and the repr that names it."""

    def _set_window(
        self, kernel_size: Any, stride: Any, padding: Any, size: Callable[[Any], Any] = _same
    ) -> None:
        self.kernel_size = size(kernel_size)
        self.stride = size(stride if stride is not None else kernel_size)
        self.padding = size(padding)

    def _window(self) -> tuple:
        return self.kernel_size, self.stride, self.padding

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxPool2d(_PoolNd):
    """Max over each kernel window; stride defaults to the kernel size."""

    _pool = staticmethod(F.max_pool2d)

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self._set_window(kernel_size, stride, padding)
        self.dilation = dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        return self._pool(
            input,
            *self._window(),
            self.dilation,
            ceil_mode=self.ceil_mode,
            return_indices=self.return_indices,
        )

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, dilation={self.dilation}, ceil_mode={self.ceil_mode}"


class MaxPool1d(MaxPool2d):
    """Max over windows of the last dim of (N, C, L) or (C, L)."""

    _pool = staticmethod(F.max_pool1d)


class AvgPool2d(_PoolNd):
    """Mean over each kernel window; stride defaults to the kernel size."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self._set_window(kernel_size, stride, padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input, *self._window(), self.ceil_mode, self.count_include_pad, self.divisor_override
        )


class AvgPool1d(_PoolNd):
    """Mean over windows of the last dim; its sizes are kept as 1-tuples, as in PyTorch."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self._set_window(kernel_size, stride, padding, _single)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, *self._window(), self.ceil_mode, self.count_include_pad)


class AdaptiveAvgPool2d(Module):
    """Averages over windows that split H and W into `output_size` (None keeps a size)."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(Module):
    """Maxima over windows that split H and W into `output_size` (None keeps a size)."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: Tensor) -> Any:
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
