"""In-place ops: PyTorch's checks, the version counter, and rebasing history onto the new node.

An in-place op is its out-of-place twin run on a snapshot of the old value, whose result is
written back into the tensor's own storage; the tensor then takes the new node as grad_fn.
Writing into a view rebases the view's base instead, through a CopySlices node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..core import grad_mode
from ..core.dtypes import SCALAR_NAMES, from_numpy_dtype
from ..core.node import Node, edge_of
from ..core.saved import SavedTensor
from ..core.tensor import Tensor
from . import formula
from ._record import as_tensor_like, record, should_record
from .flat import gather_flat, scatter_flat
from .indexing import _is_advanced, _normalize_key, getitem, index_put

LEAF_MESSAGE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_OF_LEAF_MESSAGE = (
    "a view of a leaf Variable that requires grad is being used in an in-place operation."
)


def _check(t: Tensor) -> None:
    if t._is_inference and not grad_mode._State.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not "
            "allowed.You can make a clone to get a normal tensor before doing "
            "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
            "details."
        )
    if grad_mode.Anywhere.grad_off and not grad_mode._State.enabled:
        return
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(LEAF_MESSAGE)
    base = t._base
    if base is not None and base._grad_fn is None and base._requires_grad:
        raise RuntimeError(VIEW_OF_LEAF_MESSAGE)
    if t._data.ndim and not t._data.flags.writeable:
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor "
            "refers to a single memory location. Please clone() the tensor before "
            "performing the operation."
        )


def _snapshot(t: Tensor) -> Tensor:
    """The tensor as it is now (history included) on storage the write will not touch."""
    old = Tensor._wrap(t._data.copy(), t._requires_grad)
    old._grad_fn, old._output_nr = t._grad_fn, t._output_nr
    return old


def _write(t: Tensor, data: np.ndarray) -> None:
    if t._data.dtype != data.dtype and not np.can_cast(data.dtype, t._data.dtype, "same_kind"):
        src = SCALAR_NAMES[from_numpy_dtype(data.dtype).name]
        dst = SCALAR_NAMES[from_numpy_dtype(t._data.dtype).name]
        raise RuntimeError(f"result type {src} can't be cast to the desired output type {dst}")
    if data.shape != t._data.shape:
        try:
            data = np.broadcast_to(data, t._data.shape)
        except ValueError:
            raise RuntimeError(
                f"output with shape {list(t.shape)} doesn't match the broadcast "
                f"shape {list(data.shape)}"
            ) from None
    np.copyto(t._data, data, casting="unsafe")
    t._version_counter.value += 1


def _adopt(t: Tensor, result: Tensor) -> None:
    """Make `t` the output of result's node; saved references to `result` now check `t`."""
    node = result._grad_fn
    t._set_history(node, result._output_nr)
    if node is None:
        return
    for key, saved in (node._saved or {}).items():
        if isinstance(saved, SavedTensor) and saved._counter is result._version_counter:
            node._saved[key] = SavedTensor(t, is_output=True)


def _flat_index(view: Tensor) -> np.ndarray:
    """Where each element of a view lives in its base, found by viewing an index array."""
    base = view._base
    return np.array(view._view_fn(np.arange(base._data.size).reshape(base.shape)))


def apply_inplace(t: Tensor, fn: Callable[..., Tensor], *args: Any, **kwargs: Any) -> Tensor:
    """Run `fn(t, *args)` and store the result in t, with PyTorch's autograd semantics."""
    _check(t)
    tensors = [a for a in (t, *args, *kwargs.values()) if isinstance(a, Tensor)]
    if not should_record(tensors):  # then `fn` records nothing either
        _write(t, fn(t, *args, **kwargs)._data)
        return t
    if t._base is not None:
        return _inplace_on_view(t, fn, *args, **kwargs)
    result = fn(_snapshot(t), *args, **kwargs)
    _write(t, result._data)
    _adopt(t, result)
    return t


