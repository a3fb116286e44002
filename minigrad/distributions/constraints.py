"""torch.distributions.constraints: what values a parameter or a sample may take.

Each constraint answers `check(value)` with a bool tensor (one answer per event, so a
constraint on vectors, `event_dim == 1`, reduces the last dimension) and prints as PyTorch's
does, because a distribution's validation errors quote it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.tensor import Tensor

__all__ = [
    "Constraint",
    "boolean",
    "dependent",
    "dependent_property",
    "greater_than",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "multinomial",
    "nonnegative_integer",
    "positive",
    "real",
    "simplex",
    "unit_interval",
]


class Constraint:
    """A region of values; `is_discrete` and `event_dim` say how a sample in it looks."""

    is_discrete = False
    event_dim = 0

    def check(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other parameters: it cannot be checked on its own."""

    def __init__(self, *, is_discrete: bool = False, event_dim: int = 0) -> None:
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def check(self, value: Tensor) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A `support` computed from the parameters: a property on instances, a dependent
    constraint on the class (so validation skips it)."""

    def __init__(
        self, fn: Callable | None = None, *, is_discrete: bool = False, event_dim: int = 0
    ) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Callable) -> _DependentProperty:
        return _DependentProperty(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


def dependent_property(
    fn: Callable | None = None, *, is_discrete: bool = False, event_dim: int = 0
) -> _DependentProperty:
    return _DependentProperty(fn, is_discrete=is_discrete, event_dim=event_dim)


class _IndependentConstraint(Constraint):
    """`base` on each element, with the rightmost `reinterpreted_batch_ndims` dims one event."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        self.is_discrete = base_constraint.is_discrete
        self.event_dim = base_constraint.event_dim + reinterpreted_batch_ndims

    def check(self, value: Tensor) -> Tensor:
        result = self.base_constraint.check(value)
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            expected = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.ndim}")
        return result.reshape(*result.shape[: result.ndim - n], -1).all(-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value == 0) | (value == 1)


class _Real(Constraint):
    def check(self, value: Tensor) -> Tensor:
        return value == value  # False only at NaN  # noqa: PLR0124


class _Bounded(Constraint):
    """A constraint with bounds, printed with them (numbers or tensors)."""

    BOUNDS: tuple[str, ...] = ()

    def __repr__(self) -> str:
        bounds = ", ".join(f"{name}={getattr(self, name)}" for name in self.BOUNDS)
        return f"{type(self).__name__[1:]}({bounds})"


class _GreaterThan(_Bounded):
    BOUNDS = ("lower_bound",)

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def check(self, value: Tensor) -> Tensor:
        return value > self.lower_bound


class _LessThan(_Bounded):
    BOUNDS = ("upper_bound",)

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return value < self.upper_bound


class _Interval(_Bounded):
    BOUNDS = ("lower_bound", "upper_bound")

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= self.lower_bound) & (value <= self.upper_bound)


class _IntegerInterval(_Interval):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & super().check(value)


class _IntegerGreaterThan(_GreaterThan):
    is_discrete = True

    def check(self, value: Tensor) -> Tensor:
        return (value % 1 == 0) & (value >= self.lower_bound)


class _Simplex(Constraint):
    """Non-negative vectors summing to 1 (within 1e-6)."""

    event_dim = 1

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Non-negative count vectors whose total is at most `upper_bound`."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: int) -> None:
        self.upper_bound = upper_bound

    def check(self, value: Tensor) -> Tensor:
        return (value >= 0).all(-1) & (value.sum(-1) <= self.upper_bound)


dependent = _Dependent()
boolean = _Boolean()
real = _Real()
positive = _GreaterThan(0.0)
unit_interval = _Interval(0.0, 1.0)
nonnegative_integer = _IntegerGreaterThan(0)
simplex = _Simplex()
greater_than = _GreaterThan
less_than = _LessThan
interval = _Interval
integer_interval = _IntegerInterval
independent = _IndependentConstraint
multinomial = _Multinomial
