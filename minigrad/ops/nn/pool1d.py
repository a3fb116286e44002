"""avg_pool1d and max_pool1d, as PyTorch computes them: the 2d pooling of (..., 1, L) with a
(1, k) window, squeezed back (so the result's grad_fn is SqueezeBackward1)."""

from __future__ import annotations

from typing import Any

from ... import kernels
from ...core.tensor import Tensor
from .avg_pool import avg_pool2d
from .pooling import max_pool2d


def _one(value: Any) -> int:
    return int(value[0] if isinstance(value, (tuple, list)) else value)


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    step = None if stride is None else (1, _one(stride))
    out = avg_pool2d(
        input.unsqueeze(-2),
        (1, _one(kernel_size)),
        step,
        (0, _one(padding)),
        ceil_mode,
        count_include_pad,
    )
    return out.squeeze(-2)


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    k, p, d = _one(kernel_size), _one(padding), _one(dilation)
    s = k if stride is None else _one(stride)
    if input.ndim in (2, 3) and k > 0 and s > 0 and d > 0 and 0 <= p <= k // 2:
        length = kernels.output_size(input.shape[-1], k, s, p, d, ceil_mode)
        if length < 1:
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {length}")
    out = max_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, p), (1, d), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)
