"""What backward formulas are written with, so that one formula serves both ways it is run.

Without create_graph the engine runs a formula on numpy arrays (its saved tensors arrive as arrays
too): nothing is recorded, so a formula costs little more than its numpy calls. With create_graph
it runs on Tensors and every step is recorded, so the gradient can be differentiated again.
Operators (+ - * / ** @, comparisons, indexing), `.reshape`, `.shape` and `.ndim` mean the same
on both; the functions below cover what is spelled differently. A node whose formula sticks to
these runs on arrays by default (`Node.runs_on_arrays`, core/node.py); one that needs Tensors
opts out with `runs_on_arrays = False`. On arrays, a formula returns arrays it keeps no
reference to (new arrays or views): the engine may hand them to `.grad` without a copy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.shapes import sum_to_array
from ..core.tensor import Tensor
from ._record import record, should_record


def data(x: Any) -> np.ndarray:
    """The numbers, whichever form `x` arrived in."""
    return x._data if isinstance(x, Tensor) else x


def kernel_or_ops(
    inputs: tuple, kernel: Callable[[], np.ndarray], ops: Callable[[], Tensor]
) -> Any:
    """A formula with a kernel: `ops` (Tensor ops, recorded) when create_graph builds a graph
    through `inputs`, else one `kernel` call on the numbers (returned as an array on arrays)."""
    if not isinstance(inputs[0], Tensor):
        return kernel()
    return ops() if should_record(inputs) else Tensor._wrap(kernel())


def result(node_cls: type, out: np.ndarray, inputs: tuple, **kwargs: Any) -> Any:
    """A kernel's output: recorded as `node_cls` on Tensors, returned as it is on arrays."""
    if isinstance(next(x for x in inputs if x is not None), Tensor):
        return record(node_cls, out, inputs, **kwargs)
    return out


def t(x: Any) -> Any:
    return x.t() if isinstance(x, Tensor) else x.T


def mm(a: Any, b: Any) -> Any:
    return a.mm(b) if isinstance(a, Tensor) else a @ b


def mv(a: Any, b: Any) -> Any:
    return a.mv(b) if isinstance(a, Tensor) else a @ b


def expand(x: Any, shape: tuple) -> Any:
    return x.expand(shape) if isinstance(x, Tensor) else np.broadcast_to(x, shape)


def unsqueeze(x: Any, dim: int) -> Any:
    return x.unsqueeze(dim) if isinstance(x, Tensor) else np.expand_dims(x, dim)


def squeeze(x: Any, dim: int) -> Any:
    """PyTorch's squeeze(dim): a no-op when that dim is not of size 1."""
    if isinstance(x, Tensor):
        return x.squeeze(dim)
    return np.squeeze(x, dim) if np.shape(x)[dim] == 1 else x


def transpose(x: Any, dim0: int, dim1: int) -> Any:
    return x.transpose(dim0, dim1) if isinstance(x, Tensor) else np.swapaxes(x, dim0, dim1)


def permute(x: Any, dims: list[int]) -> Any:
    return x.permute(*dims) if isinstance(x, Tensor) else np.transpose(x, dims)


def to(x: Any, dtype: Any) -> Any:
    return x.to(dtype) if isinstance(x, Tensor) else np.asarray(x).astype(dtype.np, copy=False)


def sum_keepdim(x: Any, dims: Any) -> Any:
    if isinstance(x, Tensor):
        return x.sum(dims, keepdim=True)
    return np.sum(x, axis=dims, keepdims=True)


def sum_to(x: Any, shape: tuple) -> Any:
    """Sum a broadcast gradient back down to `shape`."""
    return x.sum_to_size(shape) if isinstance(x, Tensor) else sum_to_array(x, shape)


def exp(x: Any) -> Any:
    return x.exp() if isinstance(x, Tensor) else np.exp(x)


def cos(x: Any) -> Any:
    return x.cos() if isinstance(x, Tensor) else np.cos(x)


def sin(x: Any) -> Any:
    return x.sin() if isinstance(x, Tensor) else np.sin(x)
