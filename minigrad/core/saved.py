"""Saved tensors: what a node keeps for its backward formula, checked against in-place changes."""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from .dtypes import LEGACY_NAMES
from .tensor import Tensor

if TYPE_CHECKING:
    from .node import Node

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


REGISTER_FREED_MESSAGE = (
    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values "
    "of the graph are freed when you call .backward() or autograd.grad(). Specify "
    "retain_graph=True if you need to backward through the graph a second time or if you need "
    "to access saved variables after calling backward."
)


DETACHED_MESSAGE = (  # (PyTorch's, with its missing space)
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_()."
    "This is not supported, please use out-of-place `.detach()` instead"
)


class SavedTensorHooks(threading.local):
    """The (pack, unpack) pairs in force in this thread, innermost last, and the message that
    forbids new ones (autograd.graph.disable_saved_tensors_hooks). `open`, on the class, counts
    the pairs in force in any thread, so saving a tensor looks no further while it is 0."""

    open = 0

    def __init__(self) -> None:
        self.pairs: list[tuple[Callable, Callable]] = []
        self.disabled: str | None = None


HOOKS = SavedTensorHooks()


def push_hooks(pack: Callable, unpack: Callable) -> None:
    if HOOKS.disabled is not None:
        raise RuntimeError(HOOKS.disabled)
    HOOKS.pairs.append((pack, unpack))
    SavedTensorHooks.open += 1


def pop_hooks() -> None:
    HOOKS.pairs.pop()
    SavedTensorHooks.open -= 1


