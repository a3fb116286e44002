"""Conv1d: Conv2d's layer (conv.py's _ConvNd: checks, weight, init, repr) with one-element
tuples, as PyTorch's Conv1d keeps them (kernel_size=(3,), stride=(1,), ...)."""

from __future__ import annotations

from typing import Any

from ...core.tensor import Tensor
from .. import functional as F
from .conv import _ConvNd

__all__ = ["Conv1d"]


def _single(v: Any) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class Conv1d(_ConvNd):
    """1-D cross-correlation over (N, C, L) or unbatched (C, L) inputs; padding a number,
    'valid' or 'same', and any padding_mode (the non-zero ones pad with F.pad first)."""

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
            _single(kernel_size),
            _single(stride),
            padding if isinstance(padding, str) else _single(padding),
            _single(dilation),
            False,
            (0,),
            groups,
            bias,
            padding_mode,
            dtype,
        )

    def forward(self, input: Tensor) -> Tensor:
        padding = self.padding
        if self.padding_mode != "zeros":
            input = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            padding = (0,)
        return F.conv1d(
            input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
        )
