"""normalize and cosine_similarity: vectors divided by their (clamped) norms, composed of
ordinary ops as PyTorch composes them, so their graphs carry PyTorch's nodes.

The two clamp differently, as in PyTorch: normalize's clamp_min is recorded (no gradient
flows through a norm below eps), cosine_similarity clamps a clone of each norm in place
without grad, so the gradient is the unclamped norm's."""

from __future__ import annotations

from typing import Any

from ...core import dtypes
from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ..shape import broadcast_shapes


def normalize(
    input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """input / max(||input||_p, eps) along dim: norm, clamp_min, expand_as, div."""
    if out is not None:
        raise NotImplementedError("minigrad's normalize does not support out=")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


def _priority(x: Tensor) -> int:
    return 2 if x.ndim else 1


def _as_float(x: Tensor, common: dtypes.dtype) -> Tensor:
    """Only integer (and bool) inputs are cast: a float one keeps its own dtype until the
    final product promotes it."""
    return x if x.dtype.is_floating_point else x.to(common)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum((x1 / ||x1||) * (x2 / ||x2||), dim), each norm clamped to eps: dividing first keeps
    the result within [-1, 1] (PyTorch 2.13's formula)."""
    common = dtypes.promote([(_priority(x1), x1.dtype), (_priority(x2), x2.dtype)])
    if not common.is_floating_point:
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{dtypes.SCALAR_NAMES[common.name]}"
        )
    x1, x2 = _as_float(x1, common), _as_float(x2, common)
    if x1.shape != x2.shape:  # (equal shapes are used as they are, unexpanded)
        shape = broadcast_shapes(x1.shape, x2.shape)
        x1, x2 = x1.expand(shape), x2.expand(shape)
    n1 = x1.norm(2, dim, keepdim=True).clone()
    n2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        n1.clamp_min_(eps)
        n2.clamp_min_(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)
