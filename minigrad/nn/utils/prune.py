"""Pruning: zero chosen entries of a parameter through a mask that a forward pre-hook applies.

Pruning `module.weight` moves the parameter to `weight_orig`, stores the mask as the buffer
`weight_mask`, and makes `weight` a plain attribute holding `weight_mask * weight_orig`,
recomputed by the pruning method (a forward pre-hook) before every forward. Gradients
therefore reach `weight_orig`, zero where the mask is zero. Pruning the same tensor again
wraps the methods in a `PruningContainer`, whose new mask only prunes what is still unpruned:
`amount` then counts among the remaining entries (or channels). `remove` makes the pruning
permanent: `weight` becomes a parameter again, holding the pruned values.

Differences from PyTorch, deliberate: among entries (or channels) of equal importance,
PyTorch's choice is whatever `topk` returns; here the first in flattened order is pruned (and,
for structured pruning, the first is kept). A pruning call that fails leaves the module as it
was (PyTorch may already have dropped an earlier pruning hook). `PruningContainer(m1, m2)`
takes its tensor name from the first method.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from typing import Any

from ... import creation
from ...core.tensor import Tensor
from ..modules.module import Module
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]


# --- checking and counting `amount` -----------------------------------------------------------
def _check_amount(amount: Any) -> None:
    """At construction: a count (int >= 0) or a fraction in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
        not isinstance(amount, numbers.Integral) and not 0 <= amount <= 1
    ):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a "
            "non-negative integer"
        )


def _count_to_prune(amount: int | float, available: int) -> int:
    """How many of `available` entries (or channels) `amount` stands for."""
    if isinstance(amount, numbers.Integral):
        if amount > available:
            raise ValueError(
                f"amount={amount} should be smaller than the number of parameters to "
                f"prune={available}"
            )
        return int(amount)
    return round(amount * available)


def _channel_dim(t: Tensor, dim: int) -> int:
    """The dimension whose slices (channels) structured pruning removes whole."""
    if t.dim() <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {t.shape} with {t.dim()} dims"
        )
    if not -t.dim() <= dim < t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    return dim % t.dim()


def _without_channels(default_mask: Tensor, dim: int, channels: Tensor) -> Tensor:
    mask = default_mask.detach().clone()
    mask[(slice(None),) * dim + (channels,)] = 0
    return mask


def _without_entries(default_mask: Tensor, flat_indices: Tensor) -> Tensor:
    mask = default_mask.detach().clone()
    mask.view(-1)[flat_indices] = 0
    return mask


