"""Reductions (sum, mean, max/min, argmax/argmin, var/std, norm), the elementwise
maximum/minimum, and softmax-style normalisations. The reductions with a dim accept PyTorch's
numpy-style aliases (axis=, keepdims=)."""

from __future__ import annotations

import builtins
import functools
import math
import os
import warnings
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import kernels
from ..core import dtypes
from ..core.node import Node
from ..core.shapes import iterator_layout
from ..core.tensor import Tensor
from . import formula, tangents
from ._record import argument_error, record
from .elementwise import broadcast_operands, masked_fill
from .indexing import ScatterBackward0, scatter_into_zeros
from .piecewise import sgn
from .shape import wrap_dim, wrap_dims


def _dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """Reduced dims, non-negative and sorted; None or () mean all of them (as in torch.sum)."""
    dims = wrap_dims(range(ndim) if dim is None else dim, ndim)
    if ndim == 0:
        return ()
    return tuple(sorted(dims)) or tuple(range(ndim))


def _expand_back(g: Any, shape: tuple, dims: tuple, keepdim: bool) -> Any:
    """Undo a reduction's shape change: re-insert reduced dims, then broadcast."""
    return formula.expand(_keep(g, dims, keepdim, len(shape)), shape)


def _keep(g: Any, dims: tuple | None, keepdim: bool, ndim: int) -> Any:
    """Re-insert the reduced dims (size 1) that keepdim=False dropped, so g broadcasts."""
    if keepdim or dims is None or not ndim:
        return g
    for d in dims:
        g = formula.unsqueeze(g, d)
    return g


def _every(dims: tuple | None, ndim: int) -> tuple:
    """A reduction's dims for a Tensor's sum: None (all) spelled out, so keepdim holds."""
    return tuple(range(ndim)) if dims is None else dims


def through_gradient(
    node: Node,
    out: Tensor,
    t: Tensor,
    dims: tuple | None,
    keepdim: bool,
    backward: Callable | None = None,
) -> Tensor:
    """The tangent of a reduction whose gradient is g (put back in place) times a factor of
    the input: that factor, the gradient of ones (by the node's `backward` unless another is
    given), times t, summed over the reduced dims (the form of PyTorch's forward formulas for
    prod, the norms, var and det). No gradient at all (a 0-norm's) is a zero tangent."""
    ones = Tensor._wrap(np.ones(out._data.shape, out._data.dtype))
    factor = (backward or type(node).backward)(node, ones)[0]
    if factor is None:
        return formula.zeros_like(out)
    return (factor * t).sum(_every(dims, t.ndim), keepdim=keepdim)


# the tangent of a reduction node with `dim` and `keepdim` attributes (var, the vector norm)
reduced_tangent = tangents.linear(
    lambda node, out, t: through_gradient(node, out, t, node.dim, node.keepdim)
)


def tangent_at_extremes(x: np.ndarray, r: np.ndarray, t: Tensor, dims: tuple, keepdim: bool):
    """The tangent of a max or min whose ties share it: the mean of t over the places equal
    to the extreme `r` (selected, so an inf elsewhere stays out; NaN at a NaN extreme, which
    nothing equals)."""
    dims = _every(dims or None, x.ndim)  # (() is every dim)
    mask = x == (r if keepdim else np.expand_dims(r, dims))
    count = mask.sum(axis=dims, keepdims=keepdim).astype(x.dtype)
    return formula.keep(mask, t).sum(dims, keepdim=keepdim) / count


def _count(shape: tuple, dims: Any) -> int:
    return math.prod(shape[d] for d in dims)


def numpy_names(fn):
    """PyTorch's numpy-style keyword aliases: axis= for dim=, keepdims= for keepdim= (both
    spellings at once is a TypeError, as in PyTorch)."""

    @functools.wraps(fn)
    def accepting_aliases(*args: Any, **kwargs: Any) -> Any:
        for alias, name in (("axis", "dim"), ("keepdims", "keepdim")):
            if alias in kwargs:
                if name in kwargs:
                    raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{alias}'")
                kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return accepting_aliases


def _sum_dtype(a: Tensor, dtype):
    if dtype is not None:
        return dtype.np
    return np.int64 if a.dtype.category < 2 else a._data.dtype


class SumBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: t.sum())

    def backward(self, g):
        return (formula.expand(g, self.self_sym_sizes),)


class SumBackward1(Node):
    jvp = tangents.linear(lambda node, out, t: t.sum(node.dim, keepdim=node.keepdim))

    def backward(self, g):
        return (_expand_back(g, self.self_sym_sizes, self.dim, self.keepdim),)


def _from_zero(total: Any) -> np.ndarray:
    """A float sum as PyTorch's: its accumulator starts at +0.0, so a sum of -0.0s is +0.0
    (numpy's starts from the first element and keeps -0.0); and contiguous, as PyTorch makes
    a reduction's result whatever the input's layout (numpy follows it)."""
    if type(total) is not np.ndarray or total.ndim == 0:  # (a full reduction: a 0-d result)
        return np.asarray(total + 0.0 if total.dtype.kind == "f" else total)
    return _c_order(total + 0.0 if total.dtype.kind == "f" else total)


