"""Every differentiable op, and the one place where they become Tensor methods and operators."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation
from ..tensor import Tensor
from . import elementwise as ew
from . import indexing, inplace, linalg, nn, piecewise, reduction, shape, split
from ._record import as_tensor_like

# --- operators ---------------------------------------------------------------------------


def _rsub(self: Tensor, other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return ew.sub(other, self)
    return ew.rsub(self, other)


def _rdiv(self: Tensor, other: Any) -> Tensor:
    return ew.div(as_tensor_like(other) if not isinstance(other, (int, float)) else other, self)


def _compare(op):
    def method(self: Tensor, other: Any) -> Tensor:
        o = other._data if isinstance(other, Tensor) else other
        return Tensor._wrap(np.asarray(op(self._data, o)))

    return method


def _logical(op):
    def method(self: Tensor, other: Any) -> Tensor:
        o = other._data if isinstance(other, Tensor) else other
        return Tensor._wrap(np.asarray(op(self._data, o)))

    return method


def _inplace_binary(fn):
    def method(self: Tensor, other: Any, *args: Any, **kwargs: Any) -> Tensor:
        return inplace.apply_inplace(self, fn, other, *args, **kwargs)

    return method


def _inplace_unary(fn):
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace.apply_inplace(self, fn, *args, **kwargs)

    return method


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    from ..dtypes import dtype_of_to_args

    target = dtype_of_to_args(args, kwargs)
    return shape.to_dtype(self, target) if target is not None else self


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
    "split": split.split,
    "chunk": split.chunk,
    "unbind": split.unbind,
    "mm": linalg.mm,
    "mv": linalg.mv,
    "dot": linalg.dot,
    "__gt__": _compare(np.greater),
    "__lt__": _compare(np.less),
    "__ge__": _compare(np.greater_equal),
    "__le__": _compare(np.less_equal),
    "__eq__": _compare(np.equal),
    "__ne__": _compare(np.not_equal),
    "__and__": _logical(np.logical_and),
    "__or__": _logical(np.logical_or),
    "__xor__": _logical(np.logical_xor),
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
    "float": lambda self: shape.to_dtype(self, _dt().float32),
    "double": lambda self: shape.to_dtype(self, _dt().float64),
    "long": lambda self: shape.to_dtype(self, _dt().int64),
    "int": lambda self: shape.to_dtype(self, _dt().int32),
    "bool": lambda self: shape.to_dtype(self, _dt().bool_),
    "type_as": lambda self, other: shape.to_dtype(self, other.dtype),
    "new_zeros": _new("zeros"),
    "new_ones": _new("ones"),
    "uniform_": lambda self, a=0.0, b=1.0: _random_fill(self, creation.uniform_, a, b),
    "normal_": lambda self, mean=0.0, std=1.0: _random_fill(self, creation.normal_, mean, std),
    # in place
    "add_": _inplace_binary(ew.add),
    "sub_": _inplace_binary(ew.sub),
    "mul_": _inplace_binary(ew.mul),
    "div_": _inplace_binary(ew.div),
    "pow_": _inplace_binary(ew.pow),
    "__iadd__": _inplace_binary(ew.add),
    "__isub__": _inplace_binary(ew.sub),
    "__imul__": _inplace_binary(ew.mul),
    "__itruediv__": _inplace_binary(ew.div),
    "sigmoid_": _inplace_unary(ew.sigmoid),
    "relu_": _inplace_unary(ew.relu),
    "tanh_": _inplace_unary(ew.tanh),
    "exp_": _inplace_unary(ew.exp),
    "clamp_": _inplace_unary(ew.clamp),
    "neg_": _inplace_unary(ew.neg),
    "fill_": _inplace_binary(inplace.fill),
    "zero_": _inplace_unary(inplace.zero),
    "copy_": _inplace_binary(inplace.copy),
    "masked_fill_": lambda self, mask, value: inplace.apply_inplace(
        self, ew.masked_fill, mask, value
    ),
}


def _dt():
    from .. import dtypes

    return dtypes


for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.T = property(shape.T)
Tensor.mT = property(lambda self: shape.transpose(self, -2, -1))

__all__ = ["ew", "indexing", "inplace", "linalg", "nn", "reduction", "shape", "METHODS"]
