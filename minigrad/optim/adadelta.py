"""Adadelta with PyTorch's single-tensor update (torch/optim/adadelta.py), step for step.

Defaults, argument checks and state ('step', 'square_avg', 'acc_delta', made on a parameter's
first step) are PyTorch 2.13's, so trajectories agree with PyTorch's to float rounding. The
fused-conv tutorial trains with it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.tensor import Tensor
from ..creation import tensor, zeros_like
from .optimizer import Optimizer, add_scaled_, require_non_negative

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Steps scaled by the ratio of running RMS of past updates to that of past gradients."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float | Tensor = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        require_non_negative(
            lr=("learning rate", lr),
        )
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        require_non_negative(
            eps=("epsilon value", eps),
            weight_decay=("weight_decay value", weight_decay),
        )
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor) -> dict[str, Any]:
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(p)
            state["acc_delta"] = zeros_like(p)
        return state

    def _step_group(self, group: dict[str, Any]) -> None:
        lr = group["lr"]
        lr = lr.item() if isinstance(lr, Tensor) else lr
        rho, eps, wd = group["rho"], group["eps"], group["weight_decay"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self._init_state(p)
            if group["capturable"]:  # CUDA graphs: not for CPU tensors, as in PyTorch
                raise AssertionError(
                    "If capturable=True, params and state_steps must be on supported devices: "
                    "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']."
                )
            state["step"] += 1
            grad = -p.grad if group["maximize"] else p.grad
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).add_(grad * grad, alpha=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            acc_delta.mul_(rho).add_(delta * delta, alpha=1 - rho)
            add_scaled_(p, delta, -lr)
