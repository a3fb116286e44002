"""The values of arange and linspace, bit for bit as PyTorch's CPU kernels compute them.

Both kernels write `start + step * i`, and their compiler fuses that into one fused
multiply-add (rounded once): numpy has no fma, so `fma` below computes it exactly from
error-free sums and products.

arange works in double for float outputs (in float for float16) and writes vectors of 32 bytes
(16 halves, 8 floats, 4 doubles) two at a time, each vector from its own first value (rounded
to the output dtype); the elements after the last pair of vectors are written one by one.
linspace works in the output's own float type (double for integers; float16 rounds after every
operation, unfused), from `start` for the first half and back from `end` for the second.

Up to 32768 elements PyTorch runs this in one piece; beyond, its threads start new pieces,
which this does not follow."""

from __future__ import annotations

import math

import numpy as np

VECTOR_BYTES = 32
_SPLITTER = 134217729.0  # 2**27 + 1: splits a double into two 26-bit halves


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + e == a + b exactly, s the rounded sum (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """p + e == a * b exactly, p the rounded product (Dekker)."""
    p = a * b
    ca, cb = _SPLITTER * a, _SPLITTER * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s: np.ndarray, error: np.ndarray) -> np.ndarray:
    """s + error rounded to odd: an inexact result keeps an odd last bit (moving s one step
    towards the error when it is even), so a later rounding to fewer bits is exact."""
    even = (s.view(np.int64) & 1) == 0
    bump = (error != 0) & even
    return np.where(bump, np.nextafter(s, np.where(error > 0, np.inf, -np.inf)), s)


def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a * b + c in double, rounded once (Boldo and Melquiond's emulation by rounding to odd)."""
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    with np.errstate(invalid="ignore", over="ignore"):  # inf and nan take the plain formula
        high, low = _two_product(a, b)
        total, rest = _two_sum(c, high)
        small, error = _two_sum(rest, low)
        out = total + _round_to_odd(small, error)
        return np.where(np.isfinite(out) & np.isfinite(high), out, a * b + c)


def fma_float32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fmaf: the float32 product is exact in double; the sum, rounded to odd in double, then
    rounds to float32 as the exact value would."""
    with np.errstate(invalid="ignore", over="ignore"):
        product = np.asarray(a, dtype=np.float64) * np.asarray(b, dtype=np.float64)
        s, error = _two_sum(product, np.asarray(c, dtype=np.float64))
        exact = np.where(np.isfinite(s), _round_to_odd(s, error), product + c)
    return exact.astype(np.float32)


def arange_size(start: float, end: float, step: float, integral: bool) -> int:
    """int64 outputs of integer arguments count exactly; everything else in double. (The
    bounds are checked first, so the integral quotient's operands share a sign: floor
    division is C's truncating one.)"""
    if integral:
        return (end - start + step - (1 if step > 0 else -1)) // step
    return int(math.ceil((float(end) - float(start)) / float(step)))


def arange_float(start: float, step: float, n: int, dtype: np.dtype) -> np.ndarray:
    """n values of a float arange: vectors of VECTOR_BYTES two at a time, then one by one;
    float16 works in float32, the others in double."""
    width = VECTOR_BYTES // dtype.itemsize
    fused, work = (fma_float32, np.float32) if dtype == np.float16 else (fma, np.float64)
    start, step = work(start), work(step)
    vectored = n - n % (2 * width)
    firsts = fused(step, np.arange(0, vectored, width).astype(work), start)
    firsts = firsts.astype(dtype).astype(work)  # each vector starts from a stored value
    lanes = np.arange(width).astype(work)
    head = fused(lanes[None, :], step, firsts[:, None]).astype(dtype).reshape(-1)
    tail = fused(step, np.arange(vectored, n).astype(work), start).astype(dtype)
    return np.concatenate([head, tail])


def linspace_values(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """steps values from start to end: the first half start + step * i, the rest
    end - step * (steps - 1 - i), each a fused multiply-add in the working type (float16's
    arithmetic rounds after every operation instead)."""
    if steps == 1:
        return np.array([start]).astype(dtype)
    work = dtype.type if dtype in (np.float16, np.float32) else np.float64
    first, last = work(start), work(end)
    step = (last - first) / work(steps - 1)
    i = np.arange(steps)
    from_start = i < steps // 2
    if work is np.float16:
        count = np.where(from_start, i, steps - 1 - i).astype(work)
        return np.where(from_start, first + step * count, last - step * count)
    # the sign goes on the count, as the fused negative multiply-add leaves a NaN step's sign
    count = np.where(from_start, i, -(steps - 1 - i)).astype(work)
    base = np.where(from_start, first, last).astype(work)
    fused = fma_float32 if work is np.float32 else fma
    return fused(np.full(steps, step, dtype=work), count, base).astype(dtype)
