"""The backward graph: nodes (what `grad_fn` is), their edges, and AccumulateGrad for leaves."""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from . import forward_grad
from .hooks import RemovableHandle, add_hook
from .saved import FREED_MESSAGE, HOOKS, SavedTensor, SavedTensorHooks
from .tensor import Tensor, _Untracked

_sequence = itertools.count()
UINT64_MAX = 2**64 - 1


def use_sequence_number() -> None:
    """Take a number as a node PyTorch makes and drops inside one backward call does (its
    GraphRoot above several roots, its Identity for an input no graph has reached yet)."""
    next(_sequence)


class Node:
    """One backward function. `next_functions[i]` is the (node, input_nr) edge that receives the
    gradient for the forward op's i-th input; `_input_meta[i]` its (shape, dtype)."""

    _is_accumulate_grad = False
    # With `inputs=`, a built-in node returns None for an input no path to an input needs
    # (PyTorch's generated formulas ask should_compute_output); a custom Function's backward
    # computes them all, and they are seen by its post-hooks (autograd/function.py).
    masks_unneeded = True
    # A node's backward() is written with ops/formula.py's vocabulary, so a plain backward may
    # run it on numpy arrays (see `apply_arrays`). A node whose formula needs Tensors opts out.
    runs_on_arrays = True
    _given_arrays = False  # set by apply_arrays while the formula runs: saved() answers arrays
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
        return add_hook(self._hook_dict("_post_hooks"), fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """fn(grad_outputs) -> new grad_outputs or None; runs before the node."""
        return add_hook(self._hook_dict("_pre_hooks"), fn)

    def _hook_dict(self, attr: str) -> dict:
        """One of the hook dicts, created on first use (most nodes never get one)."""
        d = getattr(self, attr)
        if d is None:
            d = {}
            setattr(self, attr, d)
        return d

    # --- saved tensors ----------------------------------------------------------------------
    def _save(self, tensors: dict) -> None:
        saved = self._saved
        if saved is None:
            saved = self._saved = {}
        for key, t in tensors.items():
            if isinstance(t, Tensor):
                if t._is_inference or type(t._version_counter) is _Untracked:
                    t._check_savable()  # (the second: an inference tensor given normal .data)
                # an output's grad_fn is this node, set just now: no stale view to regenerate
                saved[key] = SavedTensor(t, t._grad_fn is self)
            else:
                saved[key] = t
        if SavedTensorHooks.open and HOOKS.pairs:
            self._unpack_through_tensors()

    def _unpack_through_tensors(self) -> None:
        """A saved tensor that went through pack/unpack hooks may come back as anything: run
        this node's formula on Tensors then, so a mismatch raises PyTorch's RuntimeError."""
        self.runs_on_arrays = False

    def saved(self, key: str):
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        value = self._saved[key]
        if not isinstance(value, SavedTensor):
            return value
        try:
            return value.data() if self._given_arrays else value.unpack(self)
        except RuntimeError:
            if len(self._saved) > 1:
                self._check_saved()  # (raises the error PyTorch would raise first)
            raise

    def __getattr__(self, attr: str) -> Any:
        # grad_fn._saved_self, _saved_other ... like PyTorch's generated attributes, and
        # _raw_saved_self ...: the SavedTensor itself (register_hooks on it)
        saved = self.__dict__.get("_saved")
        if attr.startswith("_saved_") and saved:
            key = attr[len("_saved_") :]
            if key in saved:
                return self.saved(key)
        if attr.startswith("_raw_saved_") and saved:
            value = saved.get(attr[len("_raw_saved_") :])
            if isinstance(value, SavedTensor):
                self._unpack_through_tensors()  # hooks may be registered on it
                return value
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
        shapes = {}
        for k, v in saved.items():  # released in place: _raw_saved_x then raises as in PyTorch
            if type(v) is SavedTensor:
                shapes[k] = v.release()
            else:
                saved[k] = None
        self._freed_shapes = shapes
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

    def jvp(self, out: Any, tangents: list) -> Any:
        """Forward mode's formula beside `backward`: the output's tangent (None for none) from
        each input's (None where it has none), run on a node outside the graph that holds
        what the op saved (ops/tangents.py). An op without one raises PyTorch's error."""
        raise forward_grad.not_implemented(self)

    def _check_saved(self) -> None:
        """Every saved tensor checked in the order PyTorch's generated nodes unpack theirs
        (inputs by name, then outputs), so that when several were changed the error names the
        one PyTorch's names, whatever order a formula here reads them in. Run only once one
        check has failed (`saved`)."""
        saved = [v for v in self._saved.items() if isinstance(v[1], SavedTensor)]
        for _, value in sorted(saved, key=lambda kv: (kv[1]._node_ref is not None, kv[0])):
            if value._hooks is None:
                value._check_unchanged()

    def apply(self, grads: tuple) -> tuple:
        """Gradients for each next edge, given the gradients of each forward output."""
        out = self.backward(*grads)
        return out if isinstance(out, tuple) else (out,)

    def apply_arrays(self, grads: list) -> tuple:
        """`apply` on numpy arrays, for a node that `runs_on_arrays`: its saved tensors arrive
        as arrays too, so the formula records nothing and costs little more than its numpy."""
        self._given_arrays = True
        try:
            out = self.backward(*grads)
        finally:
            self._given_arrays = False
        return out if isinstance(out, tuple) else (out,)

    def __call__(self, *grads: Tensor | None) -> Any:
        out = self.apply(grads)
        return out[0] if len(out) == 1 else out


class AccumulateGrad(Node):
    """The sink for a leaf that requires grad: adds incoming gradients into `variable.grad`."""

    _is_accumulate_grad = True
    runs_on_arrays = False  # the engine runs it as `accumulate_grad` (autograd/engine.py)
    _seq_nr = UINT64_MAX  # runs as soon as it is ready; it uses no number up, as in PyTorch

    def __init__(self, variable: Tensor) -> None:  # (no Node.__init__: no sequence number)
        self.variable = variable
        self._input_meta = ((variable._data.shape, variable._data.dtype),)

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch reports its C++ name here

    @property
    def _tensor_hooks(self) -> dict | None:
        """The leaf's own hooks: PyTorch keeps them as its AccumulateGrad's tensor pre-hooks."""
        hooks = self.variable._backward_hooks
        return {0: hooks} if hooks else None

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


def edge_of(t: Tensor) -> tuple[Node | None, int]:
    """Where a gradient for `t` goes: its grad_fn's slot, its AccumulateGrad, or nowhere."""
    fn = t._grad_fn if t._base is None else t.grad_fn
    if fn is not None:
        return fn, t._output_nr
    if t._requires_grad:
        return grad_accumulator(t), 0
    return None, 0
