"""Custom autograd Functions with PyTorch's API: the ctx is the backward node itself."""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from ..core import grad_mode
from ..core.forward_grad import Levels, computing_tangents, set_tangent, tangent_of
from ..core.node import Node
from ..core.saved import FREED_MESSAGE, SavedTensor
from ..core.tensor import Tensor
from ..ops._record import announce, connect, record_many
from ..ops.tangents import has_tangents


class FunctionCtx:
    """What forward() receives as ctx; also usable alone for setup_context-style code."""

    def save_for_backward(self, *tensors: Any) -> None:
        self.to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """What `jvp` reads as ctx.saved_tensors (kept as they are: no version checks)."""
        if not all(t is None or isinstance(t, Tensor) for t in tensors):
            raise AssertionError(
                "save_for_forward expects all arguments to be tensors; you should save "
                "non-tensors as attributes on ctx."
            )
        self.saved_for_forward = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        self.non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class BackwardCFunction(Node, FunctionCtx):
    """The node a custom Function leaves in the graph (named `<Function>Backward`)."""

    _forward_cls: type = None  # set per Function subclass
    runs_on_arrays = False  # the user's backward is written for Tensors
    masks_unneeded = False  # its post-hooks see every gradient the user's backward returned

    def __init__(self) -> None:
        Node.__init__(self)
        self.to_save = ()
        self.dirty_tensors = ()
        self.non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._saved_list: list | None = None
        self.saved_for_forward = ()
        self._in_jvp = False  # while the user's jvp runs, saved_tensors are saved_for_forward

    def name(self) -> str:
        return type(self).__name__

    @property
    def saved_tensors(self) -> tuple:
        if self._in_jvp:
            return tuple(self.saved_for_forward)
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        if self._saved_list is None:
            return tuple(self.to_save)
        return tuple(s.unpack(self) if isinstance(s, SavedTensor) else s for s in self._saved_list)

    def _release_variables(self) -> dict:
        if not self._saved_list or self._freed:
            return {}
        self._freed_shapes = {
            f"saved_tensors[{i}]": s.shape
            for i, s in enumerate(self._saved_list)
            if isinstance(s, SavedTensor)
        }
        self._saved_list = [None] * len(self._saved_list)
        self._freed = True
        return self._freed_shapes

    def saved_tensor_slots(self) -> list:
        if self._freed:
            return [(k, shape, True) for k, shape in self._freed_shapes.items()]
        return [
            (f"saved_tensors[{i}]", s.shape, False)
            for i, s in enumerate(self._saved_list or [])
            if isinstance(s, SavedTensor)
        ]

    def _materialize(self, grads: list, arrays: bool) -> list:
        return Node._materialize(self, grads, arrays) if self.materialize_grads else grads

    def apply(self, grads: tuple) -> tuple:
        cls = self._forward_cls
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        result = (vjp if vjp is not Function.vjp else backward)(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self._arg_is_tensor)  # one gradient per forward argument
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(result)})"
            )
        for position, (r, is_tensor) in enumerate(zip(result, self._arg_is_tensor), 1):
            if r is not None and not is_tensor:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at position "
                    f"{position}, but the corresponding forward input was not a Variable"
                )
        return tuple(r for r, is_tensor in zip(result, self._arg_is_tensor) if is_tensor)


class FunctionMeta(type):
    """Gives each Function subclass its own node class, `<Name>Backward`."""

    def __init__(cls, name: str, bases: tuple, attrs: dict) -> None:
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_forward_cls": cls})


