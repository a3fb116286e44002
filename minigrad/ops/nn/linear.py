"""linear, recorded as PyTorch records it: one addmm for a 2-d input with a bias; a contiguous
input of any other rank with a 1-d (or squeezable) contiguous bias is flattened to 2-d around
that addmm (ViewBackward0 on top); anything else is matmul, then the bias added in place."""

from __future__ import annotations

import math

from ...core import autocast
from ...core.tensor import Tensor
from ..linalg import addmm


def _fusable(x: Tensor, bias: Tensor) -> bool:
    """PyTorch's test for the flattened addmm (at::linear's is_bias_likely_fusable)."""
    squeezed = sum(n != 1 for n in bias.shape)
    return (
        (bias.ndim == 1 or squeezed == 1)
        and bias._data.flags.c_contiguous
        and x._data.flags.c_contiguous
    )


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    x, weight, bias = autocast.lower(input, weight, bias)
    rank = x._data.ndim
    if rank == 0 or weight._data.ndim == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are "
            f"{rank}D and {weight.ndim}D"
        )
    if bias is None:
        return x.matmul(weight.t())
    if rank == 2:
        return addmm(bias, x, weight.t())
    if _fusable(x, bias):
        lead = tuple(x.shape[:-1])
        out = addmm(bias, x.reshape(math.prod(lead), x.shape[-1]), weight.t())
        return out.view(*lead, out.shape[1])
    return x.matmul(weight.t()).add_(bias)
