"""The backward graph: nodes (what `grad_fn` is), AccumulateGrad for leaves, saved tensors."""

from __future__ import annotations

import itertools
import re
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ..dtypes import LEGACY_NAMES
from ..tensor import Tensor
from .hooks import RemovableHandle, add_hook

_sequence = itertools.count()
UINT64_MAX = 2**64 - 1

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    An op's own output is kept without a strong link to its node (data, version counter and a
    weak reference to the node), so saving outputs creates no reference cycle.
    """

    __slots__ = (
        "_tensor",
        "_data",
        "_counter",
        "_version",
        "_node_ref",
        "_output_nr",
    )

    def __init__(self, tensor: Tensor, is_output: bool) -> None:
        self._counter = tensor._version_counter
        self._version = self._counter.value
        if is_output:
            node = tensor._grad_fn  # an output is saved before anything can make it a view
            self._tensor = None
            self._data = tensor._data
            self._node_ref = weakref.ref(node) if node is not None else None
            self._output_nr = tensor._output_nr
        else:
            self._tensor = tensor

    def data(self) -> np.ndarray:
        """The saved numbers alone, for a formula running on arrays."""
        if self._counter.value != self._version:
            raise RuntimeError(self._modified_message())
        return self._data if self._tensor is None else self._tensor._data

    def unpack(self, owner: Node) -> Tensor:
        if self._counter.value != self._version:
            raise RuntimeError(self._modified_message())
        if self._tensor is not None:
            return self._tensor
        out = Tensor._wrap(self._data, requires_grad=False, counter=self._counter)
        node = self._node_ref() if self._node_ref is not None else None
        if node is not None:
            out._grad_fn, out._output_nr = node, self._output_nr
        return out

    def _modified_message(self) -> str:
        shape = list(self._data.shape if self._tensor is None else self._tensor.shape)
        dname = (self._data.dtype if self._tensor is None else self._tensor._data.dtype).name
        desc = f"[torch.{LEGACY_NAMES.get(dname, dname)} {shape}]"
        node = (
            self._node_ref()
            if self._tensor is None and self._node_ref
            else (self._tensor.grad_fn if self._tensor is not None else None)
        )
        nr = self._output_nr if self._tensor is None else self._tensor._output_nr
        op = re.sub(r"Backward\d*$", "", node.name()) if node is not None else ""
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
        return (self._data if self._tensor is None else self._tensor._data).shape


class Node:
    """One backward function. `next_functions[i]` is the (node, input_nr) edge that receives the
    gradient for the forward op's i-th input; `_input_meta[i]` its (shape, dtype)."""

    _is_accumulate_grad = False
    # True when backward() is written with ops/formula.py's vocabulary, so that the engine may
    # run it on numpy arrays; `_on_arrays` is set while it does.
    _array_formula = False
    _on_arrays = False
    # Defaults on the class; hook and saved-tensor dicts are created on first use.
    next_functions: tuple = ()
    _input_meta: tuple = ()  # (shape tuple, numpy dtype) per edge
    _saved: dict | None = None
    _freed = False
    _freed_shapes: dict = {}  # what _release_variables dropped, for the explorer
    _pre_hooks: dict | None = None
    _post_hooks: dict | None = None
    _tensor_hooks: dict | None = None  # output_nr -> a tensor's own hook dict
    _retain_hooks: dict | None = None  # output_nr -> retain_grad hook
    _metadata: dict | None = None
    _anomaly_trace: str | None = None
    _num_outputs = 1
    _out_meta: tuple = ()  # (shape, numpy dtype) per forward output, for multi-output nodes

    def __init__(self) -> None:
        self._seq_nr = next(_sequence)

    # --- what PyTorch shows -------------------------------------------------------------
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object>"

    @property
    def metadata(self) -> dict:
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def _sequence_nr(self) -> int:
        """Creation order; the engine runs ready nodes newest first, as PyTorch's does."""
        return self._seq_nr

    def register_hook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_inputs, grad_outputs) -> new grad_inputs or None; runs after the node."""
        if self._post_hooks is None:
            self._post_hooks = {}
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) -> new grad_outputs or None; runs before the node."""
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return add_hook(self._pre_hooks, fn)

    def _hook_dict(self, attr: str) -> dict:
        d = getattr(self, attr)
        if d is None:
            d = {}
            setattr(self, attr, d)
        return d

    # --- saved tensors ----------------------------------------------------------------------
    def _save(self, tensors: dict) -> None:
        if self._saved is None:
            self._saved = {}
        for key, t in tensors.items():
            if isinstance(t, Tensor):
                if t._is_inference:
                    t._check_savable()
                # an output's grad_fn is this node, set just now: no stale view to regenerate
                self._saved[key] = SavedTensor(t, is_output=t._grad_fn is self)
            else:
                self._saved[key] = t

    def saved(self, key: str):
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        value = self._saved[key]
        if not isinstance(value, SavedTensor):
            return value
        return value.data() if self._on_arrays else value.unpack(self)

    def __getattr__(self, attr: str) -> Any:
        # grad_fn._saved_self, _saved_other ... like PyTorch's generated attributes
        saved = self.__dict__.get("_saved")
        if attr.startswith("_saved_") and saved:
            key = attr[len("_saved_") :]
            if key in saved:
                return self.saved(key)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{attr}'")

    def saved_tensor_slots(self) -> list[tuple[str, tuple, bool]]:
        """(name, shape, freed) of each tensor this node saved: what the explorer draws."""
        if self._freed:
            return [(k, shape, True) for k, shape in self._freed_shapes.items()]
        return [
            (k, v.shape, False)
            for k, v in (self._saved or {}).items()
            if isinstance(v, SavedTensor)
        ]

    def _release_variables(self) -> dict:
        """Drop saved tensors (retain_graph=False); returns {name: shape} of what was freed."""
        saved = self._saved
        if not saved or self._freed:
            return {}
        self._freed_shapes = {k: v.shape for k, v in saved.items() if type(v) is SavedTensor}
        self._saved = dict.fromkeys(saved)
        self._freed = True
        return self._freed_shapes

    # --- running ----------------------------------------------------------------------------
    def _materialize(self, grads: list, arrays: bool) -> list:
        """Zeros for outputs that received no gradient (multi-output nodes only)."""
        filled = []
        for g, (shape, dt) in zip(grads, self._out_meta):
            if g is None:
                g = np.zeros(shape, dtype=dt)
                g = g if arrays else Tensor._wrap(g)
            filled.append(g)
        return filled

    def backward(self, *grads: Tensor | None) -> tuple:  # pragma: no cover - overridden
        raise NotImplementedError

    def apply(self, grads: tuple) -> tuple:
        """Gradients for each next edge, given the gradients of each forward output."""
        out = self.backward(*grads)
        return out if isinstance(out, tuple) else (out,)

    def __call__(self, *grads: Tensor | None) -> Any:
        out = self.apply(grads)
        return out[0] if len(out) == 1 else out


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad: adds incoming gradients into `variable.grad`."""

    _is_accumulate_grad = True

    def __init__(self, variable: Tensor) -> None:
        super().__init__()
        self.variable = variable
        self._seq_nr = UINT64_MAX  # runs as soon as it is ready, as in PyTorch
        self._input_meta = ((variable._data.shape, variable._data.dtype),)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch reports its C++ name here

    def backward(self, grad: Tensor) -> tuple:
        return ()


def grad_accumulator(tensor: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad, shared by every graph that uses the leaf while one is alive."""
    ref = tensor._grad_acc_ref
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(tensor)
        tensor._grad_acc_ref = weakref.ref(acc)
    return acc