class Function(metaclass=FunctionMeta):
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`; call `.apply`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. "
            "Please use new-style autograd function with static forward method. "
            "(Example: https://pytorch.org/docs/stable/autograd.html"
            "#torch.autograd.Function)"
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your "
            "custom autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward mode: the outputs' tangents from the inputs' (one per forward argument:
        None for a non-Tensor, zeros for a Tensor without one)."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with "
            "forward mode AD."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
        """The current style: `forward(*args)` computes without a ctx, and this fills the ctx
        from the inputs (every argument, defaults included) and the output."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        separate_ctx = cls.setup_context is not Function.setup_context
        if separate_ctx:
            args, kwargs = _bind(cls.forward, args, kwargs), {}
        tensor_args = [a if isinstance(a, Tensor) else None for a in args]
        needs = tuple(bool(t is not None and t.requires_grad) for t in tensor_args)
        differentiable = grad_mode.is_grad_enabled() and any(needs)
        if differentiable:  # PyTorch collects the edges before it makes the node: a view's
            for t in tensor_args:  # history re-derived now takes the earlier sequence number
                if t is not None and t._base is not None:
                    _ = t.grad_fn
        node = cls._backward_cls()
        node.needs_input_grad = needs
        with grad_mode.no_grad(), computing_tangents():  # (the inputs' tangents go to jvp)
            if separate_ctx:
                raw = cls.forward(*args)
                cls.setup_context(node, args, raw)
            else:
                raw = cls.forward(node, *args, **kwargs)
        single = not isinstance(raw, tuple)
        outputs = (raw,) if single else raw

        if differentiable:  # edges first: a dirty input is about to be rebased onto this node
            node._arg_is_tensor = tuple(t is not None for t in tensor_args)
            connect(node, tuple(t for t in tensor_args if t is not None))
        dirty = {id(t) for t in node.dirty_tensors}
        returned = {id(o) for o in outputs if isinstance(o, Tensor)}
        if dirty - returned:
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not "
                "returned as output. The inputs that are modified inplace must all "
                "be outputs of the Function."
            )
        input_ids = {id(t) for t in tensor_args if t is not None}
        non_diff = {id(t) for t in node.non_differentiable}
        wrapped = []
        for i, o in enumerate(outputs):
            if not isinstance(o, Tensor):
                wrapped.append(o)
                continue
            if id(o) in dirty:
                if differentiable and o.is_leaf and o._requires_grad:
                    raise RuntimeError(
                        "a leaf Variable that requires grad has been used in an in-place operation."
                    )
                o._version_counter.value += 1  # PyTorch bumps dirty outputs once more
                out = o
            elif id(o) in input_ids:  # an input returned as is: a new tensor on the same data
                out = Tensor._wrap(o._data, counter=o._version_counter)
            else:
                out = o
            if differentiable and id(o) not in non_diff and o._data.dtype.kind in "fc":
                out._set_history(node, i)
                out._requires_grad = False
            elif id(o) in non_diff or differentiable:  # (an integer output: never differentiable)
                out._requires_grad = False
            wrapped.append(out)
        if Levels.active and has_tangents(tensor_args):
            wanted = [
                isinstance(o, Tensor) and o._data.dtype.kind in "fc" and id(o) not in non_diff
                for o in outputs
            ]
            views = [
                isinstance(o, Tensor)
                and id(o) not in dirty
                and (id(o) in input_ids or o._base is not None)
                for o in outputs
            ]
            _forward_ad(cls, node, args, wrapped, wanted, views)
        if differentiable:
            node._num_outputs = len(outputs)
            node._out_meta = tuple(
                (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), None)
                for o in outputs
            )
            out_ids = {id(o): w for o, w in zip(outputs, wrapped) if isinstance(o, Tensor)}
            node._saved_list = [_save(node, i, t, out_ids) for i, t in enumerate(node.to_save)]
            node.to_save = ()
            first = next((w for w in wrapped if isinstance(w, Tensor)), None)
            if first is not None:
                announce(node, tuple(tensor_args), first)
        return wrapped[0] if single else tuple(wrapped)


def _forward_ad(cls: type, ctx: Any, args: tuple, wrapped: list, wanted: list, views: list) -> None:
    """Run the user's jvp on the inputs' tangents and give each output its tangent, with
    PyTorch's checks: `wanted[i]`, output i may take one (a differentiable Tensor);
    `views[i]`, it is a view or an input returned as is, whose tangent must be a view too."""
    given = [_tangent_for(ctx, a) for a in args]
    ctx._in_jvp = True
    try:
        with computing_tangents():
            result = cls.jvp(ctx, *given)
    finally:
        ctx._in_jvp = False
    result = result if isinstance(result, tuple) else (result,)
    for i, t in enumerate(result):
        if t is not None and not isinstance(t, Tensor):
            raise RuntimeError(
                f"expected Variable or None (got {type(t).__name__}) for grad output {i}."
            )
    if len(result) != len(wrapped):
        raise RuntimeError(
            "Function's jvp returned an invalid number of forward gradients (expected "
            f"{len(wrapped)} but got {len(result)})"
        )
    for i, (out, t) in enumerate(zip(wrapped, result)):
        if t is None or not isinstance(out, Tensor):
            continue  # (PyTorch ignores what comes for a non-Tensor output, and fails an
            # internal assert for None where a differentiable output needs a tangent)
        if not wanted[i]:
            raise RuntimeError(
                f"Function's jvp returned a gradient at position {i}, but  the corresponding "
                "forward output is not a differentiable Tensor.You should return None at that "
                "position instead."
            )
        _check_tangent(out, t, views[i])
        set_tangent(out, t)


def _tangent_for(ctx: Any, arg: Any) -> Tensor | None:
    """An input's tangent for jvp: its own, else zeros for a floating Tensor (None when the
    ctx does not materialize), None for anything else."""
    if not isinstance(arg, Tensor):
        return None
    tangent = tangent_of(arg)
    if tangent is None and arg._data.dtype.kind in "fc" and ctx.materialize_grads:
        return Tensor._wrap(np.zeros_like(arg._data))
    return tangent


def _check_tangent(out: Tensor, tangent: Tensor, view: bool) -> None:
    if tangent._data.shape != out._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(out.shape)} while "
            f"the given forward gradient is of size {list(tangent.shape)}."
        )
    if view and tangent._base is None:
        raise RuntimeError(
            "A custom Function's forward is returning a view (or an input as-is) but the jvp "
            "is not returning a view."
        )


@functools.cache
def _signature(forward: Any) -> inspect.Signature:
    return inspect.signature(forward)


def _bind(forward: Any, args: tuple, kwargs: dict) -> tuple:
    """Every argument of `forward`, by position, defaults filled in: setup_context's `inputs`."""
    bound = _signature(forward).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.args)


def _save(node: Node, index: int, t: Any, out_ids: dict) -> Any:
    if t is None:
        return None
    if not isinstance(t, Tensor):
        raise TypeError(
            f"save_for_backward can only save variables, but argument {index} is of type "
            f"{type(t).__name__}"
        )
    if id(t) in out_ids:
        return SavedTensor(out_ids[id(t)], is_output=True)
    return SavedTensor(t, is_output=False)


ONCE_DIFFERENTIABLE_MESSAGE = (
    "trying to differentiate twice a function that was marked with @once_differentiable"
)


class DelayedError(Node):
    """What once_differentiable puts between a gradient made with create_graph and the graph:
    the gradient still requires grad, and backpropagating through it raises."""

    runs_on_arrays = False

    def name(self) -> str:
        return "torch::autograd::Error"  # PyTorch reports its C++ name here

    def apply(self, grads: tuple) -> tuple:
        raise RuntimeError(ONCE_DIFFERENTIABLE_MESSAGE)


def once_differentiable(fn):
    """Run backward without recording, as PyTorch's decorator does. When grad mode is on and a
    gradient fed to it requires grad (create_graph), each result hangs from a DelayedError
    over a detached stand-in, so a later attempt to differentiate it fails loudly."""

    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with grad_mode.no_grad():
            outputs = fn(ctx, *args)
        if not grad_mode._State.enabled or not any(
            isinstance(a, Tensor) and a.requires_grad for a in args
        ):
            return outputs
        single = not isinstance(outputs, tuple)
        results = [outputs] if single else list(outputs)
        where = [i for i, r in enumerate(results) if isinstance(r, Tensor)]
        stand_ins = tuple(results[i].detach().requires_grad_(True) for i in where)
        errors = record_many(DelayedError, [t._data for t in stand_ins], stand_ins)
        for i, err in zip(where, errors):
            results[i] = err
        return results[0] if single else tuple(results)

    return wrapper
