"""Tensor: a numpy array plus autograd state (grad, grad_fn, version counter, hooks, view base)."""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from . import dtypes, forward_grad, grad_mode
from .device import CPU, check_cpu, device
from .formatting import format_tensor
from .grad_mode import Anywhere
from .hooks import RemovableHandle, add_hook
from .shapes import wrap_dim


class _VersionCounter:
    """Shared by a tensor, its views and its detach()es; `.data` gets a fresh one."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class _Untracked(_VersionCounter):
    """An inference tensor's: PyTorch keeps no version for it (`_version` raises)."""

    __slots__ = ()


INFERENCE_INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)
UNTRACKED_MESSAGE = "Inference tensors do not track version counter."
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead."
)


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    What needs a higher floor is attached from there, each in one place: the ops, operators
    and `_regenerate_view_history` by `minigrad/ops/__init__.py`; `backward` by
    `minigrad/autograd/__init__.py`.
    """

    __array_priority__ = 1000  # numpy defers `ndarray * Tensor` to Tensor.__rmul__

    def __init__(self, *args: Any) -> None:
        # Legacy constructor: Tensor([1, 2]) or Tensor(2, 3) -> float32, like torch.Tensor.
        if len(args) == 1 and not isinstance(args[0], int):
            data = np.asarray(args[0]._data if isinstance(args[0], Tensor) else args[0])
        else:
            data = np.empty(tuple(args))
        self._init(np.array(data, dtype=dtypes.get_default_dtype().np))

    # Defaults live on the class: creating a tensor (once per op) sets only what differs.
    _requires_grad = False
    _grad_fn = None
    _output_nr = 0
    _grad = None
    _base = None
    _view_version = 0
    _backward_hooks = None
    _post_acc_hooks = None
    _grad_acc_ref = None
    _retains_grad = False
    _is_inference = False
    _made_meta = None  # (shape, dtype) its grad_fn was made for, once reshaped without history
    _wrapped_number = False  # a Python number an op turned into a tensor (ops/_record.py)
    _fw_grad = None  # (level generation, tangent) in forward-mode AD (core/forward_grad.py)

    @classmethod
    def _wrap(
        cls, data: np.ndarray, requires_grad: bool = False, counter: _VersionCounter | None = None
    ) -> Tensor:
        """A tensor around `data`: the one place a Tensor is set up (once per op, so lean)."""
        t = cls.__new__(cls)
        # numpy ufuncs on 0-d arrays return scalars, which can neither be written in place nor
        # share storage with a detach(): every Tensor holds an ndarray
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        if requires_grad:
            t._requires_grad = True
        if Anywhere.inference_blocks and grad_mode._State.inference:
            t._is_inference = True
            t._version_counter = counter if counter is not None else _Untracked()
        else:
            t._version_counter = counter if counter is not None else _VersionCounter()
        return t

    def _init(
        self, data: np.ndarray, requires_grad: bool = False, counter: _VersionCounter | None = None
    ) -> None:
        """`_wrap` for an instance made elsewhere (legacy constructor, Parameter, deepcopy)."""
        self.__dict__.update(Tensor._wrap(data, requires_grad, counter).__dict__)

    # --- basic attributes ------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        return self.shape if dim is None else self._data.shape[dim]

    @property
    def dtype(self) -> dtypes.dtype:
        return dtypes._BY_NUMPY.get(self._data.dtype) or dtypes.from_numpy_dtype(self._data.dtype)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def stride(self, dim: int | None = None):
        """Elements (not bytes, as numpy counts) to step along each dimension: what decides
        whether view() works and whether a write through a reshape reaches the original."""
        steps = tuple(s // self._data.itemsize for s in self._data.strides)
        return steps if dim is None else steps[wrap_dim(dim, len(steps))]

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    @property
    def device(self) -> device:
        return CPU

    is_cuda = False

    def cpu(self) -> Tensor:
        return self

    def cuda(self, device: Any = None) -> Tensor:
        check_cpu(device if device is not None else "cuda")
        return self

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_inference(self) -> bool:
        return self._is_inference

    name = None  # PyTorch tensors answer None here (seed 000 prints p.name)

    @property
    def volatile(self) -> bool:
        """Removed in PyTorch 0.4; still answers False with a warning, as PyTorch does."""
        warnings.warn(
            "volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2
        )
        return False

    # --- autograd state --------------------------------------------------------------------
    @property
    def grad_fn(self):
        """A view whose base (or a sibling view) was written in place since its history was
        made re-derives it from the base's current one, as PyTorch's does (VariableHooks::
        grad_fn), whatever the grad mode: no stale graph is ever used. Only `grad_fn` and
        `is_leaf` do this (and may raise); `requires_grad` and `.grad` read the raw state."""
        base = self._base
        if (
            base is not None
            and self._view_version != self._version_counter.value
            and (self._grad_fn is not None or base.requires_grad)
        ):
            self._regenerate_view_history()
        return self._grad_fn

    @property
    def requires_grad(self) -> bool:
        """Its own flag, a history, or (a view) a base that requires grad, as PyTorch's
        DifferentiableViewMeta answers: a view follows its base's requires_grad_() later."""
        if self._requires_grad or self._grad_fn is not None:
            return True
        base = self._base
        return base is not None and base.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self._set_requires_grad(
            flag, "only Tensors of floating point and complex dtype can require gradients"
        )

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        return self._set_requires_grad(
            requires_grad, "only Tensors of floating point dtype can require gradients"
        )

    def _set_requires_grad(self, requires_grad: bool, dtype_error: str) -> Tensor:
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError(dtype_error)
        if requires_grad and self._is_inference and not grad_mode._State.inference:
            raise RuntimeError(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not "
                "allowed."
            )
        if self._grad_fn is None:
            self._requires_grad = bool(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def output_nr(self) -> int:
        return self._output_nr

    def _bump(self) -> None:
        """Count an in-place write (PyTorch's increment_version). An inference tensor written
        outside inference mode has no version to count: the write is done, then refused, as in
        PyTorch."""
        counter = self._version_counter
        if type(counter) is _Untracked and not grad_mode.is_inference_mode_enabled():
            raise RuntimeError(INFERENCE_INPLACE_MESSAGE)
        counter.value += 1

    @property
    def _version(self) -> int:
        if type(self._version_counter) is _Untracked:
            raise RuntimeError(UNTRACKED_MESSAGE)
        return self._version_counter.value

    @property
    def grad(self) -> Tensor | None:
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    "assigned grad expected to be a Tensor or None but got grad of "
                    f"type {type(value).__name__}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.dtype != self.dtype:  # (PyTorch checks the dtype before the size)
                given = dtypes.C_NAMES[value.dtype.name]
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{given}'"
                    f" to a tensor with grad_dtype '{dtypes.SCALAR_NAMES[self.dtype.name]}'. The "
                    "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype)."
                )
            if value.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size "
                    f"'{list(value.shape)}' to a tensor of size '{list(self.shape)}'"
                    ". Please ensure that the gradient and the tensor are the same "
                    "size"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    def retain_grad(self) -> None:
        """Keep this non-leaf's gradient in `.grad` (no-op on leaves, an error without grad)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:  # (a leaf by its raw state, as PyTorch)
            return
        # the engine stores the gradient reaching this slot into .grad (engine.accumulate)
        self.grad_fn._hook_dict("_retain_hooks")[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """hook(grad) -> replacement grad or None, run before the gradient is used or stored.

        As in PyTorch, a tensor keeps one hook dict (`_backward_hooks`). A leaf's AccumulateGrad
        runs it; a non-leaf's is attached, when created, to its grad_fn's output slot and stays
        there. An in-place op or a regenerated view history drops the tensor's link to it
        (`_set_history`): earlier hooks keep seeing the old value's gradient, later ones start a
        dict on the new history. The in-place view ops (t_, squeeze_, ...) keep the link, so
        hooks added after them join the earlier ones on the old history, as PyTorch's do."""
        hooks = self._backward_hooks
        if not self.requires_grad:  # (the raw state: it never regenerates a view's history)
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if hooks is None:
            fn = self.grad_fn
            hooks = {}
            if fn is not None:  # another tensor with hooks on this slot shares its dict
                hooks = fn._hook_dict("_tensor_hooks").setdefault(self._output_nr, hooks)
            self._backward_hooks = hooks
        return add_hook(hooks, hook)

    def _set_history(self, node: Any, output_nr: int = 0) -> None:
        """A new grad_fn for this tensor (an in-place op, a regenerated view, a dirty output of
        a custom Function). Hooks registered so far stay with the old history (the tensor lets
        go of their dict); retain_grad moves to the new one, as in PyTorch."""
        old, old_nr = self._grad_fn, self._output_nr
        self._grad_fn, self._output_nr = node, output_nr
        self._made_meta = None
        if self._backward_hooks is not None:
            self._backward_hooks = None
        if not self._retains_grad:
            return
        kept = old._retain_hooks if old is not None else None
        if not kept or old_nr not in kept or kept[old_nr]() is not self:
            # retain_grad() came before an in-place view op, which left it on an older history
            raise RuntimeError(
                "out != nullptr INTERNAL ASSERT FAILED: retain_grad()'s hook is not on this "
                "tensor's grad_fn (an in-place view op such as t_() or squeeze_() after "
                "retain_grad() leaves it on the earlier history), so it cannot move to the new "
                "one; PyTorch fails the same way"
            )
        del kept[old_nr]
        if node is not None:
            node._hook_dict("_retain_hooks")[output_nr] = weakref.ref(self)

    def register_post_accumulate_grad_hook(self, hook: Callable) -> RemovableHandle:
        """hook(tensor), run after a leaf's .grad has been updated."""
        if not self.is_leaf:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = {}
        return add_hook(self._post_acc_hooks, hook)

    def _check_savable(self) -> None:
        if self._is_inference and not grad_mode._State.inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors "
                "created in inference mode in computation tracked by autograd. To work around "
                "this, you can make a clone to get a normal tensor and use it in autograd, or "
                "use `torch.no_grad()` instead of `torch.inference_mode()`."
            )
        if type(self._version_counter) is _Untracked and not self._is_inference:
            raise RuntimeError(UNTRACKED_MESSAGE)  # (an inference tensor given normal .data)

    # --- detaching and data sharing -------------------------------------------------------
    def detach(self) -> Tensor:
        """Same storage and version counter, no history: in-place changes stay visible. (An
        inference tensor's detach() outside inference mode gets a version of its own.)"""
        counter = self._version_counter
        if type(counter) is _Untracked and not grad_mode.is_inference_mode_enabled():
            counter = _VersionCounter()
        out = Tensor._wrap(self._data, counter=counter)
        out._is_inference = self._is_inference
        return out

    def detach_(self) -> Tensor:
        """No history, no requires_grad, in place; refused on a view. As in PyTorch, no change
        at all inside inference mode or to an inference tensor: autograd does not see them."""
        if self._is_inference or grad_mode.is_inference_mode_enabled():
            return self
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are "
                "using DistributedDataParallel (DDP) for training, and "
                "gradient_as_bucket_view is set as True, gradients are views of "
                "DDP buckets, and hence detach_() cannot be called on these "
                "gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the "
                "solution."
            )
        self._grad_fn, self._output_nr, self._requires_grad = None, 0, False
        return self

    @property
    def data(self) -> Tensor:
        """Same storage, but a fresh version counter: autograd cannot see changes made here.
        (An inference tensor's, read inside inference mode, counts nothing, as its detach().)"""
        untracked = self._is_inference and grad_mode.is_inference_mode_enabled()
        out = Tensor._wrap(self._data, counter=_Untracked() if untracked else _VersionCounter())
        out._is_inference = self._is_inference
        return out

    @data.setter
    def data(self, value: Tensor) -> None:
        """Takes `value`'s storage (and with it whether it is an inference tensor, as
        PyTorch's set_data takes its key set); the version counter and history stay. A new
        dtype also gets the leaf a new AccumulateGrad, as in PyTorch (the old one checks
        gradients against the old dtype)."""
        if value._data.dtype != self._data.dtype:
            self._grad_acc_ref = None
        self._keep_made_meta()
        self._data = value._data
        self._is_inference = value._is_inference

    def _keep_made_meta(self) -> None:
        """Before a non-leaf changes shape without a new history (t_() under no_grad, `.data =`):
        remember what its grad_fn was made for, which gradients sent to it are checked against,
        as PyTorch checks them against the receiving node's metadata."""
        if self._grad_fn is not None and self._made_meta is None:
            self._made_meta = (self._data.shape, self._data.dtype)

    def _is_view(self) -> bool:
        return self._base is not None

    # --- conversions -----------------------------------------------------------------------
    def numpy(self, force: bool = False) -> np.ndarray:
        """The same storage as a numpy array. Refused while the tensor could record history (it
        requires grad and grad mode is on), as in PyTorch: inside `Function.forward`, under
        no_grad, it is allowed."""
        if self.requires_grad and grad_mode.is_grad_enabled() and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use "
                "tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype=None, copy=None):
        """numpy's view of the tensor (np.asarray, matplotlib): refused as `numpy()` is."""
        return np.asarray(self.numpy(), dtype=dtype)

    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __index__(self) -> int:
        if self.dtype.category != 1 or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self) -> str:
        extras = []
        if self.grad_fn is not None:
            # PyTorch prints the class name: <CopySlices>, not <torch::autograd::CopySlices>
            extras.append(f"grad_fn=<{self._grad_fn.name().rsplit('::', 1)[-1]}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        tangent = forward_grad.tangent_of(self)
        if tangent is not None:  # (a 0-d tangent prints as its number, as PyTorch's)
            shown = repr(tangent.item()) if tangent.ndim == 0 else repr(tangent)
            extras.append(f"tangent={shown}")
        return format_tensor(self._data, self.dtype, dtypes.get_default_dtype(), extras)

    def __format__(self, format_spec: str) -> str:
        """A 0-d tensor formats as its Python number (`f"{loss:.4f}"`), others as objects do:
        their repr for an empty spec, a TypeError for any other (PyTorch's rule)."""
        if self._data.ndim == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __reduce_ex__(self, proto):  # (a non-leaf comes back a leaf that requires grad)
        return (_rebuild, (self._data, self.requires_grad))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support "
                "the deepcopy protocol at the moment."
            )
        out = type(self).__new__(type(self))
        out._init(self._data.copy(), self._requires_grad)
        out.__dict__.update({k: v for k, v in self.__dict__.items() if k not in out.__dict__})
        if self._grad is not None:
            out._grad = Tensor._wrap(self._grad._data.copy())
        memo[id(self)] = out
        return out


