"""Shape arithmetic needed below the ops: summing a broadcast gradient back to its input's
shape (forward ops build `sum_to_size` on it, the engine reduces what a formula returns), the
memory-layout test of in-place ops, and PyTorch's dimension wrapping (Tensor.stride uses it)."""

from __future__ import annotations

import numpy as np


def reduced_dims(big: tuple, shape: tuple) -> tuple[int, ...]:
    """The dims of `big` that summing down to `shape` (which broadcasts to `big`) removes."""
    lead = len(big) - len(shape)
    return tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and big[lead + i] != 1
    )


def sum_to_array(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Tensor.sum_to_size for a bare array."""
    dims = reduced_dims(np.shape(g), shape)
    if not dims:
        return g
    out = np.add.reduce(g, axis=dims)
    return out if out.shape == shape else out.reshape(shape)


def expandable(shape: tuple, to: tuple) -> bool:
    """Whether `shape` broadcasts to `to`."""
    try:
        return np.broadcast_shapes(shape, to) == to
    except ValueError:
        return False


def dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the elements fill their memory span exactly, in
    some order of the dims (a transpose is dense, a slice with a step or an expand is not)."""
    expected = a.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != expected:
            return False
        expected *= n
    return True


def wrap_dim(dim: int, ndim: int) -> int:
    """`dim` as a non-negative index into `ndim` dims (a 0-d tensor accepts 0 and -1)."""
    span = max(ndim, 1)
    if not -span <= dim < span:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-span}, "
            f"{span - 1}], but got {dim})"
        )
    return dim % span


def dense_strides(shape: tuple, strides: tuple) -> list[int]:
    """PyTorch's infer_dense_strides: contiguous strides for `shape` with the dims in the order
    `strides` suggest (the smallest innermost; a zero stride, an expanded dim, suggests nothing,
    so it keeps its place; equal strides put the smaller dim inside). PyTorch's insertion sort."""
    perm = list(range(len(shape) - 1, -1, -1))  # innermost first

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = strides[d0], strides[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 != s1:
            return -1 if s0 < s1 else 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, len(perm)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            order = should_swap(perm[d0], perm[d1])
            if order > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif order < 0:
                break
    out, step = [0] * len(shape), 1
    for d in perm:
        out[d], step = step, step * max(shape[d], 1)
    return out


def empty_like(a: np.ndarray, dtype: np.dtype | None = None) -> np.ndarray:
    """PyTorch's empty_like (preserve_format): a dense array's layout is kept (a transpose
    stays one), any other gets dense strides in the order its own suggest (infer_dense_strides)."""
    dtype = a.dtype if dtype is None else dtype
    if a.flags.c_contiguous:
        return np.empty(a.shape, dtype)
    if dense(a):
        return np.empty_like(a, dtype=dtype, order="K")
    strides = dense_strides(a.shape, tuple(s // a.itemsize for s in a.strides))
    outer_first = sorted(range(a.ndim), key=lambda d: -strides[d])
    memory = np.empty([a.shape[d] for d in outer_first], dtype)
    return memory.transpose(np.argsort(outer_first))


def copy_like(a: np.ndarray, dtype: np.dtype | None = None) -> np.ndarray:
    """A copy of `a` (in `dtype`) laid out as PyTorch's clone() and .to() lay theirs out."""
    out = empty_like(a, dtype)
    np.copyto(out, a, casting="unsafe")
    return out
