"""Matrix products, named as PyTorch names them (DotBackward0, MvBackward0, MmBackward0...).

matmul is built from dot/mv/mm/bmm and views exactly as PyTorch's _matmul_impl builds it, so the
graph (grad_fn names, views, copies) is the one PyTorch records.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core import autocast, dtypes
from ..core.dtypes import SCALAR_NAMES
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import argument_error, record
from .elementwise import mul
from .shape import SqueezeBackward4, broadcast_shapes, expand, reshape, unsafe_view


def _scalar(t: Tensor) -> str:
    return SCALAR_NAMES[t.dtype.name]


def _no_bool(t: Tensor, kernel: str, *operands: np.ndarray) -> None:
    """PyTorch has no bool kernel; one that `operands` leave nothing to multiply (an empty
    operand: an empty result, or zeros) is never reached."""
    if t._data.dtype == np.bool_ and all(x.size for x in operands):
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _saves(names: tuple[str, str], a: Tensor, b: Tensor, first: int = 0) -> dict:
    """Each operand saved only for the other one's gradient (`record`'s save_for); `first`:
    where the two operands start among the op's inputs (addmm's bias comes before them)."""
    return {names[0]: (a, first + 1), names[1]: (b, first)}


def _needs(node: Node, i: int) -> bool:
    return node.next_functions[i][0] is not None


def _check_mm(x: np.ndarray, y: np.ndarray) -> None:
    if x.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if y.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} "
            f"and {y.shape[0]}x{y.shape[1]})"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: "
            f"{dtypes.C_NAMES[x.dtype.name]} != {dtypes.C_NAMES[y.dtype.name]}"
        )


def _product_tangent(node: Node, tangents: list, product, first: str, second: str, at: int = 0):
    """A bilinear product's tangent: product(t1, second) + product(first, t2), the operands
    inputs `at` and `at + 1`. An operand without a tangent takes zeros, multiplied as PyTorch
    multiplies them (0 times an inf in the other operand is NaN)."""
    t1, t2 = (formula.tangent_or_zeros(node, tangents, i) for i in (at, at + 1))
    return product(t1, node.saved(second)) + product(node.saved(first), t2)


class DotBackward0(Node):
    def jvp(self, out, tangents):
        return _product_tangent(self, tangents, dot, "self", "tensor")

    def backward(self, g):
        return (
            g * self.saved("tensor") if _needs(self, 0) else None,
            g * self.saved("self") if _needs(self, 1) else None,
        )


def dot(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found "
            f"{_scalar(a)} and {_scalar(b)}"
        )
    _no_bool(a, "dot")
    if a.shape != b.shape:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
            f"[{b.shape[0]}] to have the same number of elements, but got "
            f"{a.shape[0]} and {b.shape[0]} elements respectively"
        )
    return record(
        DotBackward0,
        np.asarray(a._data @ b._data),
        (a, b),
        save_for=_saves(("self", "tensor"), a, b),
    )


class MvBackward0(Node):
    def jvp(self, out, tangents):
        return _product_tangent(self, tangents, mv, "self", "vec")

    def backward(self, g):
        vec = self.saved("vec")
        ga = formula.unsqueeze(g, 1) * formula.unsqueeze(vec, 0) if _needs(self, 0) else None
        gb = formula.mv(formula.t(self.saved("self")), g) if _needs(self, 1) else None
        return ga, gb


def mv(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {a.ndim}, {b.ndim}")
    if a.dtype is not b.dtype:
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {_scalar(b)}, "
            f"{_scalar(a)}, and {_scalar(b)}"
        )
    _no_bool(a, "addmv_impl_cpu", a._data, b._data)
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a.shape[0]}), mat ({a.shape[0]}x"
            f"{a.shape[1]}), vec ({b.shape[0]})"
        )
    return record(MvBackward0, a._data @ b._data, (a, b), save_for=_saves(("self", "vec"), a, b))


def _mat1_grad(g: Any, mat2: Any, column_major: bool) -> Any:
    """PyTorch's mm_mat1_backward: g @ mat2^T, computed transposed for a column-major mat1 so
    that the gradient comes out laid out as mat1 was."""
    if column_major:
        return formula.t(formula.mm(mat2, formula.t(g)))
    return formula.mm(g, formula.t(mat2))


def _mat2_grad(g: Any, mat1: Any, column_major: bool) -> Any:
    """PyTorch's mm_mat2_backward: mat1^T @ g, likewise in mat2's layout."""
    if column_major:
        return formula.t(formula.mm(formula.t(g), mat1))
    return formula.mm(formula.t(mat1), g)


class MmBackward0(Node):
    column_major = (False, False)  # (set on the node when an operand is)

    def jvp(self, out, tangents):
        return _product_tangent(self, tangents, mm, "self", "mat2")

    def backward(self, g):
        major = self.column_major
        ga = _mat1_grad(g, self.saved("mat2"), major[0]) if _needs(self, 0) else None
        gb = _mat2_grad(g, self.saved("self"), major[1]) if _needs(self, 1) else None
        return ga, gb


def _majors(x: np.ndarray, y: np.ndarray) -> dict:
    """`column_major` for the node, when an operand is (as nn.Linear's weight.t() is):
    PyTorch's test is strides (1, rows); numpy's flags say the same of a matrix, and of a
    single row or column only what its size-1 dim's stride would change, which nothing reads."""
    fx, fy = x.flags, y.flags
    major = (fx.f_contiguous and not fx.c_contiguous, fy.f_contiguous and not fy.c_contiguous)
    return {"column_major": major} if major[0] or major[1] else {}


def mm(a: Tensor, b: Tensor) -> Tensor:
    if autocast.cpu_on:
        a, b = autocast.lower(a, b)
    _check_mm(a._data, b._data)
    _no_bool(a, "addmm_impl_cpu_", a._data, b._data)
    x, y = a._data, b._data
    save = _saves(("self", "mat2"), a, b)
    return record(MmBackward0, x @ y, (a, b), save_for=save, **_majors(x, y))


class BmmBackward0(Node):
    """g @ mat2^T and self^T @ g, batch by batch (recorded as bmm and transpose)."""

    def jvp(self, out, tangents):
        return _product_tangent(self, tangents, bmm, "self", "mat2")

    def backward(self, g):
        m2 = self.saved("mat2") if _needs(self, 0) else None
        m1 = self.saved("self") if _needs(self, 1) else None
        ga = None if m2 is None else formula.bmm(g, formula.transpose(m2, 1, 2))
        gb = None if m1 is None else formula.bmm(formula.transpose(m1, 1, 2), g)
        return ga, gb


def bmm(a: Tensor, b: Tensor) -> Tensor:
    """With nothing to multiply (an empty operand), PyTorch returns zeros before it checks the
    dtypes (or bool): of mat2's dtype, whatever a's is."""
    if autocast.cpu_on:
        a, b = autocast.lower(a, b)
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"batch{1 if a.ndim != 3 else 2} must be a 3D tensor")
    x, y = a._data, b._data
    if y.shape[:2] != (x.shape[0], x.shape[2]):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: "
            f"[{x.shape[0]}, {x.shape[2]}] but got: [{y.shape[0]}, {y.shape[1]}]."
        )
    if not (x.size and y.size):
        data = np.zeros((x.shape[0], x.shape[1], y.shape[2]), y.dtype)
    else:
        if a.dtype is not b.dtype:
            raise RuntimeError(f"expected scalar type {_scalar(a)} but found {_scalar(b)}")
        _no_bool(a, "bmm")
        data = np.matmul(x, y)
    return record(BmmBackward0, data, (a, b), save_for=_saves(("self", "mat2"), a, b))


