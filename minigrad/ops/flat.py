"""Scatter into / gather from a tensor's flattened elements: each is the other's backward.

Views written in place use them to move gradients between a view and its base.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from . import formula


class ScatterFlatBackward(Node):
    def backward(self, h):
        return (gather_flat(h, self.indices),)


def scatter_flat(g: Any, indices: np.ndarray, shape: tuple) -> Any:
    """Zeros of `shape` with g added at the flat positions `indices` (g.shape == indices.shape)."""
    g_data = formula.data(g)
    data = np.zeros(int(np.prod(shape)), dtype=g_data.dtype)
    np.add.at(data, indices.ravel(), np.ravel(g_data))
    return formula.result(ScatterFlatBackward, data.reshape(shape), (g,), indices=indices)


class GatherFlatBackward(Node):
    def backward(self, g):
        return (scatter_flat(g, self.indices, self.self_sym_sizes),)


def gather_flat(h: Any, indices: np.ndarray) -> Any:
    """h's elements at the flat positions `indices`, shaped like `indices`."""
    h_data = formula.data(h)
    data = np.reshape(h_data, -1)[indices]
    return formula.result(
        GatherFlatBackward, data, (h,), indices=indices, self_sym_sizes=np.shape(h_data)
    )
