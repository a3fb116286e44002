"""Matrix products, named as PyTorch names them (DotBackward0, MvBackward0, MmBackward0...)."""

from __future__ import annotations

import numpy as np

from ..autograd.graph import Node
from ..tensor import Tensor
from ._record import operands, record


def _check_float(arrays, name: str) -> None:
    a, b = arrays
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_scalar(a.dtype)} != {_scalar(b.dtype)}")


def _scalar(np_dtype) -> str:
    from ..dtypes import SCALAR_NAMES, from_numpy_dtype

    return SCALAR_NAMES[from_numpy_dtype(np_dtype).name].lower()


class DotBackward0(Node):
    def backward(self, g):
        return g * self.saved("tensor"), g * self.saved("self")


class MvBackward0(Node):
    def backward(self, g):
        m, v = self.saved("self"), self.saved("vec")
        return g.unsqueeze(1) * v.unsqueeze(0), m.t().mv(g)


class MmBackward0(Node):
    def backward(self, g):
        a, b = self.saved("self"), self.saved("mat2")
        ga = g.mm(b.t()) if self.next_functions[0][0] is not None else None
        gb = a.t().mm(g) if self.next_functions[1][0] is not None else None
        return ga, gb


class BmmBackward0(Node):
    """Batched (broadcast) matmul of ≥3-d operands; the engine sums broadcast batch dims."""

    def backward(self, g):
        a, b = self.saved("self"), self.saved("mat2")
        return g.matmul(b.transpose(-1, -2)), a.transpose(-1, -2).matmul(g)


def _mismatch(a: np.ndarray, b: np.ndarray) -> RuntimeError:
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and "
                        f"{b.shape[0]}x{b.shape[1]})")


def dot(a: Tensor, b: Tensor) -> Tensor:
    (ta, tb), (x, y), _ = operands(a, b)
    if x.ndim != 1 or y.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
    if x.shape != y.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src "
                           f"[{y.shape[0]}] to have the same number of elements, but got "
                           f"{x.shape[0]} and {y.shape[0]} elements respectively")
    return record(DotBackward0, np.asarray(x @ y), (ta, tb), save={"self": ta, "tensor": tb})


def mv(a: Tensor, b: Tensor) -> Tensor:
    (ta, tb), (x, y), _ = operands(a, b)
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({x.shape[0]}), mat ({x.shape[0]}x"
                           f"{x.shape[1]}), vec ({y.shape[0]})")
    return record(MvBackward0, x @ y, (ta, tb), save={"self": ta, "vec": tb})


def mm(a: Tensor, b: Tensor) -> Tensor:
    (ta, tb), (x, y), _ = operands(a, b)
    if x.ndim != 2 or y.ndim != 2:
        raise RuntimeError(f"self must be a matrix" if x.ndim != 2 else "mat2 must be a matrix")
    if x.shape[1] != y.shape[0]:
        raise _mismatch(x, y)
    return record(MmBackward0, x @ y, (ta, tb), save={"self": ta, "mat2": tb})


def matmul(a: Tensor, b: Tensor) -> Tensor:
    if a.ndim == 0 or b.ndim == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a.ndim}D and {b.ndim}D")
    if a.ndim == 1 and b.ndim == 1:
        return dot(a, b)
    if a.ndim == 2 and b.ndim == 2:
        return mm(a, b)
    if a.ndim == 2 and b.ndim == 1:
        return mv(a, b)
    if a.ndim == 1:
        return matmul(a.unsqueeze(0), b).squeeze(-2)
    if b.ndim == 1:
        return matmul(a, b.unsqueeze(-1)).squeeze(-1)
    (ta, tb), (x, y), _ = operands(a, b)
    if x.shape[-1] != y.shape[-2]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{y.shape[0]}, {x.shape[-1]}] but got: [{y.shape[0]}, {y.shape[-2]}].")
    return record(BmmBackward0, np.matmul(x, y), (ta, tb), save={"self": ta, "mat2": tb})


class AddmmBackward0(Node):
    def backward(self, g):
        m1, m2 = self.saved("mat1"), self.saved("mat2")
        g1 = g.mm(m2.t()) if self.next_functions[1][0] is not None else None
        g2 = m1.t().mm(g) if self.next_functions[2][0] is not None else None
        return g, g1, g2


def addmm(bias: Tensor, m1: Tensor, m2: Tensor) -> Tensor:
    (tb, t1, t2), (b, x, y), _ = operands(bias, m1, m2)
    if x.shape[1] != y.shape[0]:
        raise _mismatch(x, y)
    return record(AddmmBackward0, x @ y + b, (tb, t1, t2), save={"mat1": t1, "mat2": t2})
