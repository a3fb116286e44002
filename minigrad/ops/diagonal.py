"""Diagonals: `diagonal` (a view of them), `diag_embed` (a new tensor with the last dim put on
them), `diag` (either, for a vector or a matrix) and `trace`. Taking a diagonal and putting
values on one are each other's gradients, so each backward is the other op: on arrays in a
plain backward, recorded under create_graph with the names PyTorch records."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import mark_view, record
from .inplace import writable
from .int_args import integer


def _dims(ndim: int, dim1: int, dim2: int) -> tuple[int, int]:
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


class DiagonalBackwardBackward0(Node):
    """`_onto_diagonal` recorded: its gradient reads the diagonal back."""

    jvp = tangents.linear(
        lambda node, out, t: _onto_diagonal(
            t, tuple(out._data.shape), node.offset, node.dim1, node.dim2
        )
    )

    def backward(self, gg):
        return (_diagonal_of(gg, self.offset, self.dim1, self.dim2),)


def _onto_diagonal(g: Any, shape: tuple, offset: int, dim1: int, dim2: int) -> Any:
    """Zeros of `shape` with g on their diagonal (g's last dim along it, as `diagonal` reads
    it), copied in place by place, so -0.0 and inf stay as they arrived."""
    data = np.zeros(shape, dtype=formula.data(g).dtype)
    writable(np.diagonal(data, offset, dim1, dim2))[...] = formula.data(g)
    kw = dict(offset=offset, dim1=dim1, dim2=dim2)
    return formula.result(DiagonalBackwardBackward0, data, (g,), **kw)


class DiagonalBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: diagonal(t, node.offset, node.dim1, node.dim2))

    def backward(self, g):
        return (_onto_diagonal(g, self.self_sym_sizes, self.offset, self.dim1, self.dim2),)


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:  # noqa: A002
    """The diagonal of the (dim1, dim2) planes, as the last dim: a view, as in PyTorch (above
    the main diagonal for offset > 0, counted along dim2)."""
    offset = integer(offset, "diagonal", "offset", 1)
    d1, d2 = _dims(input.ndim, dim1, dim2)
    data = np.diagonal(input._data, offset, d1, d2)
    kw = dict(self_sym_sizes=tuple(input.shape), offset=offset, dim1=d1, dim2=d2)
    return mark_view(record(DiagonalBackward0, data, (input,), **kw), input)


def _diagonal_of(g: Any, offset: int, dim1: int, dim2: int) -> Any:
    """A formula's diagonal: the recorded view on Tensors, a fresh copy on arrays (a gradient
    the engine may keep as .grad must own its memory)."""
    if isinstance(g, Tensor):
        return diagonal(g, offset, dim1, dim2)
    return np.diagonal(g, offset, dim1, dim2).copy()


class DiagonalBackward0_copy(DiagonalBackward0):  # noqa: N801 - PyTorch's name for diag(matrix)
    jvp = tangents.linear(lambda node, out, t: diag(t, node.offset))


class DiagEmbedBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: _embed(t, node.offset, node.dim1, node.dim2))

    def backward(self, g):
        return (_diagonal_of(g, self.offset, self.dim1, self.dim2),)


def _embed(a: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
    """A new tensor, zero but for a's last dim along the diagonal of its (dim1, dim2) planes."""
    d1, d2 = _dims(a.ndim + 1, dim1, dim2)
    size = a.shape[-1] + abs(offset)  # (a 0-d `a` was refused: no dims to wrap)
    batch = list(a.shape[:-1])
    for d in sorted((d1, d2)):
        batch.insert(d, size)
    data = np.zeros(batch, dtype=a._data.dtype)
    writable(np.diagonal(data, offset, d1, d2))[...] = a._data
    return record(DiagEmbedBackward0, data, (a,), offset=offset, dim1=d1, dim2=d2)


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:  # noqa: A002
    return _embed(input, integer(offset, "diag_embed", "offset", 2), dim1, dim2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:  # noqa: A002
    """A vector: the square matrix with it on the `diagonal`-th diagonal (DiagEmbedBackward0);
    a matrix: a copy of that diagonal (PyTorch's diagonal_copy)."""
    offset = integer(diagonal, "diag", "diagonal", 2)
    if input.ndim == 1:
        return _embed(input, offset, 0, 1)
    if input.ndim != 2:
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    data = np.diagonal(input._data, offset).copy()
    kw = dict(self_sym_sizes=tuple(input.shape), offset=offset, dim1=0, dim2=1)
    return record(DiagonalBackward0_copy, data, (input,), **kw)


class TraceBackward0(Node):
    """The gradient, one number, on the main diagonal."""

    jvp = tangents.linear(lambda node, out, t: trace(t))

    def backward(self, g):
        shape = self.self_sym_sizes
        along = formula.expand(g, (min(shape),))
        return (_onto_diagonal(along, shape, 0, 0, 1),)


def trace(input: Tensor) -> Tensor:  # noqa: A002
    """The sum of a matrix's main diagonal; integers sum in int64, as PyTorch's sum does."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    x = input._data
    if x.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.int64)
    data = np.asarray(np.trace(x, dtype=dtype))
    return record(TraceBackward0, data, (input,), self_sym_sizes=tuple(input.shape))