# --- the methods ------------------------------------------------------------------------------
class BasePruningMethod(ABC):
    """A way of choosing what to prune (`compute_mask`), and the forward pre-hook that applies
    the mask. Subclasses set PRUNING_TYPE: 'unstructured' (entries), 'structured' (whole
    channels along `self.dim`) or 'global' (the whole tensor at once), which tells a
    PruningContainer how to restrict a later method to what is still unpruned."""

    PRUNING_TYPE: str
    _tensor_name: str

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """A mask like `default_mask` (kept entries 1) with more entries pruned, chosen by the
        importance scores `t`."""

    def apply_mask(self, module: Module) -> Tensor:
        """The pruned tensor: mask times original (so the original gets the gradients)."""
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(
        cls,
        module: Module,
        name: str,
        *args: Any,
        importance_scores: Tensor | None = None,
        **kwargs: Any,
    ) -> BasePruningMethod:
        """Prune `module.<name>` with `cls(*args, **kwargs)`, on top of any earlier pruning of
        it; importance scores default to the tensor's current (already pruned) values."""
        method = cls(*args, **kwargs)
        method._tensor_name = name
        earlier = [
            (key, hook)
            for key, hook in module._forward_pre_hooks.items()
            if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
        ]
        if len(earlier) > 1:
            raise AssertionError(
                f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                f"{module}. Use a PruningContainer."
            )
        current = getattr(module, name)
        if importance_scores is None:
            importance_scores = current
        elif importance_scores.shape != current.shape:
            raise AssertionError(
                f"importance_scores should have the same shape as parameter {name} of "
                f"{module}, got {importance_scores.shape} vs {current.shape}"
            )
        if earlier:
            # a container's mask is its latest method's over what is left: computed before
            # anything changes, so that a failure leaves the module as it was
            default_mask = getattr(module, name + "_mask").detach().clone()
            mask = PruningContainer(method).compute_mask(importance_scores, default_mask)
            key, old = earlier[0]
            container = old if isinstance(old, PruningContainer) else PruningContainer(old)
            container.add_pruning_method(method)
            del module._forward_pre_hooks[key]
            method = container
        else:
            mask = method.compute_mask(importance_scores, default_mask=creation.ones_like(current))
            module.register_parameter(name + "_orig", current)
            del module._parameters[name]
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(
        self,
        t: Tensor,
        default_mask: Tensor | None = None,
        importance_scores: Tensor | None = None,
    ) -> Tensor:
        """`t` pruned by this method alone (no module involved)."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t")
        if default_mask is None:
            default_mask = creation.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Module) -> None:
        """Make the pruning permanent: `<name>` becomes the parameter `<name>_orig` was, now
        holding the pruned values; `<name>_orig` and `<name>_mask` go."""
        name = self._tensor_name
        pruned = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        orig.data = pruned.data
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied, in order, to one tensor. Its mask is the latest method's,
    computed only over what the earlier ones left (see PRUNING_TYPE)."""

    def __init__(self, *methods: BasePruningMethod) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if methods:
            self._tensor_name = methods[0]._tensor_name
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod | None) -> None:
        """Append `method` (None is appended too, as PyTorch does)."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Iterator[BasePruningMethod]:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: int) -> BasePruningMethod:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        method = self._pruning_methods[-1]
        kind = method.PRUNING_TYPE
        mask = default_mask.detach()
        if kind == "global":
            return method.compute_mask(t, default_mask=mask)
        if kind == "unstructured":
            where: Any = mask == 1
        elif kind == "structured":
            dim = _channel_dim(t, method.dim)
            others = [d for d in range(t.dim()) if d != dim]
            where = (slice(None),) * dim + (mask.sum(dim=others) != 0,)
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        combined = mask.clone()
        combined[where] = method.compute_mask(t[where], default_mask=mask[where])
        return combined


class Identity(BasePruningMethod):
    """Prunes nothing: the module gets `_orig`, `_mask` (all ones) and the hook all the same."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` entries chosen uniformly at random (minigrad's generator)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _count_to_prune(self.amount, t.nelement())
        return _without_entries(default_mask, creation.randperm(t.nelement())[:k])


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` entries of smallest absolute value (ties: the first in flattened
    order goes first)."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        k = _count_to_prune(self.amount, t.nelement())
        smallest = t.detach().abs().reshape(-1).argsort(stable=True)[:k]
        return _without_entries(default_mask, smallest)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` whole channels along `dim`, chosen uniformly at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        dim = _channel_dim(t, self.dim)
        k = _count_to_prune(self.amount, t.shape[dim])
        return _without_channels(default_mask, dim, creation.randperm(t.shape[dim])[:k])


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of smallest L`n` norm (ties: of equal norms,
    the first channel is kept)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: int | float | str, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        dim = _channel_dim(t, self.dim)
        k = _count_to_prune(self.amount, t.shape[dim])
        if k == 0:
            return default_mask
        others = [d for d in range(t.dim()) if d != dim]
        norms = t.detach().norm(p=self.n, dim=others)
        smallest = norms.argsort(descending=True, stable=True)[t.shape[dim] - k :]
        return _without_channels(default_mask, dim, smallest)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(
                f"default_mask shape {default_mask.shape} must match self.mask shape "
                f"{self.mask.shape}"
            )
        return default_mask * self.mask.to(dtype=default_mask.dtype)


# --- the functions ----------------------------------------------------------------------------
def identity(module: Module, name: str) -> Module:
    """Set up pruning of `module.<name>` that prunes nothing."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Module, name: str, amount: int | float) -> Module:
    """Prune `amount` random entries of `module.<name>` (a count, or a fraction)."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(
    module: Module, name: str, amount: int | float, importance_scores: Tensor | None = None
) -> Module:
    """Prune the `amount` entries of `module.<name>` of smallest absolute importance."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Module, name: str, amount: int | float, dim: int) -> Module:
    """Prune `amount` random channels of `module.<name>` along `dim`."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(
    module: Module,
    name: str,
    amount: int | float,
    n: int | float | str,
    dim: int,
    importance_scores: Tensor | None = None,
) -> Module:
    """Prune the `amount` channels of `module.<name>` along `dim` of smallest L`n` norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module: Module, name: str, mask: Tensor) -> Module:
    """Prune `module.<name>` where `mask` is zero."""
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(
    parameters: Iterable[tuple[Module, str]],
    pruning_method: type[BasePruningMethod],
    importance_scores: dict | None = None,
    **kwargs: Any,
) -> None:
    """Prune several tensors as if they were one: `pruning_method(**kwargs)` chooses among all
    their (still unpruned) entries, e.g. the 20% smallest of a whole network's weights."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector(
        importance_scores.get((module, name), getattr(module, name)).detach()
        for module, name in parameters
    )
    default_mask = parameters_to_vector(
        getattr(module, name + "_mask", creation.ones_like(getattr(module, name)))
        for module, name in parameters
    )
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
            f"{pruning_method} of type {method.PRUNING_TYPE}"
        )
    mask = PruningContainer(method).compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        size = getattr(module, name).numel()
        custom_from_mask(module, name, mask[start : start + size].view_as(getattr(module, name)))
        start += size


def remove(module: Module, name: str) -> Module:
    """Make the pruning of `module.<name>` permanent and drop its hook, mask and original."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module: Module) -> bool:
    """Whether `module` or any submodule has a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for submodule in module.modules()
        for hook in submodule._forward_pre_hooks.values()
    )
