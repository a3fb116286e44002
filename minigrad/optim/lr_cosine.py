"""Cosine annealing: CosineAnnealingLR (one half-cosine, then back up) and
CosineAnnealingWarmRestarts (SGDR: restart every T_i epochs, T_i growing by T_mult)."""

from __future__ import annotations

import math
from typing import Any

from .lr_base import LRScheduler, _param_groups_val_list, _warn_get_lr_called_within_step
from .optimizer import Optimizer

__all__ = ["CosineAnnealingLR", "CosineAnnealingWarmRestarts"]


def _cosine(eta_min: float, base_lr: Any, t_cur: float, t_max: float) -> Any:
    """eta_min + (base_lr - eta_min) * (1 + cos(pi * t_cur / t_max)) / 2."""
    return eta_min + (base_lr - eta_min) * (1 + math.cos(math.pi * t_cur / t_max)) / 2


class CosineAnnealingLR(LRScheduler):
    """Anneal from the initial lr to eta_min over T_max epochs along a half cosine.

    The chainable form works from the current lrs (so other schedulers can act on them too);
    a step with an epoch uses the closed form from base_lrs.
    """

    def __init__(
        self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1
    ) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_called_within_step(self)
        groups = self.optimizer.param_groups
        epoch, t_max, eta_min = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return _param_groups_val_list(self.optimizer, "lr")
        if (epoch - 1 - t_max) % (2 * t_max) == 0:  # past the bottom: the cosine climbs again
            return [
                group["lr"] + (base_lr - eta_min) * (1 - math.cos(math.pi / t_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups, strict=True)
            ]
        ratio = (1 + math.cos(math.pi * epoch / t_max)) / (
            1 + math.cos(math.pi * (epoch - 1) / t_max)
        )
        return [ratio * (group["lr"] - eta_min) + eta_min for group in groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            _cosine(self.eta_min, base_lr, self.last_epoch, self.T_max) for base_lr in self.base_lrs
        ]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted every T_i epochs (T_0, then T_0 * T_mult, ...).

    `step(epoch)` takes a fractional epoch (e.g. epoch + batch / batches) without a warning; as
    in PyTorch this scheduler's step neither warns about the call order nor counts steps.
    """

    def __init__(
        self,
        optimizer: Optimizer,
        T_0: int,
        T_mult: int = 1,
        eta_min: float = 0.0,
        last_epoch: int = -1,
    ) -> None:
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        _warn_get_lr_called_within_step(self)
        return [_cosine(self.eta_min, base_lr, self.T_cur, self.T_i) for base_lr in self.base_lrs]

    def step(self, epoch: float | None = None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self._seek(epoch)
        self.last_epoch = math.floor(epoch)
        self._set_lrs(self.get_lr)

    def _seek(self, epoch: float) -> None:
        """T_cur and T_i at any (fractional) epoch: find the restart period it falls in."""
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        if epoch < self.T_0:
            self.T_i = self.T_0
            self.T_cur = epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # periods T_0 * T_mult**k end at T_0 * (T_mult**n - 1) / (T_mult - 1)
            n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
            self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
            self.T_i = self.T_0 * self.T_mult**n
