"""Scatter into / gather from a tensor's flattened elements: each is the other's backward.

Views written in place use them to move gradients between a view and its base.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from . import formula, tangents
from .shape import tangent_or_zeros


class ScatterFlatBackward(Node):
    jvp = tangents.linear(
        lambda node, out, t: scatter_flat(t, node.indices, tuple(out._data.shape), type(node))
    )

    def backward(self, h):
        return (gather_flat(h, self.indices),)


def scatter_flat(
    g: Any, indices: np.ndarray, shape: tuple, recorded_as: type[Node] = ScatterFlatBackward
) -> Any:
    """Zeros of `shape` with g added at the flat positions `indices` (g.shape == indices.shape)."""
    g_data = formula.data(g)
    data = np.zeros(int(np.prod(shape)), dtype=g_data.dtype)
    np.add.at(data, indices.ravel(), np.ravel(g_data))
    return formula.result(recorded_as, data.reshape(shape), (g,), indices=indices)


class GatherFlatBackward(Node):
    jvp = tangents.linear(lambda node, out, t: gather_flat(t, node.indices))

    def backward(self, g):
        return (scatter_flat(g, self.indices, self.self_sym_sizes),)


def gather_flat(h: Any, indices: np.ndarray) -> Any:
    """h's elements at the flat positions `indices`, shaped like `indices`."""
    h_data = formula.data(h)
    data = np.reshape(h_data, -1)[indices]
    return formula.result(
        GatherFlatBackward, data, (h,), indices=indices, self_sym_sizes=np.shape(h_data)
    )


class PutFlatBackward(Node):
    """`put_flat` recorded, under create_graph: the gradient of a base written through one of
    its views, which PyTorch builds as a CopySlices of its own (hence the name)."""

    def jvp(self, out, tangents):
        g, values = (tangent_or_zeros(self, tangents, i) for i in (0, 1))
        return put_flat(g, self.indices, values)

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def backward(self, gg):
        shape = np.shape(formula.data(gg))
        outside = np.ones(int(np.prod(shape)), dtype=bool)
        outside[self.indices.ravel()] = False
        return formula.keep(outside.reshape(shape), gg), gather_flat(gg, self.indices)


def put_flat(g: Any, indices: np.ndarray, values: Any) -> Any:
    """g with `values` copied in at the flat positions `indices` (copied, not added: a -0.0
    arriving there stays -0.0, as PyTorch's copy_ keeps it)."""
    data = np.array(formula.data(g), copy=True)
    data.reshape(-1)[indices.ravel()] = np.ravel(formula.data(values))
    return formula.result(PutFlatBackward, data, (g, values), indices=indices)