@numpy_names
def sum(a: Tensor, dim: Any = None, keepdim: bool = False, dtype=None) -> Tensor:  # noqa: A001
    out_dtype = _sum_dtype(a, dtype)
    if dim is None:
        data = _from_zero(a._data.sum(dtype=out_dtype))
        return record(SumBackward0, data, (a,), self_sym_sizes=tuple(a.shape))
    dims = _dims(dim, a.ndim)
    data = _from_zero(a._data.sum(axis=dims, keepdims=keepdim, dtype=out_dtype))
    return record(
        SumBackward1, data, (a,), self_sym_sizes=tuple(a.shape), dim=dims, keepdim=keepdim
    )


class MeanBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: t.to(out.dtype).mean())

    def backward(self, g):
        return (formula.divide(formula.expand(g, self.self_sym_sizes), self.count),)


class MeanBackward1(Node):
    jvp = tangents.linear(lambda node, out, t: t.to(out.dtype).mean(node.dim, keepdim=node.keepdim))

    def backward(self, g):
        expanded = _expand_back(g, self.self_sym_sizes, self.dim, self.keepdim)
        return (formula.divide(expanded, self.count),)


@numpy_names
def mean(a: Tensor, dim: Any = None, keepdim: bool = False, dtype=None) -> Tensor:
    """With dtype=, the mean of `a` cast to dtype (the gradient comes back in a's dtype)."""
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(
            "mean(): could not infer output dtype. Optional dtype must be either a floating "
            f"point or complex dtype. Got: {dtypes.SCALAR_NAMES[dtype.name]}"
        )
    if not a.dtype.is_floating_point and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a "
            "floating point or complex dtype. Got: "
            f"{dtypes.SCALAR_NAMES[a.dtype.name]}"
        )
    x = a._data if dtype is None else a._data.astype(dtype.np, copy=False)
    dims = None if dim is None else _dims(dim, a.ndim)
    count = _count(a.shape, range(a.ndim) if dims is None else dims)
    with np.errstate(invalid="ignore"):  # the mean of nothing is nan, silently
        data = np.asarray(_from_zero(x.sum(axis=dims, keepdims=keepdim)) / x.dtype.type(count))
    if dims is None:
        return record(
            MeanBackward0, data, (a,), self_sym_sizes=tuple(a.shape), count=builtins.max(count, 1)
        )
    return record(
        MeanBackward1,
        data,
        (a,),
        self_sym_sizes=tuple(a.shape),
        dim=dims,
        keepdim=keepdim,
        count=count,
    )


# --- max / min ---------------------------------------------------------------------------
MinMax = namedtuple("MinMax", ["values", "indices"])


class _EvenlyDistribute(Node):
    """Full max()/min(): ties share the gradient evenly, the others get exactly 0 (PyTorch's
    evenly_distribute_backward puts grad / count into zeros); a NaN maximum is where the NaNs
    are. Input and result are saved, so changing the input in place makes backward refuse."""

    def jvp(self, out, tangents):
        x, r = self.saved("self")._data, self.saved("result")._data
        return tangent_at_extremes(x, r, tangents[0], (), False)

    def backward(self, g):
        x, value = formula.data(self.saved("self")), formula.data(self.saved("result"))
        mask = np.isnan(x) if np.isnan(value) else x == value
        if not isinstance(g, Tensor):
            return (formula.keep(mask, g / int(np.count_nonzero(mask))),)
        # recorded as PyTorch records it: zeros.masked_fill_(mask, grad / mask.sum())
        share = g / Tensor._wrap(np.asarray(np.count_nonzero(mask), dtype=np.int64))
        return (masked_fill(Tensor._wrap(np.zeros(x.shape, x.dtype)), mask, share),)


class MaxBackward1(_EvenlyDistribute):
    pass


class MinBackward1(_EvenlyDistribute):
    pass


class _IndexedReduce(Node):
    """max/min along a dim: the gradient goes to the selected index of each slice. The indices
    returned to the caller are the ones saved (PyTorch's saved `indices`, version-checked)."""

    def jvp(self, out, tangents):
        """The tangent read at the selected indices (a gather)."""
        t = tangents[0]
        if not self.shape:
            return t.clone()
        idx = self.saved("indices")
        if self.keepdim:
            return t.gather(self.dim, idx)
        return t.gather(self.dim, idx.unsqueeze(self.dim)).squeeze(self.dim)

    def backward(self, g):
        if not self.shape:
            return (g,)
        idx = formula.data(self.saved("indices"))
        if not self.keepdim:
            g = formula.unsqueeze(g, self.dim)
            idx = np.expand_dims(idx, self.dim)
        key = tuple(
            idx
            if d == self.dim
            else np.arange(s).reshape([-1 if i == d else 1 for i in range(len(self.shape))])
            for d, s in enumerate(self.shape)
        )
        return (scatter_into_zeros(g, self.shape, key, ScatterBackward0),)


