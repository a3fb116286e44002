"""torch.arange and torch.linspace, bit for bit against PyTorch over a generated grid of
arguments (float and integer bounds, negative steps, every output dtype, lengths around the
kernels' vector widths), and their errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")

DTYPES = (None, "float32", "float64", "float16", "int64", "int32")
STARTS = (-8.0, -3.3, 0, 0.1, 1, 2.5, 1e-3, 7)
STEPS = (0.1, 0.37, 1, -0.7, 3, 0.01, 1e-3, 0.123456789, -2)
COUNTS = (1, 7, 8, 15, 16, 17, 33, 100, 1001)


def _same_bits(lib_a, lib_b) -> bool:
    a, b = lib_a.numpy(), lib_b.numpy()
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _run(fn: str, args: tuple, dtype: str | None):
    out = []
    for lib in (torch, minigrad):
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        try:
            out.append(getattr(lib, fn)(*args, **kw))
        except Exception as e:  # noqa: BLE001 - compared by kind and words below
            out.append(e)
    return out


def _compare(fn: str, args: tuple, dtype: str | None) -> str | None:
    expected, got = _run(fn, args, dtype)
    if isinstance(expected, Exception) or isinstance(got, Exception):
        same = type(expected) is type(got) and str(expected) == str(got)
        return None if same else f"{fn}{args} {dtype}: {expected!r} vs {got!r}"
    return None if _same_bits(expected, got) else f"{fn}{args} {dtype}: values differ"


def arange_grid():
    for start, step, count, offset in itertools.product(STARTS, STEPS, COUNTS, (0, 0.5)):
        end = start + step * (count + offset)
        if isinstance(start, int) and isinstance(step, int) and offset == 0:
            end = int(end)
        yield (start, end, step)
    yield from ((5,), (5.0,), (0, 10, 3), (10, 0, -3), (0.5, 5.5, 1.5), (-2.7, 3.3, 1.5))


def linspace_grid():
    for start, end in itertools.product(STARTS, (-10.2, 0, 1, 8.0, 100, 1e-3)):
        for steps in (0, 1, 2, 3, 7, 8, 16, 17, 100, 1001):
            yield (start, end, steps)


@pytest.mark.parametrize("dtype", DTYPES)
def test_arange_bitwise(dtype):
    problems = [p for args in arange_grid() if (p := _compare("arange", args, dtype))]
    assert not problems, problems[:5]


@pytest.mark.parametrize("dtype", DTYPES)
def test_linspace_bitwise(dtype):
    problems = [p for args in linspace_grid() if (p := _compare("linspace", args, dtype))]
    assert not problems, problems[:5]


@pytest.mark.parametrize(
    "fn, args, dtype",
    [
        ("arange", (1, 0), None),
        ("arange", (0, 1, 0), None),
        ("arange", (0, 1, 0.0), None),
        ("arange", (0, 1, 0.3), "int64"),
        ("arange", (0, float("inf")), None),
        ("arange", (float("nan"),), None),
        ("arange", (5,), "bool"),
        ("arange", (0, 1, 0.3), "int32"),
        ("linspace", (0, 1, -1), None),
        ("linspace", (0, 1, 5), "bool"),
        ("linspace", (float("nan"), 1, 3), None),
        ("linspace", (0, float("inf"), 3), None),
    ],
)
def test_edges_and_errors(fn, args, dtype):
    assert _compare(fn, args, dtype) is None


def test_tensor_bounds():
    assert _same_bits(torch.arange(torch.tensor(3)), minigrad.arange(minigrad.tensor(3)))
    got = minigrad.linspace(minigrad.tensor(0.0), minigrad.tensor(1.0), 3)
    assert _same_bits(torch.linspace(torch.tensor(0.0), torch.tensor(1.0), 3), got)
    with pytest.raises(RuntimeError, match="0-dimensional start and end"):
        minigrad.linspace(minigrad.tensor([0.0]), 1, 3)


def test_fma_is_rounded_once():
    """The emulated fma against exact rational arithmetic."""
    from fractions import Fraction

    from minigrad.core.ranges import fma

    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal(2000) * 10.0 ** rng.integers(-5, 5, 2000) for _ in range(3))
    exact = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c)]
    assert np.array_equal(fma(a, b, c), np.array(exact))
