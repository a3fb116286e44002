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

from ..core.node import Node
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
    first = inputs[0]
    if first is None:
        first = next(x for x in inputs if x is not None)
    if isinstance(first, Tensor):
        return record(node_cls, out, inputs, **kwargs)
    return out


class KeepBackward(Node):
    """`keep` recorded under create_graph: PyTorch's where(mask, grad, 0), linear in grad."""

    def jvp(self, out, tangents):
        return None if tangents[0] is None else keep(self.mask, tangents[0], type(self))

    def name(self) -> str:
        return "WhereBackward0"

    def backward(self, gg):
        return (keep(self.mask, gg, type(self)),)


class MaskedFillKeep(KeepBackward):
    """`keep` as masked_fill's backward records it: grad.masked_fill(mask, 0)."""

    def name(self) -> str:
        return "MaskedFillBackward0"


def keep(mask: Any, g: Any, recorded_as: type[Node] = KeepBackward) -> Any:
    """g where `mask` holds and exactly 0 elsewhere: the one way formulas mask a gradient.

    The masked-out places are selected away, never multiplied by 0, so an inf or NaN arriving in
    g stays out of them (inf * 0 would be NaN), as in PyTorch's formulas, which select with
    where/masked_fill/index_put. `mask` is a bool array or Tensor (a constant: no gradient
    flows to it); the result has the broadcast shape of mask and g (the engine sums it back to
    the input's shape). On Tensors the selection is recorded, so it differentiates again.
    """
    m = data(mask)
    if isinstance(g, Tensor):
        out = np.where(m, g._data, g._data.dtype.type(0))
        return record(recorded_as, out, (g,), mask=m)
    return np.where(m, g, g.dtype.type(0))


class DivBackward1(Node):
    """`divide` recorded under create_graph: a division by a number, as PyTorch's C++ formulas
    divide (div.Scalar), where a Python `t / n` records DivBackward0."""

    def jvp(self, out, tangents):
        return None if tangents[0] is None else divide(tangents[0], self.other)

    def backward(self, gg):
        return (divide(gg, self.other),)


def divide(x: Any, number: float) -> Any:
    """x / number, recorded as DivBackward1 on Tensors (mean's and the losses' 1 / numel)."""
    if isinstance(x, Tensor):
        return record(DivBackward1, x._data / x._data.dtype.type(number), (x,), other=number)
    return x / number


def sign(x: Any) -> np.ndarray:
    """PyTorch's sign/sgn of x's numbers, as a constant array: -1, 0 or 1, and 0 at NaN (numpy
    says NaN there, which would turn a finite gradient into NaN)."""
    numbers = np.asarray(data(x))
    out = np.sign(numbers)
    if numbers.dtype.kind == "f":
        return np.where(np.isnan(numbers), numbers.dtype.type(0), out)
    return np.asarray(out)


def zeros_like(x: Any) -> Any:
    """PyTorch's zeros_like(x) in a formula: a gradient that is 0 whatever arrives (inf and NaN
    included), with no history (nothing to differentiate under create_graph either)."""
    zeros = np.zeros(np.shape(data(x)), dtype=data(x).dtype)
    return Tensor._wrap(zeros) if isinstance(x, Tensor) else zeros


def tangent_or_zeros(node: Node, tangents: list, i: int) -> Tensor:
    """In a forward formula (a node's `jvp`): input i's tangent, or zeros of that input's
    shape and dtype where it carries none (PyTorch's zero tangent for a plain input)."""
    if tangents[i] is not None:
        return tangents[i]
    shape, dtype = node._input_meta[i]
    return Tensor._wrap(np.zeros(shape, dtype))


def t(x: Any) -> Any:
    return x.t() if isinstance(x, Tensor) else x.T


def mm(a: Any, b: Any) -> Any:
    return a.mm(b) if isinstance(a, Tensor) else a @ b


def bmm(a: Any, b: Any) -> Any:
    return a.bmm(b) if isinstance(a, Tensor) else np.matmul(a, b)


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


def log(x: Any) -> Any:
    return x.log() if isinstance(x, Tensor) else np.log(x)


def cos(x: Any) -> Any:
    return x.cos() if isinstance(x, Tensor) else np.cos(x)


def sin(x: Any) -> Any:
    return x.sin() if isinstance(x, Tensor) else np.sin(x)
