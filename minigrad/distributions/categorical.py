"""Categorical(probs | logits): one of K categories per batch element, indices 0..K-1.

The given parameter is normalized over its last dimension (probs to sum 1, logits to
log-probabilities); the other is derived from it on first read."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import creation
from ..core.dtypes import int64
from ..core.tensor import Size, Tensor
from ..ops.sampling import multinomial
from . import constraints
from .discrete import at_least_1d, enumeration, expanded_parameters, one_parameter
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }
    has_enumerate_support = True

    def __init__(
        self,
        probs: Tensor | None = None,
        logits: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        name, param = one_parameter(probs, logits)
        at_least_1d(name, param)
        if name == "probs":
            self.probs = param / param.sum(-1, keepdim=True)
        else:
            self.logits = param - param.logsumexp(-1, keepdim=True)
        self._param = self.probs if name == "probs" else self.logits
        self._num_events = self._param.size()[-1]
        shape = self._param.size()[:-1] if self._param.ndim > 1 else Size()
        super().__init__(Size(shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Distribution | None = None) -> Categorical:
        shape = Size(batch_shape)
        params = expanded_parameters(self, (*shape, self._num_events))
        return self._expanded(Categorical, shape, _instance, _num_events=self._num_events, **params)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        """Undefined for categories (as the variance): NaN per batch element."""
        return creation.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return self.mean

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Each batch element's draws in one multinomial call (with replacement)."""
        sample_shape = Size(sample_shape)
        rows = self.probs.reshape(-1, self._num_events)
        draws = multinomial(rows, sample_shape.numel(), True).T
        return draws.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        index, log_pmf = broadcast_all(index, self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        lowest = float(np.finfo(self.logits.dtype.np).min)  # keeps 0 * -inf out
        return -(self.logits.clamp(min=lowest) * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = creation.arange(self._num_events, dtype=int64)
        return enumeration(values, self._batch_shape, expand)
