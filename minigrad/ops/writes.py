"""PyTorch's writing methods: fill_, zero_, copy_, masked_fill_, normal_, uniform_ and
`t[key] = value`, each an out-of-place twin run in place by inplace.py."""

from __future__ import annotations

import numbers
import warnings
from functools import partial
from typing import Any

import numpy as np

from .. import creation
from ..core.dtypes import LEGACY_NAMES, SCALAR_NAMES
from ..core.node import Node
from ..core.tensor import Tensor
from . import formula
from ._record import argument_error, is_operand, record, should_record
from .elementwise import checked_scalar, masked_fill
from .indexing import index_put, index_views, put_key, written_places
from .inplace import (
    ALLOWED,
    ANY,
    EARLY,
    LATE,
    NONE,
    PARTIAL_OVERLAP_MESSAGE,
    STEPWISE_LIMIT,
    check_inplace,
    copy,
    overlapping,
    run_inplace,
    same_data,
    shares_memory,
    writable,
)
from .shape import broadcast_shapes, expand, tangent_or_zeros


class FillBackward2(Node):
    """fill_ with a number: the old values get no gradient (nor tangent: zeros)."""

    def jvp(self, out, tangents):
        return Tensor._wrap(np.zeros(out._data.shape, out._data.dtype))

    def backward(self, g):
        return (formula.zeros_like(g),)


class FillBackward3(Node):
    """fill_ with a 0-d tensor: the value gets the sum of the gradient, and gives its tangent
    to every place."""

    def jvp(self, out, tangents):
        return fill(
            Tensor._wrap(np.zeros(out._data.shape, out._data.dtype)),
            tangent_or_zeros(self, tangents, 1),
        )

    def backward(self, g):
        if self.next_functions[1][0] is None:
            return formula.zeros_like(g), None
        return formula.zeros_like(g), g.sum() if isinstance(g, Tensor) else np.asarray(g.sum())