def _claim_attribute_names() -> None:
    """CPython (3.11+) gives all Tensors one shared table of instance-attribute names, which
    stops taking new names once the interpreter's specialised code relies on it (soon after
    the first ops run). A tensor that later sets a name outside it gets a dict of its own:
    about 60 ns more per op output, measured after a training step. Setting every name a
    Tensor may carry once, at import, puts them all in the table."""
    t = Tensor.__new__(Tensor)
    for name in (
        "_data", "_version_counter", "_grad_fn", "_requires_grad", "_output_nr", "_grad",
        "_wrapped_number", "_base", "_view_version", "_is_inference", "_made_meta",
        "_creation_meta", "_grad_acc_ref", "_retains_grad", "_backward_hooks", "_post_acc_hooks",
    ):  # fmt: skip
        setattr(t, name, None)


_claim_attribute_names()


def _rebuild(data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor._wrap(data.copy(), requires_grad)


class Size(tuple):
    """torch.Size: a tuple that prints like PyTorch's, and stays a Size when sliced, added to
    a tuple or repeated (`x.shape[1:]`, `(B,) + x.shape`), as PyTorch's does."""

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def __getitem__(self, key: Any) -> Any:
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            raise TypeError(
                f"can only concatenate tuple (not {type(other).__name__}) to torch.Size"
            )
        return Size(tuple.__add__(self, other))

    def __radd__(self, other: Any) -> Size:  # (tuple + Size: Python asks the subclass first)
        return Size(tuple.__add__(other, self))

    def __mul__(self, times: Any) -> Size:
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))
