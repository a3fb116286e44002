"""The reverse-mode step every reverse transform shares: cotangents of the outputs to
gradients of the inputs, with zeros where an input does not reach the outputs (functorch
never answers None), keeping the graph when an outer computation may differentiate it."""

from __future__ import annotations

from ..autograd.api import grad as autograd_grad
from ..core import forward_grad, grad_mode
from ..core.tensor import Tensor
from ..creation import zeros_like


def keeps_graph(outer_grad_enabled: bool) -> bool:
    """Build the backward's graph when grad mode was on outside the transform (an outer
    reverse transform or autograd) or a dual level is open (forward over reverse: the
    tangents flow through the backward's ops)."""
    return outer_grad_enabled or forward_grad.Levels.level is not None


def pullback(
    outputs: list[Tensor],
    inputs: list[Tensor],
    cotangents: list,
    create_graph: bool,
    retain_graph: bool = True,
) -> list[Tensor]:
    """sum over outputs of cotangent^T d output / d input, for each input."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents) if o.requires_grad]
    if not pairs:
        return [zeros_like(x) for x in inputs]
    with grad_mode.enable_grad():
        grads = autograd_grad(
            [o for o, _ in pairs],
            inputs,
            [c for _, c in pairs],
            retain_graph=retain_graph or create_graph,
            create_graph=create_graph,
            allow_unused=True,
        )
    return [zeros_like(x) if g is None else g for g, x in zip(grads, inputs)]
