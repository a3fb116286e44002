"""RMSprop with PyTorch's single-tensor update (torch/optim/rmsprop.py), step for step.

Defaults, argument checks and state ('step', 'square_avg', 'momentum_buffer' when momentum > 0,
'grad_avg' when centered) are PyTorch 2.13's; the operations run in the same order on the same
dtype, so trajectories agree with PyTorch's to float rounding.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..core.tensor import Tensor
from ..creation import tensor, zeros_like
from .adam import _lerp_
from .optimizer import Optimizer, add_scaled_, require_non_negative

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """Divide the gradient by a running root mean square of recent gradients (Hinton)."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float | Tensor = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        require_non_negative(
            lr=("learning rate", lr),
            eps=("epsilon value", eps),
            momentum=("momentum value", momentum),
            weight_decay=("weight_decay value", weight_decay),
            alpha=("alpha value", alpha),
        )
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        state = self.state[p]
        if not state:
            state["step"] = tensor(0.0)
            state["square_avg"] = zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = zeros_like(p)
        return state

    def _step_group(self, group: dict[str, Any]) -> None:
        lr = group["lr"]
        lr = lr.item() if isinstance(lr, Tensor) else lr
        alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
        wd = group["weight_decay"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self._init_state(p, group)
            if group["capturable"]:  # CUDA graphs: not for CPU tensors, as in PyTorch
                raise AssertionError(
                    "If capturable=True, params and state_steps must be on supported devices: "
                    "['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']."
                )
            grad = -p.grad if group["maximize"] else p.grad
            square_avg = state["square_avg"]
            state["step"] += 1
            if wd != 0:
                grad = grad.add(p, alpha=wd)
            square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
            if group["centered"]:
                grad_avg = state["grad_avg"]
                _lerp_(grad_avg._data, grad._data, 1 - alpha)
                grad_avg._bump()
                avg = square_avg.add(grad_avg * grad_avg, alpha=-1).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg.add_(eps)
            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).add_(grad / avg)
                add_scaled_(p, buf, -lr)
            else:
                add_scaled_(p, (grad * -lr).div_(avg), 1)  # PyTorch's order: (-lr * g) / avg
