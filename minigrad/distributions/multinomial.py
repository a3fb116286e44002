"""Multinomial(total_count, probs | logits): how many of `total_count` draws from a
Categorical land in each category (one vector of counts per batch element)."""

from __future__ import annotations

import math
from typing import Any

from .. import creation
from ..core.tensor import Size, Tensor
from ..ops.nn.activations import softplus
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all, lgamma, probs_to_logits

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    arg_constraints = {
        "probs": constraints.simplex,
        "logits": constraints.independent(constraints.real, 1),
    }

    def __init__(
        self,
        total_count: int = 1,
        probs: Tensor | None = None,
        logits: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        super().__init__(
            self._categorical.batch_shape,
            self._categorical.param_shape[-1:],
            validate_args=validate_args,
        )

    def expand(self, batch_shape: Any, _instance: Distribution | None = None) -> Multinomial:
        shape = Size(batch_shape)
        new = self._expanded(Multinomial, shape, _instance, total_count=self.total_count)
        new._categorical = self._categorical.expand(shape)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """total_count categorical draws per sample, counted per category."""
        sample_shape = Size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count, *sample_shape)))
        draws = draws.permute(*range(1, draws.ndim), 0)
        counts = creation.zeros(self._extended_shape(sample_shape), dtype=draws.dtype)
        counts.scatter_add_(-1, draws, creation.ones_like(draws))
        return counts.type_as(self.probs)

    def log_prob(self, value: Tensor) -> Tensor:
        """log n! - Σ log x_i! + Σ x_i log p_i, where a category of probability 0 drawn 0 times
        adds 0 (not 0 * -inf)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.masked_fill((value == 0) & (logits == -math.inf), 0)
        log_factorials = lgamma(value.sum(-1) + 1) - lgamma(value + 1).sum(-1)
        return log_factorials + (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        """n H(categorical) - log n! + Σ_i E[log x_i!], each x_i ~ Binomial(n, p_i), the
        expectation summed over the counts 1..n."""
        n = self.total_count
        counts = creation.arange(1, n + 1, dtype=self.probs.dtype)
        counts = counts.view(-1, *(1,) * len(self.param_shape))
        logits = probs_to_logits(self.probs, is_binary=True)
        log_binomial = (
            math.lgamma(n + 1)
            - lgamma(counts + 1)
            - lgamma(n - counts + 1)
            + counts * logits
            - n * softplus(logits)
        )
        expected = (log_binomial.exp() * lgamma(counts + 1)).sum([0, -1])
        return n * self._categorical.entropy() - math.lgamma(n + 1) + expected
