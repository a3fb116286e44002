"""Normal(loc, scale): the Gaussian, reparameterized (a draw is loc + scale * noise, so
gradients reach loc and scale through `rsample`)."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

from .. import creation
from ..core.grad_mode import no_grad
from ..core.tensor import Size, Tensor
from ..ops.sampling import normal
from ..ops.transcendental import FUNCTIONS
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Normal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class Normal(Distribution):
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(
        self, loc: Tensor | float, scale: Tensor | float, validate_args: bool | None = None
    ) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        numbers = isinstance(loc, Number) and isinstance(scale, Number)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Distribution | None = None) -> Normal:
        shape = Size(batch_shape)
        return self._expanded(
            Normal, shape, _instance, loc=self.loc.expand(shape), scale=self.scale.expand(shape)
        )

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        noise = creation.randn(shape, dtype=self.loc.dtype)
        return self.loc + noise * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        square = (value - self.loc) ** 2
        return -square / (2 * self.scale**2) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale / math.sqrt(2)
        return 0.5 * (1 + FUNCTIONS["erf"](z))

    def entropy(self) -> Tensor:
        return 0.5 + _LOG_SQRT_2PI + self.scale.log()
