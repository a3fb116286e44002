"""linear: one addmm for a 2-d input with a bias, as PyTorch records it; else matmul (+ add)."""

from __future__ import annotations

from ...core.tensor import Tensor
from ..linalg import addmm


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    if x.ndim == 2 and bias is not None:
        return addmm(bias, x, weight.t())
    out = x.matmul(weight.t())
    return out + bias if bias is not None else out