class MaxBackward0(_IndexedReduce):
    pass


class MinBackward0(_IndexedReduce):
    pass


def _minmax(a: Tensor, dim: Any, keepdim: bool, largest: bool):
    x, name = a._data, "max" if largest else "min"
    if dim is None:
        if x.size == 0:
            raise RuntimeError(
                f"{name}(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' "
                "argument."
            )
        value = x.max() if largest else x.min()
        cls = MaxBackward1 if largest else MinBackward1
        return record(cls, np.asarray(value), (a,), save={"self": a}, save_result=True)
    dims = _dims(dim, a.ndim)
    cls = MaxBackward0 if largest else MinBackward0
    if not dims:  # a 0-d tensor is its own max along dim 0 / -1
        out = record(cls, x.copy(), (a,), dim=0, keepdim=keepdim, shape=())
        return MinMax(out, Tensor._wrap(np.zeros((), np.int64)))
    (d,) = dims
    if x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    idx = (np.argmax if largest else np.argmin)(x, axis=d, keepdims=True)
    values = np.take_along_axis(x, idx, d)
    if not keepdim:
        values, idx = values.squeeze(d), idx.squeeze(d)
    indices = Tensor._wrap(idx.astype(np.int64))
    save = {"indices": indices}
    out = record(cls, values, (a,), save=save, dim=d, keepdim=keepdim, shape=tuple(a.shape))
    return MinMax(out, indices)


class MaximumBackward0(Node):
    """Where both sides are equal each gets half the gradient, as in PyTorch; where one side
    loses it gets exactly 0, whatever the gradient holds (PyTorch: where(self == other, grad / 2,
    grad).masked_fill_(self < other, 0)); NaN loses nowhere, so both keep the gradient there."""

    _self_loses, _other_loses = np.less, np.greater  # numpy ufuncs: no method binding

    def jvp(self, out, tangents):
        """PyTorch's: other's tangent, plus (self's - other's) where self wins, half of it at
        a tie (so at a NaN, which wins nowhere, other's)."""
        x, y = self.saved("self")._data, self.saved("other")._data
        weight = np.where(x == y, 0.5, self._other_loses(x, y)).astype(out._data.dtype)
        t_self, t_other = (formula.tangent_or_zeros(self, tangents, i) for i in (0, 1))
        return t_other + Tensor._wrap(weight) * (t_self - t_other)

    def backward(self, g):
        x, y = formula.data(self.saved("self")), formula.data(self.saved("other"))
        ties = x == y
        if ties.any():  # halving is exact, so g * 0.5 is g / 2 for every value g can hold
            g = g * np.where(ties, 0.5, 1.0).astype(formula.data(g).dtype)
        keep, filled = formula.keep, formula.MaskedFillKeep  # (masked_fill_ last, as PyTorch)
        return keep(~self._self_loses(x, y), g, filled), keep(~self._other_loses(x, y), g, filled)


class MinimumBackward0(MaximumBackward0):
    _self_loses, _other_loses = np.greater, np.less


def _binary_extreme(a: Tensor, b: Tensor, largest: bool) -> Tensor:
    (ta, tb), (x, y), _ = broadcast_operands(a, b)
    # PyTorch keeps `a` on a tie (maximum(-0.0, 0.0) is -0.0); numpy keeps its second argument
    data = iterator_layout(np.maximum(y, x) if largest else np.minimum(y, x), x, y)
    cls = MaximumBackward0 if largest else MinimumBackward0
    return record(cls, data, (ta, tb), save={"self": ta, "other": tb})


def _tensors(name: str, a: Any, other: Any) -> None:
    for arg, position, value in (("input", 1, a), ("other", 2, other)):
        if not isinstance(value, Tensor):
            raise argument_error(name, arg, position, value)


def maximum(a: Tensor, other: Tensor) -> Tensor:
    _tensors("maximum", a, other)
    return _binary_extreme(a, other, largest=True)


def minimum(a: Tensor, other: Tensor) -> Tensor:
    _tensors("minimum", a, other)
    return _binary_extreme(a, other, largest=False)


@numpy_names
def max(a: Tensor, dim: Any = None, keepdim: bool = False):  # noqa: A001
    if isinstance(dim, Tensor):  # torch.max(a, b) is torch.maximum
        return _binary_extreme(a, dim, largest=True)
    return _minmax(a, dim, keepdim, largest=True)


@numpy_names
def min(a: Tensor, dim: Any = None, keepdim: bool = False):  # noqa: A001
    if isinstance(dim, Tensor):
        return _binary_extreme(a, dim, largest=False)
    return _minmax(a, dim, keepdim, largest=False)


