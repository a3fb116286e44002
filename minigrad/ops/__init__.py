"""Every differentiable op, and the one place where they become Tensor methods and operators."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation
from ..core import dtypes
from ..core.device import check_cpu, device_of_to_args
from ..core.dtypes import dtype_of_to_args
from ..core.tensor import Tensor
from . import elementwise as ew
from . import index_add, indexing, inplace, linalg, nn, ordering, piecewise, reduction, shape, split
from ._record import as_tensor_like

# --- operators ---------------------------------------------------------------------------


def _rsub(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return ew.sub(other, self)
    return ew.rsub(self, other)


def _rdiv(self: Tensor, other: Any) -> Tensor:
    return ew.div(as_tensor_like(other) if not isinstance(other, (int, float)) else other, self)


def _no_grad_binary(op):
    """A comparison or logical operator: a numpy ufunc on the values, never differentiable."""

    def method(self: Tensor, other: Any) -> Tensor:
        o = other._data if isinstance(other, Tensor) else other
        return Tensor._wrap(np.asarray(op(self._data, o)))

    return method


def _inplace(fn):
    """`x.op_(...)`: the out-of-place op `fn` written back into x (ops/inplace.py)."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace.apply_inplace(self, fn, *args, **kwargs)

    return method


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    check_cpu(device_of_to_args(args, kwargs))
    target = dtype_of_to_args(args, kwargs)
    return shape.to_dtype(self, target) if target is not None else self


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """x.type() names the legacy tensor type ('torch.FloatTensor'); x.type(t) casts to t."""
    if dtype is None:
        return f"torch.{dtypes.LEGACY_NAMES[self.dtype.name]}"
    if isinstance(dtype, str):
        by_name = {f"torch.{legacy}": name for name, legacy in dtypes.LEGACY_NAMES.items()}
        if dtype not in by_name:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = getattr(dtypes, by_name[dtype] if by_name[dtype] != "bool" else "bool_")
    return shape.to_dtype(self, dtype)


def _equal(self: Tensor, other: Tensor) -> bool:
    """Same shape and the same values (a Python bool; dtypes may differ, as in PyTorch)."""
    return self.shape == other.shape and bool(np.array_equal(self._data, other._data))


def _max(self: Tensor, dim: Any = None, keepdim: bool = False):
    return reduction.max(self, dim, keepdim)


def _min(self: Tensor, dim: Any = None, keepdim: bool = False):
    return reduction.min(self, dim, keepdim)


