"""Every differentiable op, and the one place where they become Tensor methods and operators."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.device import check_cpu, device_of_to_args
from ..core.dtypes import dtype_of_to_args
from ..core.tensor import Tensor
from . import (
    bincount,
    diagonal,
    diff,
    extremes,
    flip_roll,
    histogram,
    index_add,
    indexing,
    inplace,
    inplace_view,
    isclose,
    lerp,
    linalg,
    logical,
    matrix_exp,
    new_tensors,
    nn,
    ordering,
    out,  # noqa: F401 - minigrad/__init__.py wraps its NAMES
    piecewise,
    prod,
    reduction,
    remainder,
    repeat,
    sampling,
    scan,
    scatter,
    selection,
    shape,
    solve,
    split,
    transcendental,
    triangle,
    unique,
    writes,
)
from . import elementwise as ew
from ._record import USUAL_OPERANDS, argument_error, is_operand

# --- operators ---------------------------------------------------------------------------


def _operator(fn):
    """An arithmetic operator (`t + x`, `x @ t`, `t += x`): an `x` that is neither a Tensor nor a
    number gets NotImplemented, so Python raises its own TypeError, as with PyTorch's."""

    def method(self: Tensor, other: Any) -> Any:
        if type(other) in USUAL_OPERANDS or is_operand(other):  # (the usual ones: no call)
            return fn(self, other)
        return NotImplemented

    return method


def _named(name: str, fn):
    """A named binary method (`t.add(x)`, `t.mul_(x)`): PyTorch's TypeError for a bad `x`."""

    def method(self: Tensor, other: Any, *args: Any, **kwargs: Any) -> Tensor:
        if not is_operand(other):
            raise argument_error(name, "other", 1, other)
        return fn(self, other, *args, **kwargs)

    return method


