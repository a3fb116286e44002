"""minigrad's public surface, in the table's names: what test_table.py requires the table to
cover."""

from __future__ import annotations

import inspect

import minigrad
import minigrad.nn.functional as F
from minigrad.ops import METHODS

# Public callables of `minigrad` that are not ops: state switches and queries, seeding, type
# tests. Classes (Tensor, Size, dtype, device, no_grad, ...) are never ops and are skipped.
NOT_OPS = frozenset(
    {
        "torch.get_default_device",  # state
        "torch.set_default_device",  # state
        "torch.get_default_dtype",  # state
        "torch.set_default_dtype",  # state
        "torch.is_anomaly_enabled",  # state
        "torch.set_detect_anomaly",  # state (a class, listed in case it becomes a function)
        "torch.is_grad_enabled",  # state
        "torch.is_inference_mode_enabled",  # state
        "torch.manual_seed",  # seeding
        "torch.seed",  # seeding
        "torch.initial_seed",  # seeding
        "torch.get_rng_state",  # seeding
        "torch.set_rng_state",  # seeding
        "torch.use_deterministic_algorithms",  # state
        "torch.are_deterministic_algorithms_enabled",  # state
        "torch.is_deterministic_algorithms_warn_only_enabled",  # state
        "torch.is_tensor",  # a type test
        "torch.save",  # serialization (loaded lazily, so not in dir(minigrad) today)
        "torch.load",  # serialization
        # mixed precision: autocast's and the float32 matmul precision's state
        "torch.is_autocast_enabled",
        "torch.get_autocast_dtype",
        "torch.set_autocast_enabled",
        "torch.set_autocast_dtype",
        "torch.get_float32_matmul_precision",
        "torch.set_float32_matmul_precision",
        "torch.vmap",  # a function transform (torch.func.vmap), tested in tests/test_func.py
    }
)


def tensor_ops() -> set[str]:
    """Every method and operator ops/__init__.py binds (private helpers aside), and the
    properties T and mT."""
    names = {n for n in METHODS if n.startswith("__") or not n.startswith("_")}
    return {f"Tensor.{n}" for n in names} | {"Tensor.T", "Tensor.mT"}


def module_ops() -> set[str]:
    found = set()
    for n in dir(minigrad):
        obj = getattr(minigrad, n)
        if n.startswith("_") or inspect.ismodule(obj) or inspect.isclass(obj):
            continue
        if callable(obj):
            found.add(f"torch.{n}")
    return found - NOT_OPS


def functional_ops() -> set[str]:
    return {
        f"F.{n}"
        for n in dir(F)
        if not n.startswith("_")
        and inspect.isroutine(getattr(F, n))
        and getattr(getattr(F, n), "__module__", "").startswith("minigrad")
    }


def public_ops() -> set[str]:
    return tensor_ops() | module_ops() | functional_ops()


def has_op(name: str) -> bool:
    """Whether minigrad has the op named ``name`` at all. Tensor's own classes only: `type`
    answers `hasattr(Tensor, "__ror__")` for `X | Y` type unions."""
    space, attr = name.split(".", 1)
    if space == "Tensor":
        return any(attr in vars(k) for k in minigrad.Tensor.__mro__)
    owner = {"torch": minigrad, "F": F}[space]
    *path, attr = attr.split(".")  # "torch.linalg.det": a namespace module on the way
    for name in path:
        owner = getattr(owner, name, None)
    return hasattr(owner, attr)
