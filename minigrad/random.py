"""torch.random: seeding and saving the default generator, the one every random op uses
unless it is handed its own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .core.generator import Generator, default_generator
from .core.tensor import Tensor

__all__ = [
    "Generator",
    "default_generator",
    "fork_rng",
    "get_rng_state",
    "initial_seed",
    "manual_seed",
    "seed",
    "set_rng_state",
]


def manual_seed(seed: Any) -> Generator:
    """Seed the default generator; anything `int()` takes is a seed (PyTorch's `int(seed)`)."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(
    devices: Any = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> Iterator[None]:
    """Draws inside the block leave the default generator as it was before it."""
    if not enabled:
        yield
        return
    saved = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(saved)
