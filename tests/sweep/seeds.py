"""Gradient seeds, and how a check runs backward with them.

ones       `out.backward()` for a 0-d output (the default path), else a tensor of ones
rand       uniform in [-1, 1)
noncontig  the same values as a view taking every other element of a larger tensor
sum        `out.sum().backward()`: the gradient reaching the op is a stride-0 expanded 1
nan        uniform with nan, inf and -inf at random positions
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
from ops._support import rng_for

SEEDS = ("ones", "rand", "noncontig", "sum", "nan")


def seed_array(kind: str, shape: tuple, key: str) -> np.ndarray:
    rng = rng_for(key)
    if kind in ("ones", "sum"):
        return np.ones(shape)
    out = rng.uniform(-1.0, 1.0, shape)
    if kind == "nan" and out.size:
        where = rng.permutation(out.size)[:3]
        out.reshape(-1)[where] = np.array([np.nan, np.inf, -np.inf])[: len(where)]
    return out


def seeds_for(
    lib: ModuleType, outs: list, kind: str, key: str, requires_grad: bool = False
) -> list:
    """One seed per output, same values on both libraries (drawn from the case's key and the
    output's position and shape)."""
    seeds = []
    for i, o in enumerate(outs):
        shape = tuple(int(n) for n in o.shape)
        arr = seed_array(kind, shape, f"{key}/seed{i}")
        if kind == "noncontig" and shape:
            wide = np.full(shape[:-1] + (2 * shape[-1],), 5.0)
            wide[..., ::2] = arr
            seeds.append(lib.tensor(wide, dtype=o.dtype)[..., ::2])
        else:
            seeds.append(lib.tensor(arr, dtype=o.dtype, requires_grad=requires_grad))
    return seeds


def backward(lib: ModuleType, outs: list, seeds: list, kind: str, **kw: Any) -> None:
    """Run backward from ``outs`` the way a user would with this seed kind."""
    if kind == "sum":
        total = outs[0].sum()
        for o in outs[1:]:
            total = total + o.sum()
        total.backward(**kw)
    elif len(outs) == 1 and kind == "ones" and outs[0].dim() == 0:
        outs[0].backward(**kw)
    elif len(outs) == 1:
        outs[0].backward(seeds[0], **kw)
    else:
        lib.autograd.backward(outs, seeds, **kw)
