"""Tensor printing against PyTorch's, generated: shapes from 0-d to 4-d and long enough to wrap
or be summarized, every value regime of the float formatter (integers, plain, scientific), ints
and bools, and the suffixes (dtype, requires_grad, grad_fn) that move to a line of their own when
the last line is full. The text must be PyTorch's to the character."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

SHAPES = [
    (),
    (5,),
    (30,),
    (1001,),
    (3, 4),
    (27, 27),
    (5, 300),
    (2, 3, 4),
    (2, 2, 2, 3),
    (0,),
    (0, 3),
]
KINDS = ["int", "float", "tiny", "huge", "whole", "bool", "negative"]


def values(rng: np.random.Generator, shape: tuple, kind: str) -> np.ndarray:
    if kind == "int":
        return rng.integers(0, 3000, shape)
    if kind == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    scale = {"float": 1.0, "tiny": 1e-5, "huge": 1e9, "whole": 1.0, "negative": 1.0}[kind]
    out = rng.standard_normal(shape) * scale
    out = np.round(out * 3) if kind == "whole" else out
    return -np.abs(out) if kind == "negative" else out


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", KINDS)
def test_printing_matches_torch(shape, kind):
    a = values(np.random.default_rng(len(shape) * 31 + KINDS.index(kind)), shape, kind)
    for dtype in (None,) if a.dtype.kind in "bi" else (np.float32, np.float64):
        data = np.asarray(a if dtype is None else a.astype(dtype))
        assert str(mg.from_numpy(data.copy())) == str(torch.from_numpy(data.copy()))


@pytest.mark.parametrize("seed", range(6))
def test_suffixes_wrap_as_torch_wraps_them(seed):
    """Random lengths and widths, so the last line ends anywhere near column 80."""
    rng = np.random.default_rng(seed)
    for _ in range(150):
        n = int(rng.integers(1, 12))
        shape = (n,) if rng.random() < 0.5 else (int(rng.integers(1, 4)), n)
        a = rng.standard_normal(shape) * 10.0 ** rng.integers(-7, 10)
        a = np.round(a) if rng.random() < 0.3 else a
        for dtype in (np.float32, np.float64):
            for how in ("leaf", "requires_grad", "grad_fn"):
                t = torch.tensor(a.astype(dtype), requires_grad=how != "leaf")
                m = mg.tensor(a.astype(dtype), requires_grad=how != "leaf")
                if how == "grad_fn":
                    t, m = t * 2, m * 2
                assert str(m) == str(t)


SIZE_EXPRESSIONS = [
    "s",
    "s[1:]",
    "s[::-1]",
    "s[0]",
    "s[-1]",
    "s + (5,)",
    "(5,) + s",
    "s + s",
    "s * 2",
    "2 * s",
    "s[:0]",
    "s + [1]",
]


@pytest.mark.parametrize("expression", SIZE_EXPRESSIONS)
def test_size_stays_a_size_as_torchs(expression: str) -> None:
    """`x.shape[1:]`, `(B,) + x.shape` and the like print as PyTorch's torch.Size."""
    seen = []
    for lib in (torch, mg):
        s = lib.zeros(2, 3, 4).shape
        try:
            value = eval(expression, {"s": s})
            seen.append((type(value).__name__, repr(value)))
        except TypeError as error:
            seen.append(("TypeError", str(error)))
    assert seen[0] == seen[1]
