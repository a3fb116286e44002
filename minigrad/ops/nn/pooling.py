"""max_pool2d: the maxima's flat positions scatter the gradient back; gathering is its
derivative, so double backward works."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import kernels
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .._record import record
from .conv import _pair


class MaxPool2DWithIndicesBackward0(Node):
    """Saves the input and the indices it returns, as PyTorch does: changing either in place
    makes backward refuse. (The flat indices it scatters with are its own.)"""

    def backward(self, g):
        self.saved("self")
        self.saved("result1")
        return (_scatter_flat(g, self.indices, self.self_sym_sizes),)


class _ScatterFlat(Node):
    def backward(self, h):
        return (_gather_flat(h, self.indices, self.grad_shape),)


def _scatter_flat(g: Any, indices: np.ndarray, shape: tuple) -> Any:
    """Pooling's backward: g added at the input positions its maxima came from."""
    batched = shape if len(shape) == 4 else (1, *shape)
    g_data = formula.data(g)
    data = kernels.max_pool2d_backward(g_data.reshape(indices.shape), indices, batched)
    return formula.result(
        _ScatterFlat, data.reshape(shape), (g,), indices=indices, grad_shape=g_data.shape
    )


class _GatherFlat(Node):
    def backward(self, g):
        return (_scatter_flat(g, self.indices, self.self_sym_sizes),)


def _gather_flat(h: Any, indices: np.ndarray, shape: tuple) -> Any:
    h_data = formula.data(h)
    data = h_data.reshape(-1)[indices].reshape(shape)
    return formula.result(_GatherFlat, data, (h,), indices=indices, self_sym_sizes=h_data.shape)


def max_pool2d(
    x: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
):
    if _pair(dilation) != 1 or ceil_mode:
        raise NotImplementedError("minigrad's max_pool2d supports dilation=1, ceil_mode=False")
    if x.ndim not in (3, 4) or x.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    k = _pair(kernel_size)
    s = k if stride in (None, ()) else _pair(stride)
    p = _pair(padding)
    if p > k // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={p}, "
            f"kernel_size={k} and dilation=1"
        )
    unbatched = x.ndim == 3
    values, idx = kernels.max_pool2d_forward(x._data[None] if unbatched else x._data, k, s, p)
    indices = None  # made only when returned: nobody else can change them
    if return_indices:
        plane = idx % (x.shape[-2] * x.shape[-1])  # torch: the index within each (H, W) plane
        indices = Tensor._wrap(plane[0] if unbatched else plane)
    out = record(
        MaxPool2DWithIndicesBackward0,
        values[0] if unbatched else values,
        (x,),
        save={"self": x, "result1": indices},
        indices=idx,
        self_sym_sizes=tuple(x.shape),
    )
    return (out, indices) if return_indices else out
