"""Parametrizations: a module attribute computed, on each access, from tensors held elsewhere.

`register_parametrization(m, "weight", P())` turns `m.weight` into `P()(original)`, where
`original` is a parameter (or buffer) of `m.parametrizations.weight`. Attributes cannot be
properties of one instance only, so, as in PyTorch, the module gets a class of its own
(`ParametrizedLinear`, a subclass of its old class) carrying the property; removing the last
parametrization gives the module its old class back.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

_cache_depth = 0
_cache: dict[tuple[int, str], Tensor] = {}

SERIALIZATION_MESSAGE = (
    "Serialization of parametrized modules is only supported through state_dict(). See:\n"
    "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
    "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
)


@contextmanager
def cached() -> Iterator[None]:
    """Within the block each parametrized tensor is computed once, on first access, and reused
    (e.g. a weight used at every step of a recurrent loop); nested blocks share one cache."""
    global _cache_depth
    _cache_depth += 1
    try:
        yield
    finally:
        _cache_depth -= 1
        if not _cache_depth:
            _cache.clear()


def _set(original: Tensor, value: Tensor) -> None:
    """PyTorch's `original.set_(value)`: keep the tensor object (optimizers and state_dicts
    hold it), take value's storage and shape, count one in-place write."""
    with no_grad():
        original.data = value
    original._bump()