def _squeezed(out: Tensor) -> Tensor:
    """PyTorch squeezes mm's fresh (1, n) output in place (squeeze_(0), SqueezeBackward4), which
    counts a version."""
    result = record(SqueezeBackward4, out._data[0], (out,), dim=0)
    result._version_counter.value = 1
    return result


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's should_fold: multiply the ≥3-d operand as one matrix (mm/mv) instead of bmm
    when the other operand requires grad, or when folding needs no copy."""
    a_larger = a.ndim >= b.ndim
    big = a._data if a_larger else np.swapaxes(b._data, -1, -2)
    small = b if a_larger else a
    if not (big.ndim >= 3 and small.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if a.ndim == 2:
        return False
    if big.size == 0:
        return True
    return all(big.strides[i] == big.strides[i + 1] * big.shape[i + 1] for i in range(big.ndim - 2))


def _folded(a: Tensor, b: Tensor) -> Tensor:
    transpose = b.ndim > a.ndim
    t1 = b.mT if transpose else a
    t2 = (a.t() if a.ndim == 2 else a) if transpose else b
    out_shape = tuple(t1.shape[:-1])
    t1_folded = t1.reshape(math.prod(out_shape), t1.shape[-1])
    if t2.ndim == 1:
        return unsafe_view(t1_folded.mv(t2), out_shape)
    out = unsafe_view(t1_folded.mm(t2), out_shape + (t2.shape[1],))
    return out.mT.contiguous() if transpose else out


def _batched(a: Tensor, b: Tensor) -> Tensor:
    sa, sb = a._data.shape, b._data.shape
    da, db = len(sa), len(sb)
    if da == 3 and db == 3 and sa[0] != sb[0]:
        if sa[0] == 1 and a.requires_grad:
            return matmul(a.squeeze(0), b)
        if sb[0] == 1 and b.requires_grad:
            return matmul(a, b.squeeze(0))
    n, m1 = (sa[-2] if da > 1 else 1), sa[-1]
    m2, p = (sb[-2] if db > 1 else sb[0]), (sb[-1] if db > 1 else 1)
    batch = broadcast_shapes(sa[: max(da - 2, 0)], sb[: max(db - 2, 0)])
    count = math.prod(batch)
    left = a.expand(batch + (n, m1)).reshape(count, n, m1)
    if db == 1:
        right = b.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
    else:
        right = b.expand(batch + (m2, p)).reshape(count, m2, p)
    out_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    out = bmm(left, right)
    return unsafe_view(out.squeeze(-1) if db == 1 else out, out_shape)


def matmul(a: Tensor, b: Tensor) -> Tensor:
    if autocast.cpu_on:
        a, b = autocast.lower(a, b)
    dims = (a._data.ndim, b._data.ndim)
    if 0 in dims:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {a.ndim}D and {b.ndim}D"
        )
    if dims == (1, 1):
        return dot(a, b)
    if dims == (2, 1):
        return mv(a, b)
    if dims == (1, 2):
        return _squeezed(mm(a.unsqueeze(0), b))
    if dims == (2, 2):
        return mm(a, b)
    return _folded(a, b) if _should_fold(a, b) else _batched(a, b)


class AddmmBackward0(Node):
    """PyTorch's addmm gradients: g * beta for the bias (summed back to its shape by the
    engine; beta = 0 still multiplies, so an inf or NaN there gives NaN), alpha * (g @ mat2^T)
    and alpha * (mat1^T @ g) for the matrices."""

    beta = alpha = 1  # (nn.Linear's; other values are set on the node)
    column_major = (False, False)

    def jvp(self, out, tangents):
        """beta * bias's tangent + alpha * the product's (each multiplied unless 1, as
        PyTorch's maybe_multiply: a zero beta still multiplies)."""
        total = _product_tangent(self, tangents, mm, "mat1", "mat2", at=1)
        if self.alpha != 1:
            total = total * self.alpha
        bias = formula.tangent_or_zeros(self, tangents, 0)
        return (bias if self.beta == 1 else bias * self.beta) + total

    def backward(self, g):
        m1, m2, alpha, major = self.saved("mat1"), self.saved("mat2"), self.alpha, self.column_major
        gb = (g if self.beta == 1 else g * self.beta) if _needs(self, 0) else None
        g1 = _mat1_grad(g, m2, major[0]) if _needs(self, 1) else None
        g2 = _mat2_grad(g, m1, major[1]) if _needs(self, 2) else None
        if alpha != 1:
            g1, g2 = (None if t is None else t * alpha for t in (g1, g2))
        return gb, g1, g2


def _check_addmm(bias: Tensor, m1: Tensor, m2: Tensor) -> None:
    """PyTorch's order: both matrices 2-D, the dtypes (bias with mat2, then mat1 with mat2),
    then the shapes. The usual case (nn.Linear's) is settled on the arrays in one test."""
    x, y = m1._data, m2._data
    if x.ndim == y.ndim == 2 and x.dtype == y.dtype == bias._data.dtype:
        if x.shape[1] == y.shape[0]:
            return
    for name, m in (("mat1", m1), ("mat2", m2)):
        if m.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {m.ndim}-D tensor")
    for name, t in (("self", bias), ("mat1", m1)):
        if t.dtype is not m2.dtype:
            raise RuntimeError(
                f"{name} and mat2 must have the same dtype, but got {_scalar(t)} and {_scalar(m2)}"
            )
    (n, k), (k2, p) = m1.shape, m2.shape
    if k != k2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({n}x{k} and {k2}x{p})")


def _expands_to(shape: tuple, target: tuple) -> bool:
    """Whether a bias of `shape` broadcasts to the (n, p) result without growing it."""
    return len(shape) <= 2 and all(a in (1, t) for a, t in zip(shape[::-1], target[::-1]))


def _check_scale_in_place(beta: Any, dtype: dtypes.dtype) -> None:
    """With nothing to multiply, PyTorch's addmm is the bias scaled in place (result.mul_(beta)):
    a beta of a higher kind than the result (1 for bool, 0.5 for int) cannot be cast to it."""
    kind = 0 if isinstance(beta, bool) else 1 if isinstance(beta, int) else 2
    if kind > dtype.category:
        raise RuntimeError(
            f"result type {('Bool', 'Long', 'Float')[kind]} can't be cast to the desired output "
            f"type {SCALAR_NAMES[dtype.name]}"
        )


def addmm(bias: Tensor, m1: Tensor, m2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
    """beta * bias + alpha * (m1 @ m2), as PyTorch's gemm computes it: a zero beta ignores the
    bias (NaN included), a zero alpha the product; integer results truncate beta and alpha."""
    if autocast.cpu_on:
        bias, m1, m2 = autocast.lower(bias, m1, m2)
    _check_addmm(bias, m1, m2)
    x, y, b = m1._data, m2._data, bias._data
    shape = (x.shape[0], y.shape[1])
    if b.shape not in (shape, shape[1:]) and not _expands_to(b.shape, shape):  # (broadcast_to: 3us)
        expand(bias.detach(), *shape)  # raises PyTorch's error
    _no_bool(m1, "addmm_impl_cpu_", x, y)
    if not x.shape[1] and shape[0] * shape[1] and beta != 0:
        _check_scale_in_place(beta, m1.dtype)
    scalar = x.dtype.type  # beta and alpha in the result dtype
    save = _saves(("mat1", "mat2"), m1, m2, first=1)
    major = _majors(x, y)
    if alpha == 1 == beta:
        return record(AddmmBackward0, x @ y + b, (bias, m1, m2), save_for=save, **major)
    if alpha == 0:
        out = np.zeros(shape, x.dtype)
    else:
        out = x @ y if alpha == 1 else scalar(alpha) * (x @ y)
    if beta != 0:
        out = out + (b if beta == 1 else scalar(beta) * b)
    return record(
        AddmmBackward0, out, (bias, m1, m2), save_for=save, beta=beta, alpha=alpha, **major
    )


def outer(a: Tensor, b: Tensor) -> Tensor:
    """a's column times b's row, recorded as PyTorch records it: a view, then a multiply."""
    for name, position, t in (("input", 1, a), ("vec2", 2, b)):
        if not isinstance(t, Tensor):
            raise argument_error("outer", name, position, t)
    for name, t in (("self", a), ("vec2", b)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return mul(reshape(a, a.shape[0], 1), b)