def _bool_reduce(op):
    def method(self: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
        return Tensor._wrap(np.asarray(op(self._data, axis=dim, keepdims=keepdim)))

    return method


def _elementwise_test(op):
    def method(self: Tensor) -> Tensor:
        return Tensor._wrap(np.asarray(op(self._data)))

    return method


def _random_fill(self: Tensor, fill, *params: float) -> Tensor:
    """In-place random init: PyTorch's leaf check and version bump apply, as for add_."""
    inplace._check(self)
    return fill(self, *params)


def _new(kind):
    def method(self: Tensor, *size: Any, dtype=None, requires_grad: bool = False) -> Tensor:
        size = shape._shape_arg(size)
        np_dtype = (dtype or self.dtype).np
        data = np.zeros(size, np_dtype) if kind == "zeros" else np.ones(size, np_dtype)
        return Tensor._wrap(data, requires_grad)

    return method


METHODS = {
    # arithmetic and comparisons
    "__add__": ew.add,
    "__radd__": ew.add,
    "add": ew.add,
    "__sub__": ew.sub,
    "__rsub__": _rsub,
    "sub": ew.sub,
    "__mul__": ew.mul,
    "__rmul__": ew.mul,
    "mul": ew.mul,
    "__truediv__": ew.div,
    "__rtruediv__": _rdiv,
    "div": ew.div,
    "__pow__": ew.pow,
    "__rpow__": lambda self, other: ew.pow(other, self),
    "pow": ew.pow,
    "__neg__": ew.neg,
    "neg": ew.neg,
    "__matmul__": linalg.matmul,
    "__rmatmul__": lambda self, other: linalg.matmul(other, self),
    "matmul": linalg.matmul,
    "bmm": linalg.bmm,
    "sign": piecewise.sign,
    "round": piecewise.round,
    "floor": piecewise.floor,
    "ceil": piecewise.ceil,
    "trunc": piecewise.trunc,
    "argsort": piecewise.argsort,
    "sort": ordering.sort,
    "index_add": index_add.index_add,
    "index_add_": _inplace(index_add.index_add),
    "split": split.split,
    "chunk": split.chunk,
    "unbind": split.unbind,
    "mm": linalg.mm,
    "mv": linalg.mv,
    "dot": linalg.dot,
    "__gt__": _no_grad_binary(np.greater),
    "__lt__": _no_grad_binary(np.less),
    "__ge__": _no_grad_binary(np.greater_equal),
    "__le__": _no_grad_binary(np.less_equal),
    "__eq__": _no_grad_binary(np.equal),
    "__ne__": _no_grad_binary(np.not_equal),
    "__and__": _no_grad_binary(np.logical_and),
    "__or__": _no_grad_binary(np.logical_or),
    "__xor__": _no_grad_binary(np.logical_xor),
    "__invert__": lambda self: Tensor._wrap(np.asarray(~self._data)),
    "__abs__": ew.abs,
    # unary math
    "exp": ew.exp,
    "log": ew.log,
    "sin": ew.sin,
    "cos": ew.cos,
    "tanh": ew.tanh,
    "sigmoid": ew.sigmoid,
    "relu": ew.relu,
    "abs": ew.abs,
    "sqrt": ew.sqrt,
    "clamp": ew.clamp,
    "clip": ew.clamp,
    "masked_fill": ew.masked_fill,
    "where": lambda self, cond, other: ew.where(cond, self, other),
    # reductions
    "sum": reduction.sum,
    "mean": reduction.mean,
    "max": _max,
    "min": _min,
    "argmax": reduction.argmax,
    "any": _bool_reduce(np.any),
    "all": _bool_reduce(np.all),
    "isnan": _elementwise_test(np.isnan),
    "isfinite": _elementwise_test(np.isfinite),
    "isinf": _elementwise_test(np.isinf),
    "var": reduction.var,
    "std": reduction.std,
    "norm": reduction.norm,
    "softmax": reduction.softmax,
    "log_softmax": reduction.log_softmax,
    # shapes
    "reshape": shape.reshape,
    "view": shape.view,
    "transpose": shape.transpose,
    "t": shape.t,
    "permute": shape.permute,
    "unsqueeze": shape.unsqueeze,
    "squeeze": shape.squeeze,
    "expand": shape.expand,
    "expand_as": lambda self, other: shape.expand(self, other.shape),
    "view_as": lambda self, other: shape.view(self, other.shape),
    "reshape_as": lambda self, other: shape.reshape(self, other.shape),
    "flatten": shape.flatten,
    "sum_to_size": shape.sum_to_size,
    "clone": shape.clone,
    "contiguous": shape.contiguous,
    "select": indexing.select,
    "__getitem__": indexing.getitem,
    "__setitem__": inplace.setitem,
    # dtype conversions
    "to": _to,
    "type": _type,
    "equal": _equal,
    "float": lambda self: shape.to_dtype(self, dtypes.float32),
    "double": lambda self: shape.to_dtype(self, dtypes.float64),
    "long": lambda self: shape.to_dtype(self, dtypes.int64),
    "int": lambda self: shape.to_dtype(self, dtypes.int32),
    "bool": lambda self: shape.to_dtype(self, dtypes.bool_),
    "type_as": lambda self, other: shape.to_dtype(self, other.dtype),
    "new_zeros": _new("zeros"),
    "new_ones": _new("ones"),
    "uniform_": lambda self, a=0.0, b=1.0: _random_fill(self, creation.uniform_, a, b),
    "normal_": lambda self, mean=0.0, std=1.0: _random_fill(self, creation.normal_, mean, std),
    # in place
    "add_": _inplace(ew.add),
    "sub_": _inplace(ew.sub),
    "mul_": _inplace(ew.mul),
    "div_": _inplace(ew.div),
    "pow_": _inplace(ew.pow),
    "__iadd__": _inplace(ew.add),
    "__isub__": _inplace(ew.sub),
    "__imul__": _inplace(ew.mul),
    "__itruediv__": _inplace(ew.div),
    "sigmoid_": _inplace(ew.sigmoid),
    "relu_": _inplace(ew.relu),
    "tanh_": _inplace(ew.tanh),
    "exp_": _inplace(ew.exp),
    "clamp_": _inplace(ew.clamp),
    "neg_": _inplace(ew.neg),
    "sin_": _inplace(ew.sin),
    "cos_": _inplace(ew.cos),
    "log_": _inplace(ew.log),
    "sqrt_": _inplace(ew.sqrt),
    "abs_": _inplace(ew.abs),
    "clip_": _inplace(ew.clamp),
    "sign_": _inplace(piecewise.sign),
    "floor_": _inplace(piecewise.floor),
    "ceil_": _inplace(piecewise.ceil),
    "round_": _inplace(piecewise.round),
    "trunc_": _inplace(piecewise.trunc),
    "fill_": _inplace(inplace.fill),
    "zero_": _inplace(inplace.zero),
    "copy_": _inplace(inplace.copy),
    "masked_fill_": _inplace(ew.masked_fill),
    # what Tensor.grad_fn calls when a view's base was written in place
    "_regenerate_view_history": inplace.regenerate_view_history,
}


for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.T = property(shape.T)
Tensor.mT = property(lambda self: shape.transpose(self, -2, -1))

__all__ = ["ew", "indexing", "inplace", "linalg", "nn", "reduction", "shape", "METHODS"]
