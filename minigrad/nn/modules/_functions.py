"""The identity Function that module backward hooks wrap around a module's inputs and outputs."""

from __future__ import annotations

from typing import Any

from ...autograd.function import Function


class BackwardHookFunction(Function):
    """Identity whose node (`BackwardHookFunctionBackward`) marks where a module's grads pass."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> tuple:
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx: Any, *args: Any) -> tuple:
        return args
