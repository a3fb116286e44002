"""Checks PyTorch makes on the arguments of the nn ops before any math, with its messages."""

from __future__ import annotations

from ...core import grad_mode
from ...core.tensor import Tensor


def not_differentiable(function: str, **arguments: Tensor | None) -> None:
    """PyTorch refuses a grad-requiring argument its derivative formulas leave out (class
    weights, pos_weight), while grad mode is on."""
    if not grad_mode.is_grad_enabled():
        return
    for name, value in arguments.items():
        if value is not None and value.requires_grad:
            raise RuntimeError(
                f"The function '{function}' is not differentiable with respect to argument "
                f"'{name}'. This input cannot have requires_grad True."
            )


def broadcast_shapes(*shapes: tuple) -> tuple:
    """torch.broadcast_shapes, with its own message (the ops' broadcasting names tensors a
    and b instead)."""
    common = [1] * max(len(s) for s in shapes)
    for index, shape in enumerate(shapes):
        for i in range(-1, -1 - len(shape), -1):
            if shape[i] == common[i] or shape[i] == 1:
                continue
            if common[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {shape[i]} at {i}! "
                    f"Mismatching argument at index {index} had torch.Size({list(shape)}); but "
                    f"expected shape should be broadcastable to {common}"
                )
            common[i] = shape[i]
    return tuple(common)
