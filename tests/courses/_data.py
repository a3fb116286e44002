"""Synthetic data shared by the course tests: numpy draws, so both libraries see the same numbers
(their own random streams differ: minigrad draws from PCG64, PyTorch from MT19937)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

NAMES = ["emma", "olivia", "ava", "isabella", "sophia", "mia", "amelia", "harper", "evelyn", "abi"]


def randn(torch: ModuleType, *shape: int, seed: int = 0, scale: float = 1.0) -> Any:
    """A float32 tensor of standard normal draws made by numpy, the same on either library."""
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32) * scale
    return torch.tensor(values)


def stoi() -> dict[str, int]:
    """makemore's vocabulary: '.' (start and end) is 0, then 'a'..'z'."""
    chars = sorted(set("".join(NAMES)) | set("abcdefghijklmnopqrstuvwxyz"))
    table = {ch: i + 1 for i, ch in enumerate(chars)}
    table["."] = 0
    return table


def summary(t: Any) -> tuple:
    """What a random tensor can be compared on: shape, dtype and whether every value is finite."""
    return (tuple(t.shape), str(t.dtype).rsplit(".", 1)[-1], bool(t.isfinite().all()))
