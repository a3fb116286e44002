"""det, inv and solve of (batches of) square matrices, with PyTorch's checks and its
LinAlgError for singular input (found as LAPACK's LU finds it: the first exactly-zero pivot of
an LU factorisation with partial pivoting, numbered from 1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import record
from .reduction import through_gradient
from .shape import broadcast_shapes


class LinAlgError(RuntimeError):
    """torch.linalg.LinAlgError: a RuntimeError; PyTorch's class is named _LinAlgError."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"


def _check_square(name: str, a: Tensor, what: str = "A") -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    if a.dtype.category < 2:
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. "
            f"Got {dtypes.SCALAR_NAMES[a.dtype.name]}"
        )
    rows, cols = a.shape[-2:]
    if rows != cols:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {rows} by {cols} matrices"
        )


def _lu(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LU with partial pivoting of each matrix of a batch (b, n, n), as LAPACK's getf2 runs it:
    the pivot is the first largest |value| (a NaN wins only in first place, as idamax has it),
    a zero pivot leaves its column unscaled. Returns LU, the row order, and for each matrix the
    first zero pivot (1-based) or 0; the count of row swaps' parity is `order`'s."""
    lu = x.copy()
    b, n = len(lu), lu.shape[-1]
    order = np.tile(np.arange(n), (b, 1))
    found = np.zeros(b, np.int64)
    rows = np.arange(b)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(n):
            mags = np.abs(lu[:, j:, j])
            first_nan = np.isnan(mags[:, 0])
            p = j + np.where(first_nan, 0, np.argmax(np.where(np.isnan(mags), -1, mags), axis=1))
            lu[rows, j], lu[rows, p] = lu[rows, p], lu[rows, j].copy()
            order[rows, j], order[rows, p] = order[rows, p], order[rows, j].copy()
            pivot = lu[:, j, j]
            zero = pivot == 0
            found = np.where(zero & (found == 0), j + 1, found)
            scale = np.where(zero, 1, 1 / np.where(zero, 1, pivot))
            lu[:, j + 1 :, j] *= scale[:, None]
            lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return lu, order, found


def _parity(order: np.ndarray) -> np.ndarray:
    """+1 or -1 per row order: the sign of the permutation (from its cycles' lengths)."""
    n = order.shape[-1]
    sign = np.ones(len(order))
    seen = np.zeros(order.shape, bool)
    for start in range(n):
        length = np.zeros(len(order), np.int64)
        at = np.full(len(order), start)
        fresh = ~seen[np.arange(len(order)), at]
        while fresh.any():
            seen[np.arange(len(order))[fresh], at[fresh]] = True
            length += fresh
            at = np.where(fresh, order[np.arange(len(order)), at], at)
            fresh = fresh & ~seen[np.arange(len(order)), at]
        sign *= np.where(length > 0, (-1.0) ** (length - 1), 1)
    return sign


def zero_pivots(x: np.ndarray) -> np.ndarray:
    """For each matrix of the batch, the first pivot (1-based) that LU finds exactly zero."""
    n = x.shape[-1]
    return _lu(x.reshape(-1, n, n))[2]


def lu_solve(a: np.ndarray, b: np.ndarray, adjoint: bool = False) -> np.ndarray:
    """A X = B (A^T X = B with `adjoint`, from A's own LU, as PyTorch's backward solves) for
    batches of one batch shape, columns in B's last dim: LU, then LAPACK's substitutions (the
    column sweeps of trsm, which skip a zero entry; the adjoint's row sweeps). Never raises: a
    singular A gives inf and NaN."""
    if not a.size or not b.size:
        return np.zeros(b.shape, b.dtype)
    n = a.shape[-1]
    batch = a.shape[:-2]
    lu, order, _ = _lu(a.reshape(-1, n, n))
    x = b.reshape(-1, n, b.shape[-1]).copy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if adjoint:  # U^T z = B, then L^T y = z, then x = y in A's row order
            for i in range(n):
                x[:, i] -= np.einsum("bk,bkj->bj", lu[:, :i, i], x[:, :i])
                x[:, i] /= lu[:, i, i, None]
            for i in reversed(range(n)):
                x[:, i] -= np.einsum("bk,bkj->bj", lu[:, i + 1 :, i], x[:, i + 1 :])
            out = np.empty_like(x)
            np.put_along_axis(out, order[:, :, None], x, axis=1)
            return out.reshape(batch + b.shape[-2:])
        x = np.take_along_axis(x, order[:, :, None], axis=1)
        for k in range(n):  # L (unit diagonal), downwards
            bk = x[:, k : k + 1]
            x[:, k + 1 :] -= np.where(bk != 0, bk * lu[:, k + 1 :, k, None], 0)
        for k in reversed(range(n)):  # U, upwards
            bk = x[:, k : k + 1]
            bk = np.where(bk != 0, bk / lu[:, k, k, None, None], bk)
            x[:, k : k + 1] = bk
            x[:, :k] -= np.where(bk != 0, bk * lu[:, :k, k, None], 0)
    return x.reshape(batch + b.shape[-2:])


def _refuse_singular(name: str, x: np.ndarray, message) -> None:
    if not x.size:
        return
    pivots = zero_pivots(x)
    bad = np.flatnonzero(pivots)
    if bad.size:
        batch = f"(Batch element {bad[0]}): " if x.ndim > 2 else ""
        raise LinAlgError(f"{name}: {batch}{message(int(pivots[bad[0]]))}")


def _mT(x: Any) -> Any:  # noqa: N802
    return formula.transpose(x, -1, -2)


# --- det -----------------------------------------------------------------------------------
class LinalgDetBackward0(Node):
    """(g det) A^-T, with A^-T solved from A's LU; 0 * g for a singular matrix (PyTorch's
    value there, NaN when g is); g itself for a 1x1 matrix."""

    # det * trace(A^-1 T): the gradient's factor times the tangent, summed (0 where singular)
    jvp = tangents.linear(lambda node, out, t: through_gradient(node, out, t, (-2, -1), False))

    def backward(self, g):
        a, det = self.saved("A"), self.saved("result")
        x = formula.data(a)
        n = x.shape[-1]
        scale = formula.unsqueeze(formula.unsqueeze(g * det, -1), -1)
        if not x.size:
            return (formula.zeros_like(a),)
        if n == 1:
            return (formula.unsqueeze(formula.unsqueeze(g, -1), -1) + formula.zeros_like(a),)
        singular = formula.data(det) == 0
        eye = np.eye(n, dtype=x.dtype)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if not singular.any():
                return (_solve_arrays_or_tensors(a, scale * eye, adjoint=True),)
            safe = np.where(singular[..., None, None], eye, x)
            solved = lu_solve(safe, formula.data(scale) * eye, adjoint=True)
            kept = np.where(singular[..., None, None], 0, solved).astype(x.dtype)
            return (formula.unsqueeze(formula.unsqueeze(g, -1), -1) * kept,)


def det(a: Tensor) -> Tensor:
    _check_square("linalg.det", a)
    x = a._data
    data = np.ones(x.shape[:-2], x.dtype)
    if x.size:  # the product of U's diagonal, signed by the row order's parity (as PyTorch's)
        n = x.shape[-1]
        lu, order, _ = _lu(x.reshape(-1, n, n))
        diagonal = np.diagonal(lu, axis1=-2, axis2=-1)
        with np.errstate(over="ignore", invalid="ignore"):
            data = (np.prod(diagonal, axis=-1) * _parity(order)).reshape(x.shape[:-2])
    data = np.asarray(data, dtype=x.dtype)
    return record(LinalgDetBackward0, data, (a,), save={"A": a}, save_result=True)


# --- inv -----------------------------------------------------------------------------------
class LinalgInvExBackward0(Node):
    """-A^-T g A^-T, from the inverse the forward returned."""

    def jvp(self, out, tangents):
        return -(out @ tangents[0] @ out)

    def backward(self, g):
        r = _mT(self.saved("result"))
        return (-(r @ g @ r),)


def _inverse(x: np.ndarray) -> np.ndarray:
    return lu_solve(x, np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape))


def inv(a: Tensor) -> Tensor:
    _check_square("linalg.inv", a)
    _refuse_singular(
        "linalg.inv",
        a._data,
        lambda k: (
            f"The diagonal element {k} is zero, the inversion could not be completed "
            "because the input matrix is singular."
        ),
    )
    return record(LinalgInvExBackward0, _inverse(a._data), (a,), save_result=True)


# --- solve ---------------------------------------------------------------------------------
class LinalgSolveExBackward0(Node):
    """X = A^-1 B: B's gradient is A^-T g, A's is -(B's gradient) X^T (for left=False, the
    same on the transposed system). Vectors are columns."""

    def jvp(self, out, tangents):
        """A T_X = T_B - T_A X (T_X A = T_B - X T_A for left=False), solved with A."""
        a, x = self.saved("A"), self.saved("result")
        t_a, rhs = tangents
        if t_a is not None:
            if not self.left:
                change = x @ t_a
            elif self.vector:
                change = (t_a @ x.unsqueeze(-1)).squeeze(-1)
            else:
                change = t_a @ x
            rhs = -change if rhs is None else rhs - change
        return solve(a, rhs, left=self.left)

    def backward(self, g):
        a, x = self.saved("A"), self.saved("result")
        if not self.left:  # X A = B is A^T X^T = B^T (B is never a vector then)
            x, g = _mT(x), _mT(g)
        if self.vector:
            x, g = formula.unsqueeze(x, -1), formula.unsqueeze(g, -1)
        gb = _solve_arrays_or_tensors(a, g, adjoint=self.left)
        ga = -(gb @ _mT(x)) if self.next_functions[0][0] else None
        if self.vector:
            gb = formula.squeeze(gb, -1)
        if not self.left:
            ga, gb = (None if t is None else _mT(t) for t in (ga, gb))
        return ga, gb if self.next_functions[1][0] else None


def _solve_arrays_or_tensors(a: Any, b: Any, adjoint: bool = False) -> Any:
    """A X = B (A^T X = B with `adjoint`) for matrices B: recorded (solve) on Tensors,
    lu_solve's numbers on arrays."""
    if isinstance(a, Tensor):
        b = b if isinstance(b, Tensor) else Tensor._wrap(np.ascontiguousarray(b))
        return solve(_mT(a) if adjoint else a, b)
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    return lu_solve(a, b, adjoint)


def _is_vector(a: Tensor, b: Tensor) -> bool:
    """PyTorch's rule: B is a (batch of) vector(s) when 1-D, or one dim short of A with A's
    batch shape."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and tuple(b.shape) == tuple(a.shape[:-1]))


def solve(a: Tensor, b: Tensor, *, left: bool = True) -> Tensor:
    _check_square("linalg.solve", a)
    if a.dtype is not b.dtype:
        raise RuntimeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{dtypes.SCALAR_NAMES[a.dtype.name]} and B of type "
            f"{dtypes.SCALAR_NAMES[b.dtype.name]} instead"
        )
    vector = _is_vector(a, b)
    x, y = a._data, b._data
    column = y[..., None] if vector else y
    n = x.shape[-1]
    if column.shape[-1 if not left else -2] != n or (vector and not left):
        rows, cols = column.shape[-2:]
        raise RuntimeError(
            "linalg.solve: Incompatible shapes of A and B for the equation "
            f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {rows}x{cols})"
        )
    if not left:  # A^T X^T = B^T, from A's own LU
        column = np.swapaxes(column, -1, -2)
    batch = broadcast_shapes(x.shape[:-2], column.shape[:-2])
    x = np.broadcast_to(x, batch + (n, n))
    column = np.broadcast_to(column, batch + column.shape[-2:])
    _refuse_singular(
        "torch.linalg.solve",
        x,
        lambda _: "The solver failed because the input matrix is singular.",
    )
    data = _solve_arrays_or_tensors(x, column, adjoint=not left)
    if vector:
        data = data[..., 0]
    elif not left:
        data = np.swapaxes(data, -1, -2)
    data = np.ascontiguousarray(data)
    attrs = {"left": left, "vector": vector}
    return record(LinalgSolveExBackward0, data, (a, b), save={"A": a}, save_result=True, **attrs)