def _short(m: re.Match) -> str:
    """PyTorch's short node names in messages: ExpBackward0 -> Exp, SumBackward1 -> Sum1."""
    return "" if m[1] == "0" else m[1]


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    An op's own output is kept without a strong link to its node (data, version counter and a
    weak reference to the node), so saving outputs creates no reference cycle. Under saved-
    tensor hooks the tensor is handed to the pack hook and only what it returned is kept; the
    unpack hook gives it back at each use, unchecked (PyTorch cannot check it either).
    """

    __slots__ = (
        "_tensor",
        "_data",
        "_counter",
        "_version",
        "_node_ref",
        "_output_nr",
        "_hooks",  # (what pack returned, unpack) or None
        "_shape",  # kept once the tensor itself is gone (packed or freed)
        "_history",  # packed: where the tensor's gradient went, given back to what unpack returns
        "_had_history",  # an input saved with a grad_fn, which detach_() may take away later
        "_fw_grad",  # a saved output's tangent (forward mode), given back with it
    )

    def __init__(self, tensor: Tensor, is_output: bool) -> None:
        self._counter = tensor._version_counter
        self._version = self._counter.value
        self._hooks = self._fw_grad = None
        if is_output:
            node = tensor._grad_fn  # an output is saved before anything can make it a view
            self._tensor = None
            self._data = tensor._data
            self._node_ref = weakref.ref(node) if node is not None else None
            self._output_nr = tensor._output_nr
        else:
            self._tensor, self._node_ref = tensor, None
        self._had_history = not is_output and tensor._grad_fn is not None
        if SavedTensorHooks.open and HOOKS.pairs and not tensor._wrapped_number:
            self._pack(tensor, *HOOKS.pairs[-1])

    def _pack(self, tensor: Tensor, pack: Callable, unpack: Callable) -> None:
        version = tensor._version_counter.value
        packed = pack(tensor)
        if tensor._version_counter.value != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform in-place "
                "operations on the input to a pack hook."
            )
        self._shape = tuple(tensor._data.shape)
        self._hooks = (packed, unpack)
        if tensor._grad_fn is not None and self._tensor is not None:  # (an output: _node_ref)
            self._history = (tensor._grad_fn, tensor._output_nr, None)
        elif tensor._grad_fn is None and tensor._requires_grad:  # a leaf: its AccumulateGrad
            self._history = (None, 0, tensor._grad_acc_ref)
        else:
            self._history = None
        self._tensor = self._data = None  # the pack hook's result stands in for it now

    def _unpacked(self) -> Tensor:
        packed, unpack = self._hooks
        out = unpack(packed)
        if not isinstance(out, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(out).__name__}"
            )
        return self._with_history(out)

    def _with_history(self, out: Tensor) -> Tensor:
        """What unpack returned, with the saved tensor's place in the graph, as PyTorch gives
        it back: a pack hook may detach (PyTorch's own advice), yet gradients through the
        saved tensor (create_graph, checkpointing) must still reach where they went."""
        node = self._node_ref() if self._node_ref is not None else None
        if node is not None:
            history = (node, self._output_nr, None)
        else:
            history = self._history
        if history is None:
            return out
        alias = Tensor._wrap(out._data, counter=out._version_counter)
        grad_fn, output_nr, accumulator = history
        if grad_fn is not None:
            alias._grad_fn, alias._output_nr = grad_fn, output_nr
        else:
            alias._requires_grad, alias._grad_acc_ref = True, accumulator
        return alias

    def register_hooks(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        """Pack this saved tensor now and unpack it at each use (`grad_fn._raw_saved_x`)."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments")
        if self._counter is None:
            raise RuntimeError(REGISTER_FREED_MESSAGE)
        if self._hooks is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        self._pack(self.unpack(None), pack_hook, unpack_hook)

    def release(self) -> tuple:
        """Drop the tensor (retain_graph=False); its shape stays for the explorer and is
        returned."""
        if self._hooks is None:  # (packed: _shape was kept when the tensor went)
            self._shape = (self._data if self._tensor is None else self._tensor._data).shape
        self._tensor = self._data = self._hooks = self._counter = None
        return self._shape

    def data(self) -> np.ndarray:
        """The saved numbers alone, for a formula running on arrays."""
        if self._hooks is not None:
            return self._unpacked()._data
        t = self._tensor
        version = self._counter.value
        if version != self._version or (
            t is not None
            and (
                (t._base is not None and t._view_version != version)  # (a stale view)
                or (self._had_history and t._grad_fn is None)
            )
        ):
            self._check_unchanged()  # (the usual case is checked inline: this runs per use)
        return self._data if t is None else t._data

    def unpack(self, owner: Node | None) -> Tensor:
        if self._hooks is not None:
            return self._unpacked()
        self._check_unchanged()
        if self._tensor is not None:
            return self._tensor
        out = Tensor._wrap(self._data, requires_grad=False, counter=self._counter)
        node = self._node_ref() if self._node_ref is not None else None
        if node is not None:
            out._grad_fn, out._output_nr = node, self._output_nr
        if self._fw_grad is not None:
            out._fw_grad = self._fw_grad
        return out

    def _check_unchanged(self) -> None:
        """Neither detached in place (its history is read off the tensor itself, and detach_()
        took that away) nor written in place since it was saved; PyTorch's order of checks."""
        tensor = self._tensor
        if tensor is not None and tensor._base is not None:
            _ = tensor.grad_fn  # a stale view's history is re-derived first (PyTorch's may refuse)
        if self._had_history and tensor._grad_fn is None:
            raise RuntimeError(DETACHED_MESSAGE)
        if self._counter.value != self._version:
            raise RuntimeError(self._modified_message())

    def _modified_message(self) -> str:
        shape = list(self._data.shape if self._tensor is None else self._tensor.shape)
        dname = (self._data.dtype if self._tensor is None else self._tensor._data.dtype).name
        # PyTorch names a bool tensor by its C++ type here, the others by their legacy type
        kind = "CPUBoolType" if dname == "bool" else f"torch.{LEGACY_NAMES.get(dname, dname)}"
        desc = f"[{kind} {shape}]"
        node = (
            self._node_ref()
            if self._tensor is None and self._node_ref
            else (self._tensor.grad_fn if self._tensor is not None else None)
        )
        nr = self._output_nr if self._tensor is None else self._tensor._output_nr
        op = re.sub(r"Backward(\d+)$", _short, node.name()) if node is not None else ""
        where = f", which is output {nr} of {op}," if node is not None else ""
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: {desc}{where} is at version {self._counter.value}; expected version "
            f"{self._version} instead. Hint: enable anomaly detection to find the operation that "
            "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
            "check_nan=False)."
        )

    @property
    def shape(self) -> tuple:
        if self._tensor is not None:
            return self._tensor._data.shape
        return self._data.shape if self._data is not None else self._shape
