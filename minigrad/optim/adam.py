"""Adam (and AdamW) with PyTorch's single-tensor update, step for step.

The order of float32 operations follows torch/optim/adam.py (_single_tensor_adam), so the
same parameters and gradients give the same values as PyTorch to float32 rounding.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.tensor import Tensor
from ..creation import tensor, zeros_like
from ..ops.elementwise import where
from .optimizer import Optimizer, add_scaled_, require_non_negative

__all__ = ["Adam", "AdamW"]


def _lerp_(start: Tensor, end: Tensor, weight: float) -> Tensor:
    """start.lerp_(end, weight) with PyTorch's two-sided formula (exact at both ends)."""
    if weight < 0.5:
        return start.add_(end - start, alpha=weight)
    return start.copy_(end - (end - start) * (1 - weight))


class Adam(Optimizer):
    """Adaptive moments: m, v running averages of g and g^2, bias-corrected."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        require_non_negative(
            lr=("learning rate", lr),
            eps=("epsilon value", eps),
        )
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        require_non_negative(
            weight_decay=("weight_decay value", weight_decay),
        )
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, amsgrad: bool) -> dict[str, Any]:
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_like(p)
        return state

    def _step_group(self, group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self._init_state(p, group["amsgrad"])
            grad = -p.grad if group["maximize"] else p.grad
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            state["step"] += 1
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    p.mul_(1 - lr * wd)
                else:
                    grad = grad.add(p, alpha=wd)
            _lerp_(exp_avg, grad, 1 - beta1)
            exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
            step = state["step"].item()
            step_size = lr / (1 - beta1**step)
            bias_correction2_sqrt = (1 - beta2**step) ** 0.5
            if group["amsgrad"]:
                max_sq = state["max_exp_avg_sq"]
                max_sq.copy_(where(exp_avg_sq > max_sq, exp_avg_sq, max_sq))
                exp_avg_sq = max_sq
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            add_scaled_(p, exp_avg / denom, -step_size)


class AdamW(Adam):
    """Adam with weight decay applied to the parameters directly (decoupled), default 1e-2."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )
