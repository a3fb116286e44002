"""Clearing gradients, shared by nn.Module.zero_grad and Optimizer.zero_grad."""

from __future__ import annotations

from collections.abc import Iterable

from ..core.tensor import Tensor


def zero_grads(params: Iterable[Tensor], set_to_none: bool = True) -> None:
    """Drop each .grad (PyTorch's default since 2.0) or zero it in place, detached."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if p.grad.grad_fn is not None:
            p.grad.detach_()
        else:
            p.grad.requires_grad_(False)
        p.grad.zero_()
