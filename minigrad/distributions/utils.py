"""What the distributions share: broadcasting their parameters, the two views of a discrete
distribution (probabilities and logits) and the parameters computed only when first read."""

from __future__ import annotations

import math
from collections.abc import Callable
from numbers import Number
from typing import Any

import numpy as np

from .. import creation
from ..core.dtypes import get_default_dtype
from ..core.grad_mode import enable_grad
from ..core.tensor import Tensor
from ..ops.reduction import softmax
from ..ops.shape import broadcast_shapes

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Tensors of one shape; numbers become tensors of the first tensor's dtype (the default
    dtype when all are numbers)."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
            "implementing __torch_function__."
        )
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), get_default_dtype())
    tensors = [v if isinstance(v, Tensor) else creation.tensor(v, dtype=dtype) for v in values]
    shape = broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(shape) for t in tensors)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities kept one machine epsilon away from 0 and 1, so their logs are finite."""
    eps = float(np.finfo(probs.dtype.np).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    return clamped.log() - (-clamped).log1p() if is_binary else clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    return logits.sigmoid() if is_binary else softmax(logits, -1)


def lgamma(x: Tensor) -> Tensor:
    """log Γ(x) of a constant (counts, factorials): no gradient flows through it."""
    values = np.vectorize(math.lgamma, otypes=[np.float64])(x._data)
    dtype = x.dtype if x.dtype.is_floating_point else get_default_dtype()
    return creation.tensor(values, dtype=dtype)


class lazy_property:  # noqa: N801 - PyTorch's name
    """A parameter derived from the one given (logits from probs, or the reverse), computed on
    first read, with gradients recorded even under no_grad, then kept on the instance."""

    def __init__(self, wrapped: Callable) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