def binary_function(name: str, fn):
    """`torch.add(a, b)`: PyTorch's TypeError names the argument that is not a Tensor."""

    def function(input: Any, other: Any, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
        for arg, position, value in (("input", 1, input), ("other", 2, other)):
            if not is_operand(value):
                raise argument_error(name, arg, position, value)
        return fn(input, other, *args, **kwargs)

    function.__name__ = name
    return function


def _pow(self: Tensor, exponent: Any) -> Tensor:
    if not is_operand(exponent):
        raise TypeError(
            f"pow() received an invalid combination of arguments - got "
            f"({type(exponent).__name__}), but expected one of:\n * (Tensor exponent)\n"
            " * (Number exponent)"
        )
    return ew.pow(self, exponent)


def _inplace(fn, overlap: str = inplace.EARLY, wraps_numbers: bool = False):
    """`x.op_(...)`: the out-of-place op `fn` written back into x (ops/inplace.py); `overlap`:
    when an expanded x is refused, relative to fn's own checks; `wraps_numbers`: the op takes
    a Tensor operand (see run_inplace)."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return inplace.run_inplace(self, fn, args, kwargs, overlap, wraps_numbers=wraps_numbers)

    return method


def _arithmetic_(fn, ufunc: np.ufunc | None = None):
    """add_, sub_, mul_, div_: PyTorch wraps a number operand in a tensor. With `ufunc`, the
    plain case (nothing recorded, `x += y` of one float dtype) is written straight into x."""
    general = _inplace(fn, wraps_numbers=True)
    if ufunc is None:
        return general

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if len(args) == 1 and not kwargs and inplace.write_through(self, ufunc, args[0]):
            return self
        return general(self, *args, **kwargs)

    return method


def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    check_cpu(device_of_to_args(args, kwargs))
    target = dtype_of_to_args(args, kwargs)
    return shape.to_dtype(self, target) if target is not None else self


def _type(self: Tensor, dtype: Any = None, non_blocking: bool = False) -> Any:
    """x.type() names the legacy tensor type ('torch.FloatTensor'); x.type(t) casts to t."""
    if dtype is None:
        return f"torch.{dtypes.LEGACY_NAMES[self.dtype.name]}"
    if dtype is Tensor:  # x.type(torch.Tensor): the default dtype
        dtype = dtypes.get_default_dtype()
    if isinstance(getattr(dtype, "dtype", None), dtypes.dtype):  # a legacy type: LongTensor
        dtype = dtype.dtype
    if isinstance(dtype, str):
        by_name = {f"torch.{legacy}": name for name, legacy in dtypes.LEGACY_NAMES.items()}
        if dtype not in by_name:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = getattr(dtypes, by_name[dtype] if by_name[dtype] != "bool" else "bool_")
    return shape.to_dtype(self, dtype)


def _equal(self: Tensor, other: Tensor) -> bool:
    """Same shape and the same values (a Python bool; dtypes may differ, as in PyTorch)."""
    return self.shape == other.shape and bool(np.array_equal(self._data, other._data))


def _check_bounds_cast(self: Tensor, min: Any = None, max: Any = None) -> None:  # noqa: A002
    """With number bounds, PyTorch's cast check names the C type ('long int')."""
    numbers = not isinstance(min, Tensor) and not isinstance(max, Tensor)
    if numbers and (min is not None or max is not None):
        result = ew.clamp_dtype(self, min, max)
        if not np.can_cast(result.np, self._data.dtype, "same_kind"):
            raise RuntimeError(
                f"result type {dtypes.SCALAR_NAMES[result.name]} can't be cast to the desired "
                f"output type {dtypes.C_NAMES[self.dtype.name]}"
            )


def _clamp_(self: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    _check_bounds_cast(self, min, max)
    return inplace.apply_inplace(self, ew.clamp, min, max)


METHODS = {
    # arithmetic and comparisons
    "__add__": _operator(ew.add),
    "__radd__": _operator(ew.add),
    "add": _named("add", ew.add),
    "__sub__": _operator(ew.sub),
    "__rsub__": _operator(ew.rsub),
    "sub": _named("sub", ew.sub),
    "__mul__": _operator(ew.mul),
    "__rmul__": _operator(ew.mul),
    "mul": _named("mul", ew.mul),
    "__truediv__": _operator(ew.div),
    "__rtruediv__": _operator(ew.rdiv),
    "div": _named("div", ew.div),
    "__pow__": _operator(ew.pow),
    "__rpow__": _operator(lambda self, other: ew.pow(other, self)),
    "pow": _pow,
    "__neg__": ew.neg,
    "neg": ew.neg,
    "__matmul__": _operator(linalg.matmul),
    "__rmatmul__": _operator(lambda self, other: linalg.matmul(other, self)),
    "matmul": _named("matmul", linalg.matmul),
    "bmm": linalg.bmm,
    "addmm": linalg.addmm,
    "sign": piecewise.sign,
    "sgn": piecewise.sgn,
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
    "__gt__": logical.comparison(np.greater),
    "__lt__": logical.comparison(np.less),
    "__ge__": logical.comparison(np.greater_equal),
    "__le__": logical.comparison(np.less_equal),
    "__eq__": logical.comparison(np.equal),
    "__ne__": logical.comparison(np.not_equal),
    "__and__": logical.bitwise_and,
    "__or__": logical.bitwise_or,
    "__xor__": logical.bitwise_xor,
    "__rand__": logical.bitwise_and,
    "__ror__": logical.bitwise_or,
    "__rxor__": logical.bitwise_xor,
    "__invert__": logical.invert,
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
    "max": reduction.max,
    "min": reduction.min,
    "maximum": reduction.maximum,
    "minimum": reduction.minimum,
    "argmax": reduction.argmax,
    "argmin": reduction.argmin,
    "any": logical.any,
    "all": logical.all,
    "allclose": logical.allclose,
    "isnan": logical.isnan,
    "isfinite": logical.isfinite,
    "isinf": logical.isinf,
    "isposinf": logical.isposinf,
    "isneginf": logical.isneginf,
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
    "__setitem__": writes.setitem,
    # dtype conversions
    "to": _to,
    "type": _type,
    "equal": _equal,
    "float": lambda self: shape.to_dtype(self, dtypes.float32),
    "double": lambda self: shape.to_dtype(self, dtypes.float64),
    "half": lambda self: shape.to_dtype(self, dtypes.float16),
    "long": lambda self: shape.to_dtype(self, dtypes.int64),
    "int": lambda self: shape.to_dtype(self, dtypes.int32),
    "bool": lambda self: shape.to_dtype(self, dtypes.bool_),
    "type_as": lambda self, other: shape.to_dtype(self, other.dtype),
    # --- data & random (issue 21): factories like this tensor, and sampling
    "new_zeros": new_tensors.new_zeros,
    "new_ones": new_tensors.new_ones,
    "new_empty": new_tensors.new_empty,
    "new_full": new_tensors.new_full,
    "new_tensor": new_tensors.new_tensor,
    "multinomial": sampling.multinomial,
    "bernoulli": sampling.bernoulli,
    "bernoulli_": sampling.bernoulli_,
    # --- end data & random
    "uniform_": writes.uniform_,
    "normal_": writes.normal_,
    # in place
    "add_": _named("add_", _arithmetic_(ew.add, np.add)),
    "sub_": _named("sub_", _arithmetic_(ew.sub, np.subtract)),
    "mul_": _named("mul_", _arithmetic_(ew.mul, np.multiply)),
    "div_": _named("div_", _arithmetic_(ew.div)),
    "pow_": _named("pow_", _inplace(ew.pow)),
    "__iadd__": _operator(_arithmetic_(ew.add, np.add)),
    "__isub__": _operator(_arithmetic_(ew.sub, np.subtract)),
    "__imul__": _operator(_arithmetic_(ew.mul, np.multiply)),
    "__itruediv__": _operator(_arithmetic_(ew.div)),
    "sigmoid_": _inplace(ew.sigmoid),
    "relu_": _inplace(ew.relu, inplace.LATE),
    "tanh_": _inplace(ew.tanh),
    "exp_": _inplace(ew.exp),
    "clamp_": _clamp_,
    "neg_": _inplace(ew.neg, inplace.LATE),
    "sin_": _inplace(ew.sin),
    "cos_": _inplace(ew.cos),
    "log_": _inplace(ew.log),
    "sqrt_": _inplace(ew.sqrt),
    "abs_": _inplace(ew.abs),
    "clip_": _clamp_,
    "sign_": _inplace(piecewise.sign),
    "floor_": _inplace(piecewise.floor),
    "ceil_": _inplace(piecewise.ceil),
    "round_": _inplace(piecewise.round),
    "trunc_": _inplace(piecewise.trunc),
    "fill_": writes.fill_,
    "zero_": writes.zero_,
    "copy_": writes.copy_,
    "masked_fill_": writes.masked_fill_,
    "t_": inplace_view.t_,
    "transpose_": inplace_view.transpose_,
    "squeeze_": inplace_view.squeeze_,
    "unsqueeze_": inplace_view.unsqueeze_,
    # what Tensor.grad_fn calls when a view's base was written in place
    "_regenerate_view_history": inplace.regenerate_view_history,
}
# --- issue 21, elementwise math: transcendental functions (with numpy's aliases), atan2,
# remainder/fmod and `%`, lerp, clamp_min/clamp_max, the logical ops; each with its in-place twin


def _clamp_min_(self: Tensor, min: Any) -> Tensor:  # noqa: A002
    _check_bounds_cast(self, min=min)
    return inplace.apply_inplace(self, ew.clamp_min, min)


def _clamp_max_(self: Tensor, max: Any) -> Tensor:  # noqa: A002
    _check_bounds_cast(self, max=max)
    return inplace.apply_inplace(self, ew.clamp_max, max)


def tensor_operand(name: str, fn, position: int = 1):
    """An op whose other operand must be a Tensor (atan2, logical_and): PyTorch's TypeError
    names its position, 1 for the method `t.atan2(x)`, 2 for `torch.atan2(t, x)`."""

    def call(input: Tensor, other: Any, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
        if position == 2 and not isinstance(input, Tensor):
            raise argument_error(name, "input", 1, input)
        if not isinstance(other, Tensor):
            raise argument_error(name, "other", position, other)
        return fn(input, other, *args, **kwargs)

    call.__name__ = name
    return call


def tensor_or_number(name: str, fn, arg: str = "other", method: bool = True):
    """An op whose operand is a Tensor or a number (remainder, fmod, clamp_min): anything else
    (None included) is PyTorch's "invalid combination" TypeError, whose list of arguments
    leaves self out for a method and starts with the input for `torch.name`."""

    def call(input: Any, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
        value = args[0] if args else kwargs.get(arg)
        if value is None or not is_operand(value):
            got = ", ".join(type(v).__name__ for v in ((value,) if method else (input, value)))
            head = "" if method else "Tensor input, "
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got ({got}), but "
                f"expected one of:\n * ({head}Tensor {arg})\n * ({head}Number {arg})\n"
            )
        return fn(input, *args, **kwargs)

    call.__name__ = name
    return call


for _name, _fn in transcendental.FUNCTIONS.items():
    METHODS[_name] = _fn
    METHODS[f"{_name}_"] = _inplace(transcendental.INPLACE.get(_name, _fn))
for _name in ("atan2", "arctan2"):
    METHODS[_name] = tensor_operand(_name, transcendental.atan2)
    METHODS[f"{_name}_"] = tensor_operand(f"{_name}_", _inplace(transcendental.atan2))
for _name in ("logical_and", "logical_or", "logical_xor"):
    _fn = getattr(logical, _name)
    METHODS[_name] = tensor_operand(_name, _fn)
    METHODS[f"{_name}_"] = tensor_operand(f"{_name}_", logical.logical_inplace(_fn))
METHODS.update(
    {
        "remainder": tensor_or_number("remainder", remainder.remainder),
        "remainder_": tensor_or_number("remainder_", _inplace(remainder.remainder)),
        "__mod__": _operator(remainder.remainder),
        "__rmod__": _operator(lambda self, other: remainder.remainder(other, self)),
        "__imod__": _operator(_inplace(remainder.remainder)),
        "fmod": tensor_or_number("fmod", remainder.fmod),
        "fmod_": tensor_or_number("fmod_", _inplace(remainder.fmod)),
        "lerp": lerp.lerp_method,
        "lerp_": _inplace(lerp.lerp_method),
        "clamp_min": tensor_or_number("clamp_min", ew.clamp_min, "min"),
        "clamp_max": tensor_or_number("clamp_max", ew.clamp_max, "max"),
        "clamp_min_": tensor_or_number("clamp_min_", _clamp_min_, "min"),
        "clamp_max_": tensor_or_number("clamp_max_", _clamp_max_, "max"),
        "logical_not": logical.logical_not,
        "logical_not_": logical.logical_inplace(logical.logical_not),
    }
)
# --- end of issue 21's elementwise block
# --- issue 21, structural ops: scans, logsumexp, topk, dist, triangles, gather/scatter, outer,
# histograms, det/inverse (torch.linalg's other names live in minigrad/linalg.py)
METHODS.update(
    {
        "cumsum": scan.cumsum,
        "cumprod": scan.cumprod,
        "cumsum_": _inplace(scan.cumsum),
        "cumprod_": _inplace(scan.cumprod),
        "logsumexp": reduction.logsumexp,
        "topk": ordering.topk,
        "dist": reduction.dist,
        "tril": triangle.tril,
        "triu": triangle.triu,
        "tril_": _inplace(triangle.tril),
        "triu_": _inplace(triangle.triu),
        "gather": scatter.gather,
        "scatter": scatter.scatter,
        "scatter_": _inplace(scatter.scatter),
        "scatter_add": scatter.scatter_add,
        "scatter_add_": _inplace(scatter.scatter_add),
        "outer": linalg.outer,
        "ger": linalg.outer,
        "histc": histogram.histc,
        "histogram": histogram.histogram,
        "det": solve.det,
        "inverse": solve.inv,
    }
)
# --- end of issue 21's structural block
# --- issue 21, courses: square, which PyTorch records as x ** 2 (PowBackward0)


def _square(self: Tensor) -> Tensor:
    return ew.pow(self, 2)


METHODS.update({"square": _square, "square_": _inplace(_square)})
# --- end of the courses block
# --- shape ops: flip/roll, diagonals and trace, repeat/repeat_interleave, diff (rsqrt
# comes with transcendental.FUNCTIONS above; hstack & co are module-level only)
METHODS.update(
    {
        "flip": flip_roll.flip_method,
        "fliplr": flip_roll.fliplr,
        "flipud": flip_roll.flipud,
        "roll": flip_roll.roll,
        "diagonal": diagonal.diagonal,
        "diag_embed": diagonal.diag_embed,
        "diag": diagonal.diag,
        "trace": diagonal.trace,
        "repeat": repeat.repeat,
        "repeat_interleave": repeat.repeat_interleave_method,
        "diff": diff.diff,
    }
)
# --- end of the shape ops block
# --- reductions and selections: amax/amin, prod, isclose, index_select, masked_select,
# nonzero, unique, bincount
METHODS.update(
    {
        "amax": extremes.amax,
        "amin": extremes.amin,
        "prod": prod.prod_method,
        "isclose": isclose.isclose_method,
        "index_select": selection.index_select_method,
        "masked_select": selection.masked_select_method,
        "nonzero": selection.nonzero,
        "unique": unique.unique,
        "bincount": bincount.bincount_method,
    }
)
# --- end of the reductions and selections block
METHODS["matrix_exp"] = matrix_exp.matrix_exp  # (torch.linalg.matrix_exp: minigrad/linalg.py)
# the named comparisons (`t.eq(2)`, `t.greater(u)`): the operators without a reflected fallback
for _names, _operator in (
    (("eq",), "__eq__"),
    (("ne", "not_equal"), "__ne__"),
    (("lt", "less"), "__lt__"),
    (("le", "less_equal"), "__le__"),
    (("gt", "greater"), "__gt__"),
    (("ge", "greater_equal"), "__ge__"),
):
    for _name in _names:
        METHODS[_name] = logical.named_comparison(_name, METHODS[_operator])


for _name, _fn in METHODS.items():
    setattr(Tensor, _name, _fn)
Tensor.T = property(shape.T)
Tensor.mT = property(shape.mT)

__all__ = ["ew", "indexing", "inplace", "linalg", "nn", "reduction", "shape", "METHODS"]
