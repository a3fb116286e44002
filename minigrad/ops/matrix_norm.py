"""torch.linalg's norms: vector_norm (reduction.norm under its linalg name), matrix_norm and
norm, built as PyTorch builds them, so the graph ends in the node PyTorch shows: 'fro' is a
vector norm over the two dims (LinalgVectorNormBackward0); 1, -1, inf, -inf are the max/min of
the absolute column/row sums (AmaxBackward0/AminBackward0, ties sharing the gradient evenly);
2, -2 the max/min singular value and 'nuc' their sum (SumBackward1), from an svdvals node."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.node import Node
from ..core.tensor import Tensor
from . import elementwise as ew
from . import formula, tangents
from ._record import record
from .extremes import extreme
from .reduction import _dims, norm, sum
from .shape import permute, wrap_dims
from .solve import LinAlgError


def _require_float(name: str, a: Tensor) -> None:
    if not a.dtype.is_floating_point:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. "
            f"Got {dtypes.SCALAR_NAMES[a.dtype.name]}"
        )


def vector_norm(
    a: Tensor,
    ord: Any = 2,  # noqa: A002 - PyTorch's name
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    _require_float("linalg.vector_norm", a)
    return norm(a if dtype is None else a.to(dtype), ord, dim, keepdim)


# --- singular values -----------------------------------------------------------------------
class LinalgSvdBackward0(Node):
    """The singular values' gradient U diag(g) V^T, with U and V taken as constants (first
    order: right; a second derivative misses how U and V move)."""

    # s_k moves by u_k^T T v_k
    jvp = tangents.linear(
        lambda node, out, t: ((Tensor._wrap(node.u).mT @ t) * Tensor._wrap(node.vh)).sum(-1)
    )

    def backward(self, g):
        u, vh = self.u, self.vh
        scaled = formula.unsqueeze(g, -1) * vh
        return (u @ scaled if not isinstance(g, Tensor) else Tensor._wrap(u) @ scaled,)


def svdvals(a: Tensor) -> Tensor:
    x = a._data
    bad = np.flatnonzero(~np.isfinite(x).reshape(-1, *x.shape[-2:]).all(axis=(-2, -1)))
    if bad.size:
        batch = f"(Batch element {bad[0]}): " if x.ndim > 2 else ""
        raise LinAlgError(
            f"linalg.svd: {batch}The algorithm failed to converge because the input matrix "
            "contained non-finite values."
        )
    u, s, vh = np.linalg.svd(x, full_matrices=False)
    k = s.shape[-1]
    return record(LinalgSvdBackward0, s, (a,), u=u[..., :k], vh=vh[..., :k, :])


# --- matrix_norm / norm --------------------------------------------------------------------
def _to_last(a: Tensor, dims: tuple[int, int]) -> tuple[Tensor, list[int]]:
    order = [d for d in range(a.ndim) if d not in dims] + list(dims)
    return (a if order == list(range(a.ndim)) else permute(a, order)), order


def matrix_norm(
    a: Tensor,
    ord: Any = "fro",  # noqa: A002 - PyTorch's name
    dim: Any = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    if a.ndim < 2:
        raise RuntimeError(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."
        )
    _require_float("linalg.matrix_norm", a)
    if ord not in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if dtype is not None:
        a = a.to(dtype)
    rows, cols = wrap_dims(dim, a.ndim)
    if ord == "fro":
        return norm(a, 2, (rows, cols), keepdim)
    if not a._data.size:
        pair = (rows, cols)
        shape = tuple(
            1 if d in pair else s for d, s in enumerate(a.shape) if keepdim or d not in pair
        )
        return Tensor._wrap(np.zeros(shape, a._data.dtype))
    largest = ord in (1, 2, np.inf, "nuc")
    if ord in ("nuc", 2, -2):
        moved, order = _to_last(a, (rows, cols))
        values = svdvals(moved)
        if ord == "nuc":
            out = sum(values, -1)
        else:
            out = extreme(values, (values.ndim - 1,), False, largest)
        if keepdim:
            for d in sorted((rows, cols)):
                out = out.unsqueeze(d)
        return out
    summed, across = (rows, cols) if abs(ord) == 1 else (cols, rows)
    sums = sum(ew.abs(a), summed, keepdim=keepdim)
    across -= int(not keepdim and summed < across)
    return extreme(sums, (across,), keepdim, largest)


def linalg_norm(
    a: Tensor,
    ord: Any = None,  # noqa: A002 - PyTorch's name
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """torch.linalg.norm: a vector norm for 1-D input or one dim, a matrix norm for 2-D input
    or two dims (an `ord` then requires one of those), the 2-norm of everything otherwise."""
    if dim is not None:
        dims = _dims(dim, a.ndim) if not isinstance(dim, int) else (dim,)
        if len(dims) not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}"
            )
        if len(dims) == 2:
            return matrix_norm(a, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
        return vector_norm(a, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is not None:
        if a.ndim not in (1, 2):
            raise RuntimeError(
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                f"Got {a.ndim}D."
            )
        if a.ndim == 2:
            return matrix_norm(a, ord, (-2, -1), keepdim, dtype=dtype)
        if isinstance(ord, str):
            return matrix_norm(a, ord)  # raises PyTorch's error for 1-D input
    return vector_norm(a, 2 if ord is None else ord, None, keepdim, dtype=dtype)
