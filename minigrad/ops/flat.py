"""Scatter into / gather from a tensor's flattened elements: each is the other's backward.

Views written in place use them to move gradients between a view and its base.
"""

from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ..tensor import Tensor
from ._record import record


class ScatterFlatBackward(Node):
    def backward(self, h):
        return (gather_flat(h, self.indices),)


class GatherFlatBackward(Node):
    def backward(self, g):
        return (scatter_flat(g, self.indices, self.self_sym_sizes),)


def scatter_flat(g: Tensor, indices: np.ndarray, shape: tuple) -> Tensor:
    """Zeros of `shape` with g added at the flat positions `indices` (g.shape == indices.shape)."""
    data = np.zeros(int(np.prod(shape)), dtype=g._data.dtype)
    np.add.at(data, indices.ravel(), g._data.ravel())
    return record(ScatterFlatBackward, data.reshape(shape), (g,), indices=indices)


def gather_flat(h: Tensor, indices: np.ndarray) -> Tensor:
    """h's elements at the flat positions `indices`, shaped like `indices`."""
    data = h._data.reshape(-1)[indices]
    return record(GatherFlatBackward, data, (h,), indices=indices, self_sym_sizes=tuple(h.shape))
