"""Bernoulli(probs | logits): a coin per element, 1 with probability `probs`."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

from .. import creation
from ..core.grad_mode import no_grad
from ..core.tensor import Size, Tensor
from ..ops.elementwise import where
from ..ops.nn.bce import binary_cross_entropy_with_logits
from ..ops.sampling import bernoulli
from . import constraints
from .discrete import enumeration, expanded_parameters, one_parameter
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(
        self,
        probs: Tensor | float | None = None,
        logits: Tensor | float | None = None,
        validate_args: bool | None = None,
    ) -> None:
        name, value = one_parameter(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        self._param = param
        shape = Size() if isinstance(value, Number) else param.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Distribution | None = None) -> Bernoulli:
        shape = Size(batch_shape)
        return self._expanded(Bernoulli, shape, _instance, **expanded_parameters(self, shape))

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs)
        return where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        return enumeration(creation.arange(2, dtype=self._param.dtype), self._batch_shape, expand)