class CopySlices(Node):
    """The base's new history after one of its views was written in place.

    Like PyTorch's, it wraps the in-place op's node `fn`: its edges are the base's old history
    followed by fn's other inputs; the gradient for fn's `self` lands back in the view's region.
    """

    runs_on_arrays = False  # it runs `fn` through its Tensor `apply`

    def name(self) -> str:
        return "torch::autograd::CopySlices"  # PyTorch's C++ name

    def backward(self, g):
        keep = np.ones(g._data.size, dtype=bool)
        keep[self.flat_index.ravel()] = False
        grads = self.fn.apply((gather_flat(g, self.flat_index),))
        base_grad = formula.keep(keep.reshape(g.shape), g)
        if grads[0] is not None:
            base_grad = base_grad + scatter_flat(grads[0], self.flat_index, tuple(g.shape))
        return (base_grad,) + tuple(grads[1:])

    def _release_variables(self) -> dict:
        freed = self.fn._release_variables()
        self._freed = self.fn._freed
        return freed


def _inplace_on_view(view: Tensor, fn: Callable[..., Tensor], *args: Any, **kw: Any) -> Tensor:
    base = view._base
    flat_index = _flat_index(view)
    result = fn(_snapshot(view), *args, **kw)
    op = result._grad_fn
    node = CopySlices()
    node.next_functions = (edge_of(base),) + op.next_functions[1:]
    node._input_meta = ((base._data.shape, base._data.dtype),) + op._input_meta[1:]
    node.fn, node.flat_index = op, flat_index
    _write(view, result._data)
    base._set_history(node, 0)
    view._regenerate_view_history()
    return view


class AsStridedBackward0(Node):
    """A written view's new history: a window into its base's new history."""

    def backward(self, g):
        return (scatter_flat(g, self.flat_index, self.base_shape),)


def regenerate_view_history(view: Tensor) -> None:
    """Tensor._regenerate_view_history: after its base (or a sibling view) was written in place,
    the view's history is a fresh AsStridedBackward0 linking it to the base's current one."""
    view._view_version = view._version_counter.value
    view._set_history(_view_of_base(view), 0)


def _view_of_base(view: Tensor):
    base = view._base
    if not base.requires_grad:
        return None
    return record(
        AsStridedBackward0,
        view._data,
        (base,),
        flat_index=_flat_index(view),
        base_shape=tuple(base.shape),
    )._grad_fn


# --- PyTorch's in-place methods on top of their out-of-place twins -------------------------
class FillBackward0(Node):
    def backward(self, g):
        return (formula.zeros_like(g),)


def fill(t: Tensor, value: Any) -> Tensor:
    return record(
        FillBackward0,
        np.full(t.shape, value._data if isinstance(value, Tensor) else value, dtype=t._data.dtype),
        (t,),
    )


class ZeroBackward0(FillBackward0):
    pass


def zero(t: Tensor) -> Tensor:
    return record(ZeroBackward0, np.zeros(t.shape, dtype=t._data.dtype), (t,))


class CopyBackwards(Node):
    def name(self) -> str:
        return "torch::autograd::CopyBackwards"  # PyTorch's C++ name

    def backward(self, g):
        return formula.zeros_like(g), g


def copy(t: Tensor, src: Any) -> Tensor:
    src = as_tensor_like(src)
    data = np.broadcast_to(src._data, t.shape).astype(t._data.dtype)
    return record(CopyBackwards, np.array(data), (t, src))


def setitem(t: Tensor, key: Any, value: Any) -> None:
    """t[key] = value: basic keys write through a view, advanced keys use index_put."""
    value = as_tensor_like(value)
    nkey = _normalize_key(key)
    if any(_is_advanced(k) or (isinstance(k, np.ndarray) and k.dtype == np.bool_) for k in nkey):
        nkey = tuple(np.asarray(k) if isinstance(k, list) else k for k in nkey)
        apply_inplace(t, index_put, nkey, value.to(t.dtype) if value.dtype != t.dtype else value)
        return
    apply_inplace(getitem(t, key), copy, value)