def _register_parameter_or_buffer(module: Module, name: str, value: Tensor) -> None:
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _check_result(before: Tensor, after: Any, unsafe_flag: str, labels: tuple[str, str]) -> None:
    """After a parametrization is added, the tensor must keep its dtype and shape unless unsafe.
    PyTorch words this differently for the first parametrization and for a chained one: the
    caller passes its words for the flag and for the two tensors."""
    if not isinstance(after, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(after).__name__}.")
    for prop in ("dtype", "shape"):
        old, new = getattr(before, prop), getattr(after, prop)
        if old != new:
            raise ValueError(
                f"Registering a parametrization may not change the {prop} of the tensor, unless "
                f"{unsafe_flag} flag is enabled.\n"
                f"{labels[0]}{prop}: {old}\n{labels[1]}{prop}: {new}"
            )


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order, and the tensor(s) they start from:
    `original`, or `original0`, `original1`, ... when the first one's `right_inverse` returns a
    sequence (then the first parametrization's forward takes that many arguments)."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        new = original
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, (Tensor, Sequence)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )
        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            _set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        f"(list, tuple...). Got element {i} of the sequence with type "
                        f"{type(part).__name__}."
                    )
                if isinstance(original, Parameter):
                    part = Parameter(part, original.requires_grad)
                part.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", part)
        if not self.unsafe:
            labels = ("unparametrized ", "parametrized ")
            _check_result(original, self(), "`unsafe`", labels)

    def _originals(self) -> list[Tensor]:
        if self.is_tensor:
            return [self.original]
        return [getattr(self, f"original{i}") for i in range(self.ntensors)]

    def right_inverse(self, value: Tensor) -> None:
        """What `module.weight = value` does: run the right inverses last to first and store
        the result(s) in the original tensor(s), which keep their identity."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _set(self.original, value)
                return
            if not isinstance(value, Sequence):
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors. "
                    f"Got {type(value).__name__}."
                )
            if len(value) != self.ntensors:
                raise ValueError(
                    "'right_inverse' must return a sequence of tensors of length "
                    f"{self.ntensors}. Got a sequence of length {len(value)}."
                )
            for i, (original, part) in enumerate(zip(self._originals(), value, strict=True)):
                if not isinstance(part, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors or reference-type "
                        f"opaques. Got element {i} of type {type(part).__name__}."
                    )
                if part.dtype != original.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {part.dtype} "
                        f"while `original{i}` has dtype {original.dtype}"
                    )
                _set(original, part)

    def forward(self) -> Tensor:
        first, *rest = list(self)
        x = first(*self._originals())
        for module in rest:
            x = module(x)
        return x


def _deepcopy(self: Module, memo: dict) -> Module:
    """A copy of the same parametrized class (pickling, which deepcopy would use, is refused)."""
    if id(self) in memo:
        return memo[id(self)]
    replica = self.__new__(type(self))
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    return replica


def _refuse_pickling(self: Module) -> None:
    raise RuntimeError(SERIALIZATION_MESSAGE)


def _give_own_class(module: Module) -> None:
    cls = type(module)
    members: dict[str, Any] = {"__getstate__": _refuse_pickling}
    if not hasattr(cls, "__deepcopy__"):
        members["__deepcopy__"] = _deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), members)


def _add_property(module: Module, tensor_name: str) -> None:
    def get(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_depth:
            return parametrization()
        key = (id(self), tensor_name)
        if key not in _cache:
            _cache[key] = parametrization()
        return _cache[key]

    def set_(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(type(module), tensor_name, property(get, set_))


def _check_chained(module: Module, tensor_name: str, parametrization: Module) -> None:
    """A parametrization added on top of others must keep the tensor's dtype and shape, and so
    must its right_inverse, if it has one."""
    current = getattr(module, tensor_name)
    new = parametrization(current)
    label = f"module.{tensor_name}"
    _check_result(current, new, "the `unsafe`", (f"{label}.", f"parametrization({label})."))
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        back = parametrization.right_inverse(new)
    except NotImplementedError:
        return
    if not isinstance(back, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(back).__name__}"
        )
    for prop in ("dtype", "shape"):
        old, returned = getattr(current, prop), getattr(back, prop)
        if old != returned:
            raise ValueError(
                f"The tensor returned by parametrization.right_inverse must have the same "
                f"{prop} as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                f"module.{tensor_name}.{prop}: {old}\nreturned {prop}: {returned}"
            )


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make `module.<tensor_name>` the output of `parametrization` (chained after any earlier
    ones on the same tensor). The tensor moves to `module.parametrizations[tensor_name]` as
    `original` (after `right_inverse`, when the parametrization has one). Unless `unsafe`,
    the parametrized tensor must keep the original's dtype and shape."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_chained(module, tensor_name, parametrization)
        chain = module.parametrizations[tensor_name]
        chain.append(parametrization)
        chain.unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        chain = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _give_own_class(module)
            module.parametrizations = ModuleDict()
        _add_property(module, tensor_name)
        module.parametrizations[tensor_name] = chain
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a parametrized "
            f"element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether `module` has any parametrization (or one on `tensor_name`)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(
    module: Module, tensor_name: str, leave_parametrized: bool = True
) -> Module:
    """Turn `module.<tensor_name>` back into a plain parameter or buffer: holding its current
    parametrized value (leave_parametrized=True) or its original one. A single original
    tensor keeps its identity either way."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    chain = module.parametrizations[tensor_name]
    if chain.is_tensor:
        original = chain.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set(original, value)
    elif leave_parametrized:
        value = getattr(module, tensor_name)
        original = Parameter(value.detach(), True) if value.requires_grad else value
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is "
            "parametrized in terms of a sequence of tensors."
        )
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = type(module).__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class as it was before `register_parametrization` gave it its own."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def transfer_parametrizations_and_params(
    from_module: Module, to_module: Module, tensor_name: str | None = None
) -> Module:
    """Give `to_module` the parametrizations of `from_module` (all, or those of `tensor_name`):
    the same parametrization modules, and the very same original tensors. A tensor that
    `to_module` lacks is created first."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            with no_grad():
                setattr(to_module, name, Parameter(getattr(from_module, name)))
        for parametrization in source:
            register_parametrization(to_module, name, parametrization)
        target = to_module.parametrizations[name]
        labels = (
            ["original"] if source.is_tensor else [f"original{i}" for i in range(source.ntensors)]
        )
        for label in labels:
            setattr(target, label, getattr(source, label))
    return to_module
