"""Adam (and AdamW) with PyTorch's single-tensor update, step for step.

The order of float32 operations follows torch/optim/adam.py (_single_tensor_adam), so the
same parameters and gradients give the same values as PyTorch to float32 rounding.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..core.tensor import Tensor
from ..creation import tensor, zeros_like
from .optimizer import Optimizer, require_non_negative

__all__ = ["Adam", "AdamW"]


def _lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """start.lerp_(end, weight) with PyTorch's two-sided formula (exact at both ends)."""
    if weight < 0.5:
        start += (end - start) * weight
    else:
        np.subtract(end, (end - start) * (1 - weight), out=start)


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
        """PyTorch's single-tensor update, written on the arrays (each step one float32 numpy
        op in PyTorch's order) with the version bumps its in-place ops count."""
        beta1, beta2 = group["betas"]
        lr, wd, eps = group["lr"], group["weight_decay"], group["eps"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self._init_state(p, group["amsgrad"])
            exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
            param, grad = p._data, p.grad._data
            m, v = exp_avg._data, exp_avg_sq._data
            if group["maximize"]:
                grad = -grad
            step_t._data += 1
            step_t._bump()
            if wd != 0:
                if group["decoupled_weight_decay"]:
                    param *= 1 - lr * wd
                    p._bump()
                else:
                    grad = grad + param * param.dtype.type(wd)
            _lerp_(m, grad, 1 - beta1)
            exp_avg._bump()
            v *= beta2
            v += grad * grad * v.dtype.type(1 - beta2)
            exp_avg_sq._bump()
            exp_avg_sq._bump()  # (mul_, then the add of grad * grad: two writes)
            step = float(step_t._data)
            step_size = lr / (1 - beta1**step)
            bias_correction2_sqrt = (1 - beta2**step) ** 0.5
            if group["amsgrad"]:
                max_sq = state["max_exp_avg_sq"]
                np.maximum(max_sq._data, v, out=max_sq._data)
                max_sq._bump()
                v = max_sq._data
            denom = np.sqrt(v) / bias_correction2_sqrt
            denom += eps
            param += (m / denom) * -step_size
            p._bump()


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