def _arg_extreme(a: Tensor, dim: int | None, keepdim: bool, largest: bool) -> Tensor:
    """argmax/argmin: the first index of the extreme (of the first NaN, if any) in the whole
    tensor, as a flat index, or along `dim`; PyTorch's errors for bool and empty inputs."""
    x, name = a._data, "argmax" if largest else "argmin"
    find = np.argmax if largest else np.argmin
    if x.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is None:
        if x.size == 0:
            raise IndexError(
                f"{name}(): Expected reduction dim to be specified for input.numel() == 0."
            )
        flat = np.asarray(find(x), dtype=np.int64)
        return Tensor._wrap(flat.reshape((1,) * x.ndim) if keepdim else flat)
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return Tensor._wrap(np.zeros((), np.int64))
    if x.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return Tensor._wrap(np.asarray(find(x, axis=d, keepdims=keepdim), dtype=np.int64))


@numpy_names
def argmax(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(a, dim, keepdim, largest=True)


@numpy_names
def argmin(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    return _arg_extreme(a, dim, keepdim, largest=False)


# --- var / std / norm -------------------------------------------------------------------
def _require_float(a: Tensor, message: str) -> None:
    if not a.dtype.is_floating_point:
        raise RuntimeError(message)


def _var_args(a: Tensor, dim: Any, unbiased: Any, correction: Any) -> tuple:
    """(dims or None, correction); `var(False)` is the old unbiased-only overload."""
    _require_float(a, "std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased in (None, True) else 0
    return (_dims(dim, a.ndim) if dim is not None else None), correction


# PyTorch computes a variance over every element (float32/64 on CPU) in two passes around its own
# float mean (std_var_all_cpu), and any other variance with Welford's update in double. Both are
# exact on constant data but for that mean: whether it lands on the constant (then std is 0 and
# its gradient 0) or one rounding step off (then std is tiny and its gradient O(1), with the
# sign of that step) depends on the order PyTorch's sum adds in. So that mean is summed in that
# order: cascade_sum's 32-byte vectors, 4-way interleaving and 4-level cascade, split between
# threads beyond GRAIN_SIZE elements.
_VECTOR_BYTES = 32
_GRAIN_SIZE = 32768


def _threads() -> int:
    """PyTorch's default intra-op thread count: the CPUs this process may run on."""
    sched = getattr(os, "sched_getaffinity", None)
    return len(sched(0)) if sched is not None else os.cpu_count() or 1


def _in_order(rows: np.ndarray) -> np.ndarray:
    """rows[0] + rows[1] + ... added one at a time (axis 0); zeros when there are none."""
    if not len(rows):
        return np.zeros(rows.shape[1:], rows.dtype)
    return np.add.accumulate(rows, axis=0)[-1]


def _groups_in_order(rows: np.ndarray, size: int) -> np.ndarray:
    """The in-order sum of each run of `size` rows (len(rows) is a multiple of size)."""
    runs = rows.reshape(len(rows) // size, size, *rows.shape[1:])
    return np.add.accumulate(runs, axis=1)[:, -1]


def _cascade(rows: np.ndarray) -> np.ndarray:
    """multi_row_sum: runs of `step` rows summed in order, run sums gathered in runs of `step`
    twice more, the rest of each level kept apart and everything added up at the end."""
    size = len(rows)
    power = builtins.max(4, (builtins.max(size - 1, 1).bit_length() if size > 2 else 1) // 4)
    step = 1 << power
    full = size // step * step
    parts, level = [_in_order(rows[full:])], _groups_in_order(rows[:full], step)
    for _ in range(2):
        full = len(level) // step * step
        parts.append(_in_order(level[full:]))
        level = _groups_in_order(level[:full], step)
    total = parts[0]
    for part in (*parts[1:], _in_order(level)):
        total = total + part
    return total


def _row_sum(x: np.ndarray) -> np.ndarray:
    """row_sum: four interleaved cascades, the leftover rows, then the four added up."""
    n4 = len(x) // 4
    partial = _cascade(x[: n4 * 4].reshape(n4, 4, *x.shape[1:]))
    total = _in_order(np.concatenate([partial[:1], x[n4 * 4 :]]))
    for k in range(1, 4):
        total = total + partial[k]
    return total


def _chunk_sum(x: np.ndarray) -> np.ndarray:
    """One thread's part: whole vectors through row_sum when contiguous (vectorized_inner_sum),
    then the leftover elements and the vector's lanes added in order."""
    lanes = _VECTOR_BYTES // x.itemsize
    if x.strides[0] != x.itemsize or len(x) < lanes:
        return _row_sum(x)
    m = len(x) // lanes
    vector = _row_sum(x[: m * lanes].reshape(m, lanes))
    return _in_order(np.concatenate([x[m * lanes :], vector]))


def _torch_sum(x: np.ndarray) -> Any:
    """x.sum() in the order PyTorch's CPU kernel adds, or None for a layout not followed here
    (strided in more than one dim)."""
    if x.ndim > 1 or x.size == 0:
        if not (x.flags.c_contiguous or x.flags.f_contiguous):
            return None
        x = x.ravel(order="K")
    x = x.reshape(-1)
    n = len(x)
    chunks = builtins.min(_threads(), -(-n // _GRAIN_SIZE)) if n > _GRAIN_SIZE else 1
    size = -(-n // chunks) if n else 0
    total = x.dtype.type(0)
    for start in range(0, n, size or 1):
        total = total + _chunk_sum(x[start : start + size])
    return total


def _full_mean(x: np.ndarray) -> Any:
    """x.mean() over every element as PyTorch computes it: its sum, then one division."""
    total = _torch_sum(x) if x.dtype in (np.float32, np.float64) else None
    if total is None:
        return np.mean(x, dtype=np.float64).astype(x.dtype)
    with np.errstate(invalid="ignore"):
        return total / x.dtype.type(x.size)


def _is_full(shape: tuple, dims: tuple | None) -> bool:
    """The reduction takes in every element (PyTorch's iterator drops size-1 dims)."""
    return dims is None or all(d in dims for d, s in enumerate(shape) if s != 1)


def _var_data(
    a: Tensor, dims: tuple | None, correction: float, keepdim: bool, sqrt: bool = False
) -> np.ndarray:
    """var (or std) as PyTorch computes it, in double, rounded once to the input's dtype."""
    x = a._data
    axes = tuple(range(x.ndim)) if dims is None else dims
    n = _count(x.shape, axes)
    shape = tuple(1 if d in axes else s for d, s in enumerate(x.shape) if keepdim or d not in axes)
    if x.size // builtins.max(int(np.prod(shape)), 1) - correction <= 0:  # PyTorch's factor
        warnings.warn(
            f"{'std' if sqrt else 'var'}(): degrees of freedom is <= 0. Correction should be "
            "strictly less than the reduction factor (input numel divided by output numel).",
            UserWarning,
            stacklevel=3,
        )
    divisor = np.float64(builtins.max(0, n - correction))
    with np.errstate(divide="ignore", invalid="ignore"):
        if not x.size:
            var = np.full(shape, np.nan)
        elif _is_full(x.shape, dims) and x.dtype in (np.float32, np.float64):
            dx = x.astype(np.float64).ravel() - np.float64(_full_mean(x))
            var = np.full(shape, np.dot(dx, dx) / divisor)
        else:  # Welford is exact on constant slices: so is a two-pass after one sample's shift
            first = tuple(slice(0, 1) if d in axes else slice(None) for d in range(x.ndim))
            x64 = x.astype(np.float64)
            x64 = x64 - x64[first]
            dx = x64 - x64.mean(axis=axes, keepdims=True)
            var = (dx * dx).sum(axis=axes, keepdims=keepdim) / divisor
        return np.asarray(np.sqrt(var) if sqrt else var).astype(x.dtype)


class CenterBackward(Node):
    """x minus its mean over dims, as one node: the gradient minus its own mean (linear, so
    the tangent is the same map of the input's)."""

    jvp = tangents.linear(lambda node, out, t: node.backward(t)[0])

    def backward(self, g):
        return (g - formula.sum_keepdim(g, self.dims) / self.count,)


def _centered(x: Any, dims: tuple | None) -> Any:
    """x - x.mean(dims, keepdim=True) as PyTorch's var_backward has it (over every element, its
    mean in PyTorch's order: the one the forward centred on); recorded on Tensors."""
    data = formula.data(x)
    axes = tuple(range(data.ndim)) if dims is None else dims
    if not data.size:
        mean = data.dtype.type(0)
    elif _is_full(data.shape, dims):
        mean = _full_mean(data)
    else:
        mean = np.mean(data, axis=axes, keepdims=True)
    return formula.result(
        CenterBackward,
        data - mean,
        (x,),
        dims=axes,
        count=builtins.max(_count(data.shape, axes), 1),
    )


def _var_backward(g: Any, x: Any, dims: tuple | None, correction: float, keepdim: bool) -> Any:
    """PyTorch's var_backward: 2 / (n - correction) * g * (x - mean)."""
    data = formula.data(x)
    if dims is None or data.ndim == 0:
        dof = data.size - correction
        if dof <= 0:  # infinite scale: nan where x equals the mean, inf elsewhere
            inf_or_nan = np.where(data == _full_mean(data), np.nan, np.inf).astype(data.dtype)
            return g * inf_or_nan
        return g * (2.0 / dof) * _centered(x, None)
    with np.errstate(divide="ignore"):
        scale = np.float64(2.0) / (_count(data.shape, dims) - correction)
    return _keep(g, dims, keepdim, data.ndim) * float(scale) * _centered(x, dims)


class VarBackward0(Node):
    jvp = reduced_tangent

    def backward(self, g):
        return (_var_backward(g, self.saved("self"), self.dim, self.correction, self.keepdim),)


@numpy_names
def var(
    a: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    dims, c = _var_args(a, dim, unbiased, correction)
    return record(
        VarBackward0,
        _var_data(a, dims, c, keepdim),
        (a,),
        save={"self": a},
        dim=dims,
        correction=c,
        keepdim=keepdim,
    )


class StdBackward0(Node):
    """PyTorch's std_backward: var_backward of g / (2 std), with 0 where std is 0 (selected:
    an inf or NaN in g does not get through there)."""

    def jvp(self, out, tangents):
        """var's tangent / (2 std), 0 where std is 0 (NaN where it is NaN)."""
        t = tangents[0]
        var = through_gradient(self, out, t, self.dim, self.keepdim, VarBackward0.backward)
        return formula.keep(out._data != 0, var / (out * 2))

    def backward(self, g):
        r = self.saved("result")
        with np.errstate(divide="ignore", invalid="ignore"):
            g = formula.keep(formula.data(r) != 0, g / (r * 2))
        return (_var_backward(g, self.saved("self"), self.dim, self.correction, self.keepdim),)


@numpy_names
def std(
    a: Tensor,
    dim: Any = None,
    unbiased: Any = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> Tensor:
    dims, c = _var_args(a, dim, unbiased, correction)
    return record(
        StdBackward0,
        _var_data(a, dims, c, keepdim, sqrt=True),
        (a,),
        save={"self": a},
        save_result=True,
        dim=dims,
        correction=c,
        keepdim=keepdim,
    )


def _vector_norm(x: np.ndarray, p: float, dims: tuple | None, keepdim: bool) -> np.ndarray:
    ax = np.abs(x)
    if p == np.inf:
        return ax.max(axis=dims, keepdims=keepdim)
    if p == -np.inf:
        return ax.min(axis=dims, keepdims=keepdim)
    if p == 0:
        return (ax != 0).sum(axis=dims, keepdims=keepdim).astype(x.dtype)
    if p == 1:
        return ax.sum(axis=dims, keepdims=keepdim)
    if p == 2:
        return np.sqrt((ax * ax).sum(axis=dims, keepdims=keepdim))
    return (ax**p).sum(axis=dims, keepdims=keepdim) ** (1 / p)


def vector_norm_backward(g: Tensor, x: Tensor, r: Tensor, p: float, dim: Any, keepdim: bool) -> Any:
    """PyTorch's norm_backward, case by case (p = 0, 1, 2, +-inf, < 1, < 2, other); written
    with Tensor methods (abs, pow), so its node runs on Tensors."""
    g, r = (_keep(t, dim, keepdim, x.ndim) for t in (g, r))
    sign = sgn(x)  # (recorded under create_graph, as PyTorch's self.sgn())
    if p == 0:  # PyTorch returns no gradient at all (None, whatever g holds)
        return None
    if p == 1:
        return sign * g
    if p == 2:
        with np.errstate(divide="ignore", invalid="ignore"):
            return g * formula.keep(r._data != 0, x / r)
    if np.isinf(p):
        ax = np.abs(x._data)
        mask = (ax == r._data) | np.isnan(ax)
        count = mask.sum(axis=dim, keepdims=True)
        return sign * (g / count.astype(x._data.dtype) * mask.astype(x._data.dtype))
    with np.errstate(divide="ignore", invalid="ignore"):
        if p < 1:
            scaled = formula.keep(x._data != 0, x.abs() ** (p - 1)) * sign
            return scaled * g * r ** (1 - p)
        scaled = x.abs() ** (p - 1) * sign if p < 2 else x * x.abs() ** (p - 2)
        return scaled * formula.keep(r._data != 0, g / r ** (p - 1))


class LinalgVectorNormBackward0(Node):
    runs_on_arrays = False  # written with Tensor methods (abs, pow)
    jvp = reduced_tangent

    def backward(self, g):
        x, r = self.saved("self"), self.saved("result")
        return (vector_norm_backward(g, x, r, self.ord, self.dim, self.keepdim),)


def _no_identity(a: Tensor, p: float, dims: tuple | None) -> None:
    """PyTorch's refusal to take a max or min of |x| over nothing (with its missing space)."""
    where = "on an empty tensor "
    if dims is not None:
        empty = [d for d in dims if a._data.shape[d] == 0]
        if not empty:
            return
        where = f"on the dimension {empty[0]}"
    raise RuntimeError(
        f"linalg.vector_norm cannot compute the {p:g} norm {where}because "
        f"{'this dimension is empty and ' if dims is not None else ''}the operation does not "
        "have an identity"
    )


def norm(a: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    _require_float(
        a,
        "linalg.vector_norm: Expected a floating point or complex tensor as input. "
        f"Got {dtypes.SCALAR_NAMES[a.dtype.name]}",
    )
    p = 2 if p in (None, "fro") else p
    dims = _dims(dim, a.ndim) if dim is not None else None
    if not a._data.size and np.isinf(p):
        _no_identity(a, p, dims)
    data = np.asarray(_vector_norm(a._data, p, dims, keepdim), dtype=a._data.dtype)
    return record(
        LinalgVectorNormBackward0,
        data,
        (a,),
        save={"self": a},
        save_result=True,
        ord=p,
        dim=dims,
        keepdim=keepdim,
    )


class DistBackward0(Node):
    """dist is the norm of a - b: norm's gradient for a, its negative for b (each summed back
    to its operand's shape by the engine). For p = 0 PyTorch raises (its norm gradient is
    undefined there, and negating it fails): so does this."""

    runs_on_arrays = False

    def jvp(self, out, tangents):
        """norm's tangent in the direction of a's tangent minus b's."""
        a, b, r = self.saved("self"), self.saved("other"), self.saved("result")
        ones = Tensor._wrap(np.ones((), out._data.dtype))
        factor = vector_norm_backward(ones, a - b, r, self.p, None, False)
        if factor is None:  # p = 0: a zero tangent
            return formula.zeros_like(out)
        t_a, t_b = (formula.tangent_or_zeros(self, tangents, i) for i in (0, 1))
        return (factor * t_a).sum() - (factor * t_b).sum()

    def backward(self, g):
        a, b, r = self.saved("self"), self.saved("other"), self.saved("result")
        grad = vector_norm_backward(g, a - b, r, self.p, None, False)
        if grad is None:  # p = 0: PyTorch negates its undefined gradient for `other`
            raise RuntimeError(
                "Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
                "argument #0 'self'"
            )
        return grad, -grad if self.next_functions[1][0] else None


def dist(a: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """torch.dist: the p-norm of a - b (broadcast), as one node."""
    _tensors("dist", a, other)
    (ta, tb), (x, y), _ = broadcast_operands(a, other)
    if not ta.dtype.is_floating_point and not tb.dtype.is_floating_point or x.dtype.kind != "f":
        name = dtypes.SCALAR_NAMES[dtypes.from_numpy_dtype(x.dtype).name]
        raise RuntimeError(
            f"norm(): input dtype should be either floating point or complex. Got {name} instead."
        )
    diff = x - y
    if not diff.size and np.isinf(p):
        _no_identity(Tensor._wrap(diff), p, None)
    data = np.asarray(_vector_norm(diff, p, None, False), dtype=diff.dtype)
    save = {"self": ta, "other": tb}
    return record(DistBackward0, data, (ta, tb), save=save, save_result=True, p=p)


# --- logsumexp -----------------------------------------------------------------------------
class LogsumexpBackward0(Node):
    """g * exp(x - result): NaN where x and the result are the same infinity, as in PyTorch."""

    def jvp(self, out, tangents):
        """The mean of t weighted by exp(x), as PyTorch's: exp(x - max) t summed, over
        exp(x - max) summed (NaN over an empty slice)."""
        x = self.saved("self")
        dims = _every(self.dim, x.ndim)
        shift = np.max(x._data, axis=dims, keepdims=True) if x._data.size else 0
        weights = (x - Tensor._wrap(np.asarray(shift, x._data.dtype))).exp()
        total = (weights * tangents[0]).sum(dims, keepdim=self.keepdim)
        return total / weights.sum(dims, keepdim=self.keepdim)

    def backward(self, g):
        x, r = self.saved("self"), self.saved("result")
        r, g = (_keep(t, self.dim, self.keepdim, np.ndim(formula.data(x))) for t in (r, g))
        with np.errstate(invalid="ignore", over="ignore"):
            return (g * formula.exp(x - r),)


@numpy_names
def logsumexp(a: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) shifted by the max; an infinite max is not shifted by (so a slice
    holding inf gives inf, and one of -infs gives -inf). Integers and bools give floats."""
    x = a._data
    if x.dtype.kind != "f":
        x = x.astype(dtypes.get_default_dtype().np)
    dims = _dims(dim, a.ndim)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        m = np.max(x, axis=dims, keepdims=True, initial=-np.inf) if x.ndim else x
        m = np.where(np.isinf(m), x.dtype.type(0), m)
        total = np.exp(x - m).sum(axis=dims, keepdims=True)
        data = np.log(total) + m
    if not keepdim and x.ndim:
        data = data.squeeze(dims)
    data = _c_order(np.asarray(data, dtype=x.dtype))
    save = {"self": a}
    return record(
        LogsumexpBackward0, data, (a,), save=save, save_result=True, dim=dims, keepdim=keepdim
    )


# --- softmax family ---------------------------------------------------------------------
def _softmax_input(a: Tensor, dim: int, dtype: Any, kernel: str) -> tuple[Tensor, tuple]:
    """Cast to `dtype` first (a recorded ToCopy, as in PyTorch); integers have no kernel, which
    an empty input never reaches."""
    if dtype is not None:
        a = a.to(dtype)
    dims = _dims(dim, a.ndim)
    if not a.dtype.is_floating_point and a._data.size:
        last = "_lastdim" if a.ndim == 0 or dims == (a.ndim - 1,) else ""
        raise NotImplementedError(
            f'"{kernel}{last}_kernel_impl" not implemented for '
            f"'{dtypes.SCALAR_NAMES[a.dtype.name]}'"
        )
    return a, dims


def _last_dim(x: np.ndarray, dims: tuple) -> bool:
    """Reduced along the last dim only: rows of the (N, C) shape the softmax kernels take."""
    return x.ndim > 0 and dims == (x.ndim - 1,)


def _c_order(a: np.ndarray) -> np.ndarray:
    """PyTorch's softmax output is contiguous, whatever the input's layout (numpy keeps it)."""
    return a if a.flags.c_contiguous else a.copy(order="C")


class SoftmaxBackward0(Node):
    def jvp(self, out, tangents):
        t = tangents[0]
        return out * (t - (out * t).sum(self.dim, keepdim=True))

    def backward(self, g):
        return (softmax_backward_data(g, self.saved("result"), self.dim),)


class SoftmaxBackwardDataBackward0(Node):
    """softmax's gradient, recorded as one op under create_graph, as PyTorch records
    _softmax_backward_data: its own gradients for grad_output and for the softmax's output."""

    def jvp(self, value, tangents):
        go, out, dim = self.saved("grad_output"), self.saved("output"), self.dim
        t_go, t_out = tangents
        total = None if t_go is None else softmax_backward_data(t_go, out, dim)
        if t_out is not None:
            term = t_out * (go - (go * out).sum(dim, keepdim=True))
            term = term - out * (go * t_out).sum(dim, keepdim=True)
            total = term if total is None else total + term
        return total

    def backward(self, gg):
        go, out, dim = self.saved("grad_output"), self.saved("output"), self.dim
        g_go = softmax_backward_data(gg, out, dim) if self.next_functions[0][0] else None
        if not self.next_functions[1][0]:
            return g_go, None
        sum_ = formula.sum_keepdim
        return g_go, go * gg - sum_(out * go, dim) * gg - go * sum_(out * gg, dim)


def softmax_backward_data(g: Any, out: Any, dim: tuple) -> Any:
    """out * (g - sum(g * out)): on arrays the numbers, on Tensors a recorded op."""
    gd, od = formula.data(g), formula.data(out)
    if _last_dim(od, dim) and gd.shape == od.shape:
        rows = (-1, od.shape[-1])
        data = kernels.softmax_backward(gd.reshape(rows), od.reshape(rows)).reshape(od.shape)
    else:
        data = od * (gd - (gd * od).sum(axis=dim, keepdims=True))
    save = {"grad_output": g, "output": out}
    return formula.result(SoftmaxBackwardDataBackward0, data, (g, out), save=save, dim=dim)


def softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    a, dims = _softmax_input(a, dim, dtype, "softmax")
    x = a._data
    if not a.dtype.is_floating_point:  # empty
        return Tensor._wrap(x.copy())
    if x.size and _last_dim(x, dims):  # (the usual case: one kernel call over the rows)
        data = kernels.softmax_forward(x.reshape(-1, x.shape[-1])).reshape(x.shape)
    elif x.size:
        shifted = np.exp(x - x.max(axis=dims, keepdims=True))
        data = _c_order(shifted / shifted.sum(axis=dims, keepdims=True))
    else:  # (numpy's max of nothing raises)
        data = x.copy()
    return record(SoftmaxBackward0, data, (a,), save_result=True, dim=dims)


class LogSoftmaxBackward0(Node):
    def jvp(self, out, tangents):
        t = tangents[0]
        return t - (out.exp() * t).sum(self.dim, keepdim=True)

    def backward(self, g):
        return (log_softmax_backward_data(g, self.saved("result"), self.dim),)


class LogSoftmaxBackwardDataBackward0(Node):
    """log_softmax's gradient as one recorded op (PyTorch's _log_softmax_backward_data)."""

    def jvp(self, value, tangents):
        go, out, dim = self.saved("grad_output"), self.saved("output"), self.dim
        t_go, t_out = tangents
        total = None if t_go is None else log_softmax_backward_data(t_go, out, dim)
        if t_out is not None:
            term = -(out.exp() * t_out) * go.sum(dim, keepdim=True)
            total = term if total is None else total + term
        return total

    def backward(self, gg):
        go, out, dim = self.saved("grad_output"), self.saved("output"), self.dim
        g_go = None
        if self.next_functions[0][0]:
            g_go = gg - formula.sum_keepdim(gg * formula.exp(out), dim)
        if not self.next_functions[1][0]:
            return g_go, None
        return g_go, -formula.sum_keepdim(go, dim) * formula.exp(out) * gg


def log_softmax_backward_data(g: Any, out: Any, dim: tuple) -> Any:
    """g - exp(out) * sum(g): on arrays the numbers, on Tensors a recorded op."""
    gd, od = formula.data(g), formula.data(out)
    data = gd - np.exp(od) * gd.sum(axis=dim, keepdims=True)
    save = {"grad_output": g, "output": out}
    return formula.result(LogSoftmaxBackwardDataBackward0, data, (g, out), save=save, dim=dim)


def log_softmax(a: Tensor, dim: int, dtype=None) -> Tensor:
    a, dims = _softmax_input(a, dim, dtype, "log_softmax")
    x = a._data
    if not a.dtype.is_floating_point:  # empty
        return Tensor._wrap(x.copy())
    if x.size:  # (PyTorch's output is contiguous, whatever the input's layout)
        shifted = x - x.max(axis=dims, keepdims=True)
        data = _c_order(shifted - np.log(np.exp(shifted).sum(axis=dims, keepdims=True)))
    else:  # (numpy's max of nothing raises)
        data = x.copy()
    return record(LogSoftmaxBackward0, data, (a,), save_result=True, dim=dims)
