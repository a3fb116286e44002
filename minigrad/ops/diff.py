"""diff: the n-th forward difference along a dim, built from slices and subtractions as
PyTorch builds it (SubBackward0 over two SliceBackward0 views, n times; logical_xor for bool),
after prepend/append are joined on (CatBackward0). n = 0 is a copy into zeros
(CopyBackwards), as in PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from .elementwise import sub
from .indexing import getitem
from .int_args import integer
from .logical import logical_xor
from .shape import cat
from .writes import copy_


def _check(name: str, t: Any, a: Tensor, d: int) -> None:
    """prepend/append: a tensor with a's dims, the same sizes but along d."""
    if not isinstance(t, Tensor):
        raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if t.ndim != a.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for k in range(a.ndim):
        if k != d and t.shape[k] != a.shape[k]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of "
                f"input except along the differencing dimension; input.size({k}) = "
                f"{a.shape[k]}, but got tensor.size({k}) = {t.shape[k]}"
            )


def diff(
    input: Tensor,  # noqa: A002 - PyTorch's argument names
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    """out[i] = x[i + 1] - x[i] along dim, n times (n at most the length there)."""
    n = integer(n, "diff", "n")
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    for name, t in (("prepend", prepend), ("append", append)):
        if t is not None:
            _check(name, t, input, d)
    if n == 0:  # (prepend and append checked, then left out)
        return copy_(Tensor._wrap(np.zeros_like(input._data)), input)
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    step = logical_xor if x.dtype.name == "bool" else sub
    before = (slice(None),) * d
    for _ in range(min(n, x.shape[d])):
        x = step(getitem(x, (*before, slice(1, None))), getitem(x, (*before, slice(0, -1))))
    return x
