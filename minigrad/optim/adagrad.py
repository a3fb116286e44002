"""Adagrad with PyTorch's single-tensor update (torch/optim/adagrad.py), step for step.

As in PyTorch 2.13, the state ('step', 'sum') of every parameter given to the constructor exists
from the start (so it is in state_dict() before any step); parameters added later with
add_param_group get theirs on their first step, filled with the constructor's
initial_accumulator_value.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.tensor import Tensor
from ..creation import full_like, tensor
from .optimizer import Optimizer, add_scaled_, require_non_negative

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Per-coordinate learning rates: lr / sqrt(sum of past squared gradients)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float | Tensor = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        require_non_negative(
            lr=("learning rate", lr),
            lr_decay=("lr_decay value", lr_decay),
            weight_decay=("weight_decay value", weight_decay),
        )
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        require_non_negative(
            eps=("epsilon value", eps),
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        for group in self.param_groups:
            for p in group["params"]:
                self._new_state(p, initial_accumulator_value)

    def _new_state(self, p: Tensor, initial_accumulator_value: float) -> dict[str, Any]:
        state = self.state[p]
        state["step"] = tensor(0.0)
        state["sum"] = full_like(p, initial_accumulator_value)
        return state

    def _step_group(self, group: dict[str, Any]) -> None:
        lr = group["lr"]
        lr = lr.item() if isinstance(lr, Tensor) else lr
        wd, lr_decay, eps = group["weight_decay"], group["lr_decay"], group["eps"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p] or self._new_state(p, self.defaults["initial_accumulator_value"])
            state["step"] += 1
            step = state["step"].item()
            grad = -p.grad if group["maximize"] else p.grad
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]
            state_sum.add_(grad * grad)
            std = state_sum.sqrt().add_(eps)
            add_scaled_(p, (grad * -clr).div_(std), 1)  # PyTorch's order: (-clr * g) / std
