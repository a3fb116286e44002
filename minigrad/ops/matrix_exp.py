"""matrix_exp of (batches of) square matrices: scaling and squaring around a Padé approximant
(Higham, "The scaling and squaring method for the matrix exponential revisited", 2005), and
the gradient PyTorch computes, as a matrix_exp of a block matrix."""

from __future__ import annotations

import math

import numpy as np

from ..core.dtypes import SCALAR_NAMES
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import argument_error, record
from .indexing import _slice

# (degree m, the largest 1-norm at which the [m/m] approximant's backward error is still within
# the unit roundoff), from Higham's table: float32 needs degree 7 at most, float64 degree 13
_DEGREES = {
    np.dtype(np.float32): (
        (3, 4.258730016922831e-1),
        (5, 1.880152677804762),
        (7, 3.925724783138660),
    ),
    np.dtype(np.float64): (
        (3, 1.495585217958292e-2),
        (5, 2.539398330063230e-1),
        (7, 9.504178996162932e-1),
        (9, 2.097847961257068),
        (13, 5.371920351148152),
    ),
}


def _pade(a: np.ndarray, m: int) -> np.ndarray:
    """The [m/m] Padé approximant of exp at each matrix: (V - U)^-1 (V + U), where V holds its
    even powers and U its odd ones (m is odd)."""
    f = math.factorial
    b = [f(2 * m - j) * f(m) / (f(2 * m) * f(j) * f(m - j)) for j in range(m + 1)]
    square = a @ a
    power = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    u, v = np.zeros_like(a), np.zeros_like(a)
    for k in range(0, m, 2):  # power is A^k
        v += b[k] * power
        u += b[k + 1] * power
        if k + 2 < m:
            power = power @ square
    u = a @ u
    return np.linalg.solve(v - u, v + u)


def expm(x: np.ndarray) -> np.ndarray:
    """exp of each matrix in x (..., n, n), in x's dtype (half precision computed in float32).
    Each matrix is scaled by 2^-s to a 1-norm the approximant covers, then squared s times: a
    result past the dtype's range overflows to inf, then NaN where inf meets 0, as PyTorch's
    squarings do (though not always in the same places: its approximant is not this one); a
    matrix with an inf or NaN gives all NaN; a 1x1 matrix is exp of its number, as in PyTorch."""
    n = x.shape[-1]
    if n <= 1 or not x.size:
        with np.errstate(over="ignore"):
            return np.exp(x)
    work = np.float64 if x.dtype == np.float64 else np.float32
    a = x.reshape(-1, n, n).astype(work)  # (a copy)
    with np.errstate(over="ignore", invalid="ignore"):
        norm = np.abs(a).sum(-2, dtype=np.float64).max(-1)  # (float32 sums may overflow)
    bad = ~np.isfinite(norm)
    a[bad], norm[bad] = 0, 0
    degrees = _DEGREES[np.dtype(work)]
    top = degrees[-1][1]
    squarings = np.maximum(0, np.ceil(np.log2(np.maximum(norm, top) / top))).astype(np.int64)
    scale = np.exp2(squarings)  # (float64: 2^128 is past float32's range)
    a /= scale[:, None, None]
    largest = (norm / scale).max()
    m = next(m for m, theta in degrees if theta >= largest or theta == top)
    out = _pade(a, m)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(int(squarings.max())):
            more = squarings > i
            out[more] = out[more] @ out[more]
    out[bad] = np.nan
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _gradient_numbers(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    n = a.shape[-1]
    at = np.swapaxes(a, -1, -2)
    meta = np.zeros(np.broadcast_shapes(a.shape, g.shape)[:-2] + (2 * n, 2 * n), a.dtype)
    meta[..., :n, :n], meta[..., :n, n:], meta[..., n:, n:] = at, g, at
    return expm(meta)[..., :n, n:]


def _gradient_ops(a: Tensor, g: Tensor) -> Tensor:
    """The same block matrix, built as PyTorch builds it (zeros, then slice copies, then two
    narrows), recorded."""
    n = a.shape[-1]
    at = a.mT
    meta = at.new_zeros(*a.shape[:-2], 2 * n, 2 * n)
    meta[..., :n, :n] = at
    meta[..., :n, n:] = g
    meta[..., n:, n:] = at
    out = _matrix_exp(meta)
    rows = _slice(out, out.ndim - 2, slice(0, n), always=True)  # (narrow: sliced even if empty)
    return _slice(rows, out.ndim - 1, slice(n, 2 * n), always=True)


class LinalgMatrixExpBackward0(Node):
    """The derivative of exp at A in the direction G is the upper-right block of
    exp([[A^T, G], [0, A^T]]) (transposed, it is the gradient): one more matrix_exp, recorded
    under create_graph so that it differentiates again."""

    # the derivative itself: the upper-right block of exp([[A, T], [0, A]])
    jvp = tangents.linear(lambda node, out, t: _gradient_ops(node.saved("self").mT, t))

    def backward(self, g):
        a = self.saved("self")
        numbers = (formula.data(a), formula.data(g))
        return (
            formula.kernel_or_ops(
                (g, a), lambda: _gradient_numbers(*numbers), lambda: _gradient_ops(a, g)
            ),
        )


def _matrix_exp(a: Tensor) -> Tensor:
    """PyTorch's checks, in its order: dims, squareness, then dtype."""
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    rows, cols = a.shape[-2:]
    if rows != cols:
        raise RuntimeError(
            "linalg.matrix_exp: A must be batches of square matrices, but they are "
            f"{rows} by {cols} matrices"
        )
    if a.dtype.category < 2:
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input. "
            f"Got {SCALAR_NAMES[a.dtype.name]}"
        )
    data = np.ascontiguousarray(expm(a._data))
    return record(LinalgMatrixExpBackward0, data, (a,), save={"self": a})


def _named(name: str):
    """torch.matrix_exp and torch.linalg.matrix_exp: the same op, each naming itself in the
    TypeError for an input that is not a Tensor."""

    def matrix_exp(input: Tensor) -> Tensor:  # noqa: A002 - PyTorch's name
        if not isinstance(input, Tensor):
            raise argument_error(name, "input", 1, input)
        return _matrix_exp(input)

    matrix_exp.__name__ = name
    return matrix_exp


matrix_exp = _named("matrix_exp")
linalg_matrix_exp = _named("linalg_matrix_exp")
