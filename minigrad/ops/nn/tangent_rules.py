"""Forward-mode rules shared by the nn ops: `total` adds the terms of the inputs that carry a
tangent; `reduced_pointwise` is a loss's tangent, as PyTorch writes it for its losses: the
pointwise (reduction='none') rule, then the loss's reduction."""

from __future__ import annotations

from ...core.node import Node
from ...core.tensor import Tensor
from .. import tangents as rules


def total(*terms: Tensor | None) -> Tensor | None:
    """The sum of the terms that are not None (None when none is)."""
    result = None
    for term in terms:
        if term is not None:
            result = term if result is None else result + term
    return result


def reduced_pointwise(node: Node, out: Tensor, tangents: list) -> Tensor | None:
    """For a loss node whose backward, with `reduction` 'none', is elementwise in its inputs
    (all shaped like the saved "self"): that tangent, summed or averaged as the loss is."""
    reduction, node.reduction = node.reduction, "none"  # (the node is a private shadow)
    pointwise = rules.elementwise(node, node.saved("self"), tangents)
    if pointwise is None or reduction == "none":
        return pointwise
    return pointwise.sum() if reduction == "sum" else pointwise.mean()
