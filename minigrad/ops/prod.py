"""prod: the product of every element (ProdBackward0) or along one dim (ProdBackward1).

The gradient of a product is the product of the other elements. Without zeros PyTorch
computes it as result / x; with a zero somewhere it multiplies the products before and after
each element (exclusive running products from both ends), so that a zero does not divide.
Two zeros or more in a whole-tensor product make every gradient 0 in a first-order backward,
which PyTorch then returns as plain zeros (whatever g holds). Integers and bools multiply in
int64; dtype= casts first."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import dtypes
from ..core.node import Node
from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import argument_error, record
from .reduction import numpy_names, through_gradient
from .scan import cumprod
from .shape import cat


def _cumprod(x: Any, dim: int) -> Any:
    return cumprod(x, dim) if isinstance(x, Tensor) else np.cumprod(x, axis=dim)


def _flip(x: Any, dim: int) -> Any:
    n = np.shape(formula.data(x))[dim]
    return x[(slice(None),) * dim + (np.arange(n - 1, -1, -1),)]


def _ones_first(x: Any, dim: int) -> Any:
    """x with a slice of ones put before it along dim (x's dtype and kind: array or Tensor)."""
    shape = list(np.shape(formula.data(x)))
    shape[dim] = 1
    ones = np.ones(shape, formula.data(x).dtype)
    if isinstance(x, Tensor):
        return cat([Tensor._wrap(ones), x], dim)
    return np.concatenate([ones, x], axis=dim)


def _others_product(x: Any, dim: int) -> Any:
    """For each element, the product of the others along dim: the running product of those
    before it times that of those after it, multiplied in PyTorch's order (so inf * 0 gives
    NaN where PyTorch's does); recorded on Tensors, so it differentiates again."""
    n = np.shape(formula.data(x))[dim]
    lead = (slice(None),) * dim
    before = _cumprod(_ones_first(x[lead + (slice(0, n - 1),)], dim), dim)
    after = _flip(_cumprod(_ones_first(_flip(x[lead + (slice(1, n),)], dim), dim), dim), dim)
    return before * after


def _operands(node: Node) -> tuple[Any, Any]:
    """The saved input, in the result's dtype (prod with dtype= multiplied in that), and the
    saved result."""
    x, r = node.saved("self"), node.saved("result")
    out_dtype = formula.data(r).dtype
    if formula.data(x).dtype != out_dtype:
        x = formula.to(x, dtypes.from_numpy_dtype(out_dtype))
    return x, r


def _prod_tangent(node: Node, out: Tensor, t: Tensor, dims: tuple | None, keepdim: bool):
    """The product of the others times each tangent, summed (in the result's dtype)."""
    return through_gradient(node, out, t.to(out.dtype), dims, keepdim)


class ProdBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: _prod_tangent(node, out, t, None, False))

    def backward(self, g):
        x, r = _operands(self)
        numbers = formula.data(x)
        if numbers.ndim == 0:
            return (g,)
        zeros = np.count_nonzero(numbers == 0)
        if not zeros:
            with np.errstate(divide="ignore", invalid="ignore"):
                return (g * (r / x),)
        if zeros > 1 and not isinstance(g, Tensor):  # every product of the others is 0
            return (formula.zeros_like(x),)
        with np.errstate(invalid="ignore", over="ignore"):
            return ((g * _others_product(x.reshape(-1), 0)).reshape(numbers.shape),)


class ProdBackward1(Node):
    jvp = tangents.linear(
        lambda node, out, t: _prod_tangent(node, out, t, (node.dim,), node.keepdim)
    )

    def backward(self, g):
        x, r = _operands(self)
        numbers = formula.data(x)
        if numbers.ndim == 0:
            return (g,)
        if not self.keepdim:
            g, r = formula.unsqueeze(g, self.dim), formula.unsqueeze(r, self.dim)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if not (numbers == 0).any():
                return (g * (r / x),)
            return (g * _others_product(x, self.dim),)


