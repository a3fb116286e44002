"""Ops that are fixed linear maps of their input (average pooling, reflect and replicate
padding): the gradient is the map's adjoint applied to g, and the adjoint's gradient is the map
again. So one pair of nodes, each recording the other under create_graph, differentiates to any
order; they are named as PyTorch names the op's node and its double-backward node."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula, tangents
from .._record import record


class LinearMapNode(Node):
    """One of a pair: `op` made its output, `adjoint` maps a gradient back; the gradient is
    recorded as the twin, whose op and adjoint are swapped."""

    twin: type[LinearMapNode]

    # (the map applied to the tangent, recorded as this node again)
    jvp = tangents.linear(lambda node, out, t: apply_map(t, node.op, node.adjoint, type(node)))

    def backward(self, g):
        if self._saved and "self" in self._saved:  # (the forward's node: version-checked)
            self.saved("self")
        return (apply_map(g, self.adjoint, self.op, type(self).twin),)


def apply_map(x: Any, op: Callable, adjoint: Callable, node_cls: type, **save: Any) -> Any:
    """op(x's numbers): an array, or on a Tensor the op recorded as `node_cls` (`save`: what
    it keeps, as PyTorch's node shows it)."""
    data = op(formula.data(x))
    if not isinstance(x, Tensor):
        return data
    return record(node_cls, data, (x,), save=save or None, op=op, adjoint=adjoint)


def node_pair(name: str) -> type[LinearMapNode]:
    """`{name}Backward0`, whose twin is `{name}BackwardBackward0`."""
    first = type(f"{name}Backward0", (LinearMapNode,), {})
    second = type(f"{name}BackwardBackward0", (LinearMapNode,), {})
    first.twin, second.twin = second, first
    return first
