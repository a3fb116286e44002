"""Schedulers that cycle the lr and, inversely, the momentum (SGD's momentum or Adam's beta1):
OneCycleLR (the 1cycle policy) and CyclicLR (Smith's cyclical learning rates)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal

from .lr_base import (
    LRScheduler,
    _callable_state,
    _format_param,
    _update_param_group_val,
    _warn_get_lr_called_within_step,
)
from .optimizer import Optimizer

__all__ = ["OneCycleLR", "CyclicLR"]


class _CyclesMomentum(LRScheduler):
    """What OneCycleLR and CyclicLR share: the optimizer check and the momentum/beta1 writes."""

    def _set_optimizer(self, optimizer: Any) -> None:
        """Checked first: these set up the groups before the base class would check it."""
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer

    def _check_momentum_support(self) -> None:
        defaults = self.optimizer.defaults
        if "momentum" not in defaults and "betas" not in defaults:
            raise ValueError(
                "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
            )
        self.use_beta1 = "betas" in defaults

    def _seed_momentums(self, max_momentums: list[Any], base_momentums: list[Any]) -> None:
        """Start at max_momentum and remember both ends in each group."""
        for high, low, group in zip(
            max_momentums, base_momentums, self.optimizer.param_groups, strict=True
        ):
            self._set_momentum(group, high)
            group["max_momentum"] = high
            group["base_momentum"] = low

    def _set_momentum(self, group: dict[str, Any], momentum: Any) -> None:
        if self.use_beta1:
            group["betas"] = (momentum, *group["betas"][1:])
        else:
            group["momentum"] = momentum


def _annealing_cos(start: Any, end: Any, pct: float) -> Any:
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _annealing_linear(start: Any, end: Any, pct: float) -> Any:
    return (end - start) * pct + start


_ANNEAL = {"cos": _annealing_cos, "linear": _annealing_linear}


def _phase(end_step: float, lrs: tuple[str, str], momentums: tuple[str, str]) -> dict[str, Any]:
    """One stretch of the cycle: it anneals from the first group key to the second."""
    return {
        "end_step": end_step,
        "start_lr": lrs[0],
        "end_lr": lrs[1],
        "start_momentum": momentums[0],
        "end_momentum": momentums[1],
    }


class OneCycleLR(_CyclesMomentum):
    """Warm up from max_lr / div_factor to max_lr over pct_start of the steps, then anneal to
    initial_lr / final_div_factor (three_phase: back to initial_lr first); momentum mirrors it.
    Call step() after every batch; stepping past total_steps raises."""

    def __init__(
        self,
        optimizer: Optimizer,
        max_lr: float | list[float],
        total_steps: int | None = None,
        epochs: int | None = None,
        steps_per_epoch: int | None = None,
        pct_start: float = 0.3,
        anneal_strategy: Literal["cos", "linear"] = "cos",
        cycle_momentum: bool = True,
        base_momentum: float | list[float] = 0.85,
        max_momentum: float | list[float] = 0.95,
        div_factor: float = 25.0,
        final_div_factor: float = 1e4,
        three_phase: bool = False,
        last_epoch: int = -1,
    ) -> None:
        self._set_optimizer(optimizer)
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        up, last = float(pct_start * self.total_steps) - 1, self.total_steps - 1
        warm = _phase(up, ("initial_lr", "max_lr"), ("max_momentum", "base_momentum"))
        if three_phase:
            down = float(2 * pct_start * self.total_steps) - 2
            self._schedule_phases = [
                warm,
                _phase(down, ("max_lr", "initial_lr"), ("base_momentum", "max_momentum")),
                _phase(last, ("initial_lr", "min_lr"), ("max_momentum", "max_momentum")),
            ]
        else:
            self._schedule_phases = [
                warm,
                _phase(last, ("max_lr", "min_lr"), ("base_momentum", "max_momentum")),
            ]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in _ANNEAL:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for top, group in zip(max_lrs, optimizer.param_groups, strict=True):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._check_momentum_support()
            highs = _format_param("max_momentum", optimizer, max_momentum)
            lows = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                self._seed_momentums(highs, lows)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_called_within_step(self)
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(
                f"Tried to step {step} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        anneal = _ANNEAL[self._anneal_func_type]
        start = 0.0
        for phase in self._schedule_phases:  # the first phase not yet over (or the last one)
            if step <= phase["end_step"] or phase is self._schedule_phases[-1]:
                break
            start = phase["end_step"]
        pct = (step - start) / (phase["end_step"] - start)
        lrs = []
        for group in self.optimizer.param_groups:
            lrs.append(anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct))
            if self.cycle_momentum:
                momentum = anneal(group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                self._set_momentum(group, momentum)
        return lrs


def _total_steps(total_steps: Any, epochs: Any, steps_per_epoch: Any) -> int:
    """total_steps, or else epochs * steps_per_epoch, each checked as PyTorch checks it."""
    if total_steps is not None:
        if total_steps <= 0 or not isinstance(total_steps, int):
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        return total_steps
    if epochs is None or steps_per_epoch is None:
        raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
    if not isinstance(epochs, int) or epochs <= 0:
        raise ValueError(f"Expected positive integer epochs, but got {epochs}")
    if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
        raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
    return epochs * steps_per_epoch


class CyclicLR(_CyclesMomentum):
    """The lr goes from base_lr up to max_lr in step_size_up steps and back down in
    step_size_down, the amplitude scaled per cycle (triangular2: halved; exp_range: gamma**step;
    or a custom scale_fn); momentum moves the other way. Call step() after every batch."""

    def __init__(
        self,
        optimizer: Optimizer,
        base_lr: float | list[float],
        max_lr: float | list[float],
        step_size_up: int = 2000,
        step_size_down: int | None = None,
        mode: Literal["triangular", "triangular2", "exp_range"] = "triangular",
        gamma: float = 1.0,
        scale_fn: Callable[[float], float] | None = None,
        scale_mode: Literal["cycle", "iterations"] = "cycle",
        cycle_momentum: bool = True,
        base_momentum: float = 0.8,
        max_momentum: float = 0.9,
        last_epoch: int = -1,
    ) -> None:
        self._set_optimizer(optimizer)
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _update_param_group_val(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in _SCALE_FNS and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        # the built-in modes fix what their scale is a function of
        self.scale_mode = scale_mode if scale_fn is not None else _SCALE_FNS[mode][1]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self._check_momentum_support()
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                self._seed_momentums(self.max_momentums, self.base_momentums)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x: float) -> float:
        """The amplitude's scale at cycle (or iteration) x."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return _SCALE_FNS[self.mode][0](self.gamma, x)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle  # how far into this cycle
        if x <= self.step_ratio:
            rise = x / self.step_ratio
        else:
            rise = (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [
            low + (high - low) * rise * scale
            for low, high in zip(self.base_lrs, self.max_lrs, strict=True)
        ]
        if self.cycle_momentum:
            for low, high, group in zip(
                self.base_momentums, self.max_momentums, self.optimizer.param_groups, strict=True
            ):
                self._set_momentum(group, high - (high - low) * rise * scale)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """A custom scale_fn is kept as its attributes (a plain function as None), last."""
        state = super().state_dict()
        state["_scale_fn_custom"] = _callable_state(state.pop("_scale_fn_custom"))
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        saved = state_dict["_scale_fn_custom"]
        super().load_state_dict({k: v for k, v in state_dict.items() if k != "_scale_fn_custom"})
        if saved is not None:
            self._scale_fn_custom.__dict__.update(saved)


# mode: (scale of the amplitude as a function of gamma and x, what x counts)
_SCALE_FNS: dict[str, tuple[Callable[[float, float], float], str]] = {
    "triangular": (lambda gamma, x: 1.0, "cycle"),
    "triangular2": (lambda gamma, x: 1 / (2.0 ** (x - 1)), "cycle"),
    "exp_range": (lambda gamma, x: gamma**x, "iterations"),
}