_EXPECTED = (
    (
        " * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, torch.dtype dtype "
        "= None)\n"
    ),
    (
        " * (Tensor input, *, torch.dtype dtype = None)\n * (Tensor input, int dim, bool keepdim = "
        "False, *, torch.dtype dtype = None, Tensor out = None)\n"
    ),
)


def _invalid(args: tuple, kwargs: dict, method: bool) -> TypeError:
    """PyTorch's TypeError when no overload matches: the argument types it got (a method's
    leave self out), then the overloads."""
    given = [type(v).__name__ for v in args] + [
        f"{k}={type(v).__name__}" for k, v in kwargs.items()
    ]
    if not method:
        given.insert(0, "Tensor")
    got = ", ".join(given) if args or not method else "".join(f"{g}, " for g in given)
    return TypeError(
        "prod() received an invalid combination of arguments - got "
        f"({got}), but expected one of:\n{_EXPECTED[not method]}"
    )


def _dim_argument(args: tuple, kwargs: dict, method: bool) -> Any:
    """The dim given (None when there is none), after PyTorch's checks of the arguments."""
    if len(args) > 2:
        first = 1 if method else 2
        raise TypeError(
            f"prod() takes from {first} to {first + 1} positional arguments but "
            f"{len(args) + first - 1} were given"
        )
    for name in kwargs:
        if name not in ("dim", "keepdim"):
            raise TypeError(f"prod() got an unexpected keyword argument '{name}'")
    if args and "dim" in kwargs:
        raise TypeError("prod() got multiple values for argument 'dim'")
    dim = args[0] if args else kwargs.get("dim")
    keepdim_given = len(args) > 1 or "keepdim" in kwargs
    if not args and "dim" not in kwargs:
        if keepdim_given:
            raise _invalid(args, kwargs, method)
        return None
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
        if not keepdim_given:
            raise _invalid(args, kwargs, method)
        where = f" (position {1 if method else 2})" if args else ""
        raise TypeError(f"prod(): argument 'dim'{where} must be int, not {type(dim).__name__}")
    return int(dim)


def _prod(a: Tensor, args: tuple, kwargs: dict, method: bool) -> Tensor:
    kwargs = dict(kwargs)
    dtype = kwargs.pop("dtype", None)
    dim = _dim_argument(args, kwargs, method)
    keepdim = args[1] if len(args) > 1 else kwargs.get("keepdim", False)
    if not isinstance(keepdim, (bool, np.bool_)):
        where = f" (position {2 if method else 3})" if len(args) > 1 else ""
        raise TypeError(
            f"prod(): argument 'keepdim'{where} must be bool, not {type(keepdim).__name__}"
        )
    x = a._data
    target = dtype.np if dtype is not None else np.int64 if a.dtype.category < 2 else x.dtype
    x = x.astype(target, copy=False)
    save = {"self": a}
    if dim is None:
        with np.errstate(invalid="ignore", over="ignore"):
            data = np.asarray(np.prod(x))
        return record(ProdBackward0, data, (a,), save=save, save_result=True)
    d = wrap_dim(dim, a.ndim)
    with np.errstate(invalid="ignore", over="ignore"):
        data = x.copy() if x.ndim == 0 else np.prod(x, axis=d, keepdims=keepdim)
    data = np.array(data, order="C")
    return record(ProdBackward1, data, (a,), save=save, save_result=True, dim=d, keepdim=keepdim)


@numpy_names
def prod(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:  # noqa: A002
    """torch.prod(input, *, dtype=None) or torch.prod(input, dim, keepdim=False, *, dtype=None)."""
    if not isinstance(input, Tensor):
        raise argument_error("prod", "input", 1, input)
    return _prod(input, args, kwargs, method=False)


@numpy_names
def prod_method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Tensor.prod: torch.prod's overloads, with PyTorch's method wording in its errors."""
    return _prod(self, args, kwargs, method=True)
