"""adaptive_max_pool2d: the maximum of each of PyTorch's adaptive windows (avg_pool.py's
bounds). Like max_pool2d, the maxima's flat positions scatter the gradient back, and the
gradient's own gradient gathers from them."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.node import Node
from ...core.tensor import Tensor
from .avg_pool import _bounds, adaptive_output_size, check_dtype
from .pooling import MaxPool2DWithIndicesBackward0, _scatter_flat, record_max


class AdaptiveMaxPool2DBackward0(Node):
    """Saves the input and the indices, as PyTorch does (result1)."""

    jvp = MaxPool2DWithIndicesBackward0.jvp

    def backward(self, g):
        source = self.saved("self")
        self.saved("result1")
        return (_scatter_flat(g, self.indices, self.self_sym_sizes, source),)


def _maxima(x: np.ndarray, out_hw: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(values, index within each H x W plane) of every window of an (N, C, H, W) array; the
    first maximum wins a tie, a NaN wins over numbers."""
    n, c, h, w = x.shape
    (h0, h1), (w0, w1) = _bounds(h, out_hw[0]), _bounds(w, out_hw[1])
    values = np.empty((n, c, *out_hw), dtype=x.dtype)
    plane = np.empty((n, c, *out_hw), dtype=np.int64)
    for i in range(out_hw[0]):
        for j in range(out_hw[1]):
            width = w1[j] - w0[j]
            window = x[..., h0[i] : h1[i], w0[j] : w1[j]].reshape(n, c, (h1[i] - h0[i]) * width)
            k = window.argmax(-1) if window.size else np.zeros((n, c), np.int64)
            values[..., i, j] = np.take_along_axis(window, k[..., None], -1)[..., 0]
            plane[..., i, j] = (h0[i] + k // width) * w + w0[j] + k % width
    return values, plane


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    out_hw = adaptive_output_size(input, output_size, "adaptive_max_pool2d")
    check_dtype(input, "adaptive_max_pool2d", even_empty=True)
    shape = input._data.shape
    batched = input._data if input.ndim == 4 else input._data[None]
    if 0 in batched.shape[2:]:
        raise RuntimeError(
            "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
            f"dimensions, but input has sizes {list(shape)} with dimension "
            f"{input.ndim - 2 + shape[-2:].index(0)} being empty"
        )
    values, plane = _maxima(batched, out_hw)
    n, c, h, w = batched.shape
    flat = plane + (np.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, c, 1, 1)
    return record_max(AdaptiveMaxPool2DBackward0, input, values, plane, flat, return_indices)
