"""Schedulers that scale each group's lr by a factor of the epoch: LambdaLR, MultiplicativeLR,
StepLR, MultiStepLR, ConstantLR, LinearLR, ExponentialLR and PolynomialLR (PyTorch 2.13's
arithmetic, so that the lrs come out bit for bit the same)."""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from .lr_base import (
    LRScheduler,
    _callable_state,
    _MultiplyingLR,
    _param_groups_val_list,
    _warn_get_lr_called_within_step,
)
from .optimizer import Optimizer

__all__ = [
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "PolynomialLR",
]

LrLambda = Callable[[int], float]


class _LambdaScheduler(LRScheduler):
    """One user function of the epoch per group. Its state_dict drops plain functions (they
    don't pickle) and keeps the attributes of callable objects."""

    _lambdas_must_be_callable = False

    def __init__(
        self, optimizer: Optimizer, lr_lambda: LrLambda | list[LrLambda], last_epoch: int = -1
    ) -> None:
        self.optimizer = optimizer
        n_groups = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n_groups:
                raise ValueError(f"Expected {n_groups} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n_groups
        if self._lambdas_must_be_callable:
            for fn in self.lr_lambdas:
                if not callable(fn):
                    raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [_callable_state(fn) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update({k: v for k, v in state_dict.items() if k != "lr_lambdas"})
        for fn, saved in zip(self.lr_lambdas, state_dict["lr_lambdas"], strict=False):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """lr = initial lr * lr_lambda(epoch)."""

    def get_lr(self) -> list[Any]:
        _warn_get_lr_called_within_step(self)
        return [
            base_lr * fn(self.last_epoch)
            for fn, base_lr in zip(self.lr_lambdas, self.base_lrs, strict=True)
        ]


class MultiplicativeLR(_LambdaScheduler):
    """Each epoch multiplies the lr by lr_lambda(epoch)."""

    _lambdas_must_be_callable = True

    def get_lr(self) -> list[Any]:
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, "lr")
        return [
            group["lr"] * fn(self.last_epoch)
            for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)
        ]


class StepLR(_MultiplyingLR):
    """Multiply each group's lr by gamma every step_size epochs."""

    def __init__(
        self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _factor(self) -> float | None:
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return None
        return self.gamma

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs
        ]


class MultiStepLR(_MultiplyingLR):
    """Multiply by gamma at each milestone (a milestone given twice counts twice)."""

    def __init__(
        self,
        optimizer: Optimizer,
        milestones: Iterable[int],
        gamma: float = 0.1,
        last_epoch: int = -1,
    ) -> None:
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _factor(self) -> float | None:
        if self.last_epoch not in self.milestones:
            return None
        return self.gamma ** self.milestones[self.last_epoch]

    def _get_closed_form_lr(self) -> list[Any]:
        passed = bisect_right(sorted(self.milestones.elements()), self.last_epoch)
        return [base_lr * self.gamma**passed for base_lr in self.base_lrs]


class ConstantLR(_MultiplyingLR):
    """lr * factor for the first total_iters epochs, then the lr again."""

    def __init__(
        self,
        optimizer: Optimizer,
        factor: float = 1.0 / 3,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _factor(self) -> float | None:
        if self.last_epoch == 0:
            return self.factor
        if self.last_epoch != self.total_iters:
            return None
        return 1.0 / self.factor

    def _get_closed_form_lr(self) -> list[Any]:
        done = self.last_epoch >= self.total_iters
        return [base_lr * (self.factor + done * (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(_MultiplyingLR):
    """The lr factor goes linearly from start_factor to end_factor over total_iters epochs."""

    def __init__(
        self,
        optimizer: Optimizer,
        start_factor: float = 1.0 / 3,
        end_factor: float = 1.0,
        total_iters: int = 5,
        last_epoch: int = -1,
    ) -> None:
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def _factor(self) -> float | None:
        if self.last_epoch == 0:
            return self.start_factor
        if self._is_initial or self.last_epoch > self.total_iters:
            return None
        slope = self.end_factor - self.start_factor
        return 1.0 + slope / (self.total_iters * self.start_factor + (self.last_epoch - 1) * slope)

    def _get_closed_form_lr(self) -> list[Any]:
        slope = self.end_factor - self.start_factor
        progress = min(self.total_iters, self.last_epoch)
        return [
            base_lr * (self.start_factor + slope * progress / self.total_iters)
            for base_lr in self.base_lrs
        ]


class ExponentialLR(_MultiplyingLR):
    """Multiply each group's lr by gamma every epoch."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _factor(self) -> float | None:
        # a scheduler resumed from a checkpoint must not move the lr on its initial step
        return None if self._is_initial else self.gamma

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(_MultiplyingLR):
    """lr = initial lr * (1 - epoch / total_iters) ** power, then constant."""

    def __init__(
        self, optimizer: Optimizer, total_iters: int = 5, power: float = 1.0, last_epoch: int = -1
    ) -> None:
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def _factor(self) -> float | None:
        if self._is_initial or self.last_epoch > self.total_iters:
            return None
        now = 1.0 - self.last_epoch / self.total_iters
        before = 1.0 - (self.last_epoch - 1) / self.total_iters
        return (now / before) ** self.power

    def _get_closed_form_lr(self) -> list[Any]:
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base_lr * left**self.power for base_lr in self.base_lrs]
