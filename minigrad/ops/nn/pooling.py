"""max_pool2d: the maxima's flat positions scatter the gradient back; gathering is its
derivative, so double backward works."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import kernels
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula, tangents
from .._record import record


class MaxPool2DWithIndicesBackward0(Node):
    """Saves the input and the indices it returns, as PyTorch does: changing either in place
    makes backward refuse. (The flat indices it scatters with are its own.)"""

    jvp = tangents.linear(lambda node, out, t: _gather_flat(t, node.indices, out.shape))

    def backward(self, g):
        source = self.saved("self")
        self.saved("result1")
        return (_scatter_flat(g, self.indices, self.self_sym_sizes, source),)


class MaxPool2DWithIndicesBackwardBackward0(Node):
    """The gradient above, recorded under create_graph. Like PyTorch's, it takes the pooled
    input too (so it requires grad whenever that input does), whose gradient is zeros."""

    def jvp(self, out, tangents):
        """Linear in the gradient; the pooled input's tangent adds zeros (as PyTorch's)."""
        t = tangents[0]
        if t is None:
            return Tensor._wrap(np.zeros_like(out._data))
        return _scatter_flat(t, self.indices, out.shape)

    def backward(self, h):
        zeros = formula.zeros_like(h) if self.next_functions[1][0] is not None else None
        return _gather_flat(h, self.indices, self.grad_shape), zeros


def _scatter_flat(g: Any, indices: np.ndarray, shape: tuple, source: Any = None) -> Any:
    """Pooling's backward: g added at the input positions its maxima came from."""
    batched = shape if len(shape) == 4 else (1, *shape)
    g_data = formula.data(g)
    data = kernels.max_pool2d_backward(g_data.reshape(indices.shape), indices, batched)
    return formula.result(
        MaxPool2DWithIndicesBackwardBackward0,
        data.reshape(shape),
        (g, source),
        indices=indices,
        grad_shape=g_data.shape,
    )


class _GatherFlat(Node):
    jvp = tangents.linear(lambda node, out, t: _gather_flat(t, node.indices, out.shape))

    def backward(self, g):
        return (_scatter_flat(g, self.indices, self.self_sym_sizes),)


def _gather_flat(h: Any, indices: np.ndarray, shape: tuple) -> Any:
    h_data = formula.data(h)
    data = h_data.reshape(-1)[indices].reshape(shape)
    return formula.result(_GatherFlat, data, (h,), indices=indices, self_sym_sizes=h_data.shape)


def _two(value: Any, what: str, op: str) -> tuple[int, int]:
    if type(value) is int:  # the usual case, without lists
        return value, value
    values = list(value) if isinstance(value, (tuple, list)) else [value]
    if len(values) not in (1, 2):
        raise RuntimeError(f"{op}: {what}")
    return int(values[0]), int(values[-1])


def window_pairs(op: str, kernel_size: Any, stride: Any, padding: Any) -> tuple[tuple, ...]:
    """(kernel, stride, padding) of a 2d pooling as (h, w) pairs, read with PyTorch's checks
    and messages for both poolings; an omitted or empty stride is the kernel size."""
    k = _two(kernel_size, "kernel_size must either be a single int, or a tuple of two ints", op)
    s = k
    if stride is not None and not (isinstance(stride, (tuple, list)) and len(stride) == 0):
        what = "stride must either be omitted, a single int, or a tuple of two ints"
        s = _two(stride, what, op)
    p = _two(padding, "padding must either be a single int, or a tuple of two ints", op)
    return k, s, p


def _c_half(a: int) -> int:
    """a / 2 rounded toward zero, as C++ divides."""
    return -(-a // 2) if a < 0 else a // 2


def _output_size(size: int, k: int, pad: int, stride: int, dilation: int, ceil: bool) -> int:
    """PyTorch's pooling_output_shape, its checks included."""
    if stride == 0:
        raise RuntimeError("stride should not be zero")
    if pad < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {pad}")
    if pad > _c_half((k - 1) * dilation + 1):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pad}, "
            f"kernel_size={k} and dilation={dilation}"
        )
    return kernels.output_size(size, k, stride, pad, dilation, ceil)


def _check(shape: tuple, k: tuple, s: tuple, p: tuple, d: tuple, out_hw: tuple) -> None:
    """PyTorch's pool2d_shape_check, of an input of `shape`."""
    if min(k) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {k[0]} kW: {k[1]}"
        )
    if min(s) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got dH: {s[0]} dW: {s[1]}")
    if min(d) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {d[0]} dilationW: {d[1]}"
        )
    if 0 in shape[-3:]:
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
            f"but got:{list(shape)}"
        )
    if _c_half(k[1]) < p[1] or _c_half(k[0]) < p[0]:
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got padW = {p[1]}, "
            f"padH = {p[0]}, kW = {k[1]}, kH = {k[0]}"
        )
    if min(out_hw) < 1:
        c, h, w = shape[-3:]
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{out_hw[0]}x"
            f"{out_hw[1]}). Output size is too small"
        )


def record_max(
    node_cls: type[Node],
    x: Tensor,
    values: np.ndarray,
    plane: np.ndarray | None,
    flat: np.ndarray,
    return_indices: bool,
) -> Any:
    """The output of a max pooling over a batched (N, C, H, W) view of x, one recording for
    max_pool2d and adaptive_max_pool2d: the node keeps the flat argmax for the gradient and,
    as PyTorch's result1, the indices within each plane (when made, else None)."""
    unbatched = x.ndim == 3
    indices = None if plane is None else Tensor._wrap(plane[0] if unbatched else plane)
    out = record(
        node_cls,
        values[0] if unbatched else values,
        (x,),
        save={"self": x, "result1": indices},
        indices=flat,
        self_sym_sizes=x._data.shape,
    )
    return (out, indices) if return_indices else out


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    x = input
    k, s, p = window_pairs("max_pool2d", kernel_size, stride, padding)
    d = _two(dilation, "dilation must be either a single int, or a tuple of two ints", "max_pool2d")
    if x.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if x.dtype.name == "bool":
        raise NotImplementedError("\"max_pool2d\" not implemented for 'Bool'")
    shape = x._data.shape
    out_hw = (
        _output_size(shape[-2], k[0], p[0], s[0], d[0], ceil_mode),
        _output_size(shape[-1], k[1], p[1], s[1], d[1], ceil_mode),
    )
    _check(shape, k, s, p, d, out_hw)
    unbatched = x.ndim == 3
    data = x._data[None] if unbatched else x._data
    values, idx = kernels.max_pool2d_forward(data, k, s, p, d, ceil_mode)
    plane = None  # made only when returned: nobody else can change them
    if return_indices:
        plane = idx % (shape[-2] * shape[-1])  # torch: the index within each (H, W) plane
    return record_max(MaxPool2DWithIndicesBackward0, x, values, plane, idx, return_indices)
