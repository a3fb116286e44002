"""How a transform keeps its own inputs apart from everything else, so transforms nest.

functorch wraps each transform's inputs at a new "level". minigrad does it with the graph:
a transform differentiates with respect to *fresh* tensors made from its inputs (a new leaf,
or a view of an input that already requires grad, so the graph to the outer level stays),
carrying the input's forward-mode tangent along. Captured tensors are not the fresh ones, so
they count as constants, as in PyTorch. When the transform is done, a result whose graph
reaches no leaf but its own fresh inputs is detached (keeping its tangent): it depends on
nothing an outer computation could differentiate.
"""

from __future__ import annotations

from typing import Any

from ..autograd.forward_ad import make_dual
from ..core import forward_grad
from ..core.forward_grad import tangent_of
from ..core.tensor import Tensor


def fresh(x: Tensor, own: list[Tensor]) -> Tensor:
    """A new tensor equal to x that requires grad, with x's tangent; a new leaf it made is
    appended to `own`."""
    tangent = tangent_of(x)
    with forward_grad.computing_tangents():
        if x.requires_grad:
            primal = x.view_as(x)
        else:
            primal = x.detach().requires_grad_(True)
            own.append(primal)
    return primal if tangent is None else make_dual(primal, tangent)


def _leaves_reached(t: Tensor) -> set[int]:
    """ids of the leaves t's graph reaches."""
    if t.grad_fn is None:
        return {id(t)} if t.requires_grad else set()
    seen, found, todo = set(), set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if getattr(node, "_is_accumulate_grad", False):
            found.add(id(node.variable))
        todo += [edge[0] for edge in node.next_functions]
    return found


def release(value: Any, own: list[Tensor]) -> Any:
    """value without its graph when that reaches only this transform's fresh leaves."""
    if not isinstance(value, Tensor) or not value.requires_grad:
        return value
    own_ids = {id(x) for x in own}
    if not _leaves_reached(value) <= own_ids:
        return value
    tangent = tangent_of(value)
    plain = value.detach()
    return plain if tangent is None else make_dual(plain, release(tangent, own))
