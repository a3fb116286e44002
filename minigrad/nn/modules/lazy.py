"""LazyModuleMixin: a module whose parameter shapes come from its first input.

As in PyTorch: its parameters start as UninitializedParameter (buffers UninitializedBuffer);
a forward pre-hook calls `initialize_parameters(*input)` on the first call, which materialises
them, after which the hook removes itself and the module becomes `cls_to_become` (LazyLinear
becomes Linear). Loading a state dict materialises them to the loaded shapes first.
"""

from __future__ import annotations

from typing import Any

from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mix in before the module class it turns lazy (class LazyLinear(LazyModuleMixin, Linear));
    subclasses define `initialize_parameters` and set `cls_to_become`."""

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        """Whether a parameter or buffer of this module still waits for its shape."""
        stores = (self._parameters.values(), self._buffers.values())
        return any(is_lazy(t) for store in stores for t in store)

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def _load_from_state_dict(self, state_dict: Any, prefix: str, assign: bool, *rest: Any) -> None:
        """Uninitialized entries take the loaded tensors' shapes first, then load as usual; an
        uninitialized entry loaded from an uninitialized one stays as it is (PyTorch's)."""
        both_lazy = set()
        for store in (self._parameters, self._buffers):
            for name, value in store.items():
                loaded = state_dict.get(prefix + name)
                if is_lazy(value) and loaded is not None:
                    if is_lazy(loaded):
                        both_lazy.add(name)
                    else:
                        value.materialize(loaded.shape)
        if not both_lazy:
            super()._load_from_state_dict(state_dict, prefix, assign, *rest)
            return
        originals = (self._parameters, self._buffers)
        for attr, store in zip(("_parameters", "_buffers"), originals):
            object.__setattr__(self, attr, {k: v for k, v in store.items() if k not in both_lazy})
        try:
            super()._load_from_state_dict(state_dict, prefix, assign, *rest)
        finally:
            for attr, store in zip(("_parameters", "_buffers"), originals):
                store.update(getattr(self, attr))  # (what assign=True put there)
                object.__setattr__(self, attr, store)
        unexpected = rest[1]
        unexpected[:] = [k for k in unexpected if k[len(prefix) :] not in both_lazy]


def _infer_parameters(module: Any, args: tuple, kwargs: dict) -> None:
    """The forward pre-hook: materialise from this input, then stop being lazy."""
    module.initialize_parameters(*args, **kwargs)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become