def fill(t: Tensor, value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        number = checked_scalar(value, t._data.dtype)
        return record(FillBackward2, np.full(t.shape, number, dtype=t._data.dtype), (t,))
    if value.ndim:
        raise RuntimeError(
            "fill_ only supports 0-dimension value tensor but got tensor with "
            f"{value.ndim} dimensions."
        )
    data = np.full(t.shape, value._data, dtype=t._data.dtype)
    return record(FillBackward3, data, (t, value))


def fill_(t: Tensor, value: Any) -> Tensor:
    """x.fill_(v): a number may fill an expanded tensor; a tensor value is copied, which may
    not, once the value is checked (PyTorch's rules)."""
    return run_inplace(t, fill, (value,), {}, LATE if isinstance(value, Tensor) else ALLOWED)


class ZeroBackward0(FillBackward2):
    pass


def zero(t: Tensor) -> Tensor:
    return record(ZeroBackward0, np.zeros(t.shape, dtype=t._data.dtype), (t,))


def zero_(t: Tensor) -> Tensor:
    return run_inplace(t, zero, (), {}, ALLOWED)


def copy_(t: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    if not is_operand(src):
        raise argument_error("copy_", "other", 1, src)
    return copy_into(t, src)


def copy_into(t: Tensor, src: Any) -> Tensor:
    """`t.copy_(src)`; a copy onto the very same elements is let through even where `t` is
    expanded, as PyTorch's copy_ returns before its overlap checks then."""
    same = isinstance(src, Tensor) and same_data(t._data, src._data)
    overlap = ALLOWED if same else EARLY
    return run_inplace(t, copy, (src,), {}, overlap, wraps_numbers=True, float_target_only=True)


EXPANDED_MASKED_FILL = (
    "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"
)
EXPANDED_INDEX_PUT = (
    "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
    "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = "
    "tensor"
)


def masked_fill_(t: Tensor, mask: Any, value: Any) -> Tensor:
    """In place, the mask broadcasts to t (PyTorch names t as "tensor a" when it cannot)."""
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    broadcast_shapes(tuple(t.shape), m.shape)
    if overlapping(t._data):
        warnings.warn(EXPANDED_MASKED_FILL, UserWarning, stacklevel=2)
    return run_inplace(t, masked_fill, (mask, value), {}, ALLOWED, lambda: m)


# --- t[key] = value ----------------------------------------------------------------------
def _value_tensor(t: Tensor, value: Any) -> Tensor:
    """A Python number becomes a 0-d tensor of t's dtype (PyTorch's valueToTensor)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, numbers.Number):
        return Tensor._wrap(checked_scalar(value, t._data.dtype))
    kind = type(value)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    raise TypeError(f"can't assign a {name} to a torch.{LEGACY_NAMES[t.dtype.name]}")


def setitem(t: Tensor, key: Any, value: Any) -> None:
    """t[key] = value as PyTorch's indexing does it: the basic indices as views, then index_put_
    for the advanced ones; without them a copy_ into the view (fill_ for a 0-d value, the value
    expanded to the view's shape otherwise)."""
    if key is False:  # PyTorch: nothing to write, not even a new version
        return
    value = _value_tensor(t, value)
    if value is t and _integer_indexed(key):  # (index_put_ refuses its own target before it
        check_inplace(t, should_record((t,)))  # reads the indices, after autograd's checks)
        raise RuntimeError(PARTIAL_OVERLAP_MESSAGE)
    # a lone True is a new dim of size 1, as None (PyTorch copies into t.unsqueeze(0))
    view, advanced, sources = index_views(t, None if key is True else key, lone_slice=False)
    if advanced:
        _index_put_(view, advanced, _without_leading_ones(value), sources)
    elif view.shape == value.shape:
        copy_into(view, value)
    elif value.ndim == 0:
        run_inplace(view, fill, (value,), {})
    else:
        src = _without_leading_ones(value)
        if src.shape != view.shape:
            src = expand(src, tuple(view.shape))
        copy_into(view, src)


def _integer_indexed(key: Any) -> bool:
    """Whether `key` holds integer indices (a tensor, array or list of them): index_put_ then,
    never the masked fill a bool mask with one value becomes."""
    parts = key if isinstance(key, tuple) else (key,)
    for k in parts:
        if isinstance(k, (Tensor, np.ndarray)):
            if np.asarray(k._data if isinstance(k, Tensor) else k).dtype != np.bool_:
                return True
        elif isinstance(k, list) and not any(isinstance(v, bool) for v in k):
            return True
    return False


def _without_leading_ones(value: Tensor) -> Tensor:
    """The value viewed without its leading dims of size 1 (PyTorch's slicePrefix1sSize): a
    recorded view, as PyTorch's."""
    shape = tuple(value.shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return value if len(shape) == value.ndim else value.view(shape)


def _index_put_(t: Tensor, advanced: dict, value: Tensor, sources: tuple) -> None:
    """PyTorch's index_put_: one mask with a one-element value is a masked fill (the value
    cast to t's dtype); otherwise the dtypes must match."""
    only = next(iter(advanced.values())) if len(advanced) == 1 else None
    fills = only is not None and only.dtype == np.bool_ and value._data.size == 1
    if value.dtype != t.dtype and fills:  # (other dtypes are refused by index_put)
        if t._data.dtype.kind != "f" and should_record((value,)):
            # an integer tensor never requires grad (PyTorch lets this write make one, and
            # refuses the next op on it with this error)
            raise RuntimeError(f"Autograd not support dtype: {SCALAR_NAMES[t.dtype.name]}")
        value = value.to(t.dtype)
    if overlapping(t._data):
        warnings.warn(EXPANDED_MASKED_FILL if fills else EXPANDED_INDEX_PUT, UserWarning, 3)
    if not fills and _read_while_written(t, value):
        value = _as_read_in_order(t, advanced, value)
    written = partial(written_places, t, advanced)
    aliasing = NONE if fills else ANY
    run_inplace(t, index_put, (advanced, value, sources), {}, ALLOWED, written, aliasing=aliasing)


def _read_while_written(t: Tensor, value: Tensor) -> bool:
    """A value sharing t's memory in a way PyTorch's overlap test finds too hard to compare
    (not dense), so its kernel runs, reading the value as it writes; gradients aside."""
    return (
        t._data.size <= STEPWISE_LIMIT
        and np.may_share_memory(t._data, value._data)
        and not shares_memory(t._data, value._data)
        and not should_record((value,))
    )


def _as_read_in_order(t: Tensor, advanced: dict, value: Tensor) -> Tensor:
    """What each place receives when the places are written in index order and each value
    element is read just before its write (PyTorch's index_put_ kernel loop), as a tensor of
    its own. t's memory is given back as it was: index_put_ writes it."""
    key = put_key(t, advanced, value)
    dst = writable(t._data)
    before = dst.copy()
    try:
        places = np.arange(dst.size).reshape(dst.shape)[key]
        values = np.broadcast_to(value._data, places.shape)  # (a view: read as it changes)
        for k, place in enumerate(places.flat):
            dst[np.unravel_index(place, dst.shape)] = values.flat[k]
        return Tensor._wrap(dst[key].copy())
    finally:
        np.copyto(dst, before)


# --- random fills --------------------------------------------------------------------------
class NormalBackward0(FillBackward2):
    pass


def normal(t: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    creation.random_dtype(t.dtype, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    data = creation.random_normal(tuple(t.shape), mean, std, generator).astype(t._data.dtype)
    return record(NormalBackward0, data, (t,))


class UniformBackward0(FillBackward2):
    pass


def uniform(t: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    creation.random_dtype(t.dtype, "check_uniform_bounds")
    if a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}"
        )
    data = creation.random_uniform(tuple(t.shape), a, b, generator).astype(t._data.dtype)
    return record(UniformBackward0, data, (t,))


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    # PyTorch checks the dtype first
    return run_inplace(t, normal, (mean, std, generator), {}, LATE)


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    return run_inplace(t, uniform, (a, b, generator), {}, LATE)
