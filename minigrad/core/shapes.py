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
    """Tensor.sum_to_size for a bare array, laid out as PyTorch's sum_to lays it out: a sum
    that keeps its dims, viewed without the leading ones (so the result is a view of the sum),
    or one plain sum down to a 0-d shape."""
    dims = reduced_dims(np.shape(g), shape)
    if not dims:
        return g
    if not shape:
        return np.add.reduce(g, axis=dims)
    out = np.add.reduce(g, axis=dims, keepdims=True)
    return out if out.ndim == len(shape) else out.reshape(shape)


def expandable(shape: tuple, to: tuple) -> bool:
    """Whether `shape` broadcasts to `to` (each of its dims, from the right, equal or 1)."""
    lead = len(to) - len(shape)
    if lead < 0:
        return False
    if to[lead:] == shape:  # (the usual case: a bias broadcast over a batch)
        return True
    return all(s == t or s == 1 for s, t in zip(reversed(shape), reversed(to)))


def dense(a: np.ndarray) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the elements fill their memory span exactly, in
    some order of the dims (a transpose is dense, a slice with a step or an expand is not)."""
    if a.flags.c_contiguous:
        return True
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


def dense_strides(shape: tuple, *operands: tuple) -> list[int]:
    """Contiguous strides for `shape` with the dims in the order the operands' strides suggest,
    PyTorch's way (TensorIterator's reorder_dimensions; with one operand, infer_dense_strides):
    the smallest stride innermost, the first operand with an opinion deciding; a zero stride
    (an expanded or broadcast dim) gives none, and equal strides put the smaller dim inside."""
    perm = list(range(len(shape) - 1, -1, -1))  # innermost first

    def should_swap(d0: int, d1: int) -> int:
        for strides in operands:
            s0, s1 = strides[d0], strides[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 != s1:
                return -1 if s0 < s1 else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

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


def _laid_out(shape: tuple, strides: list[int], dtype: np.dtype) -> np.ndarray:
    """An empty array of `shape` whose memory runs in the order of `strides` (dense ones)."""
    outer_first = sorted(range(len(shape)), key=lambda d: -strides[d])
    memory = np.empty([shape[d] for d in outer_first], dtype)
    return memory.transpose(np.argsort(outer_first))


def iterator_layout(out: np.ndarray, *operands: np.ndarray) -> np.ndarray:
    """An elementwise result laid out as PyTorch lays it out (`dense_strides` of the operands
    broadcast to its shape): numpy makes it contiguous where the operands' layouts disagree,
    PyTorch follows the first one (a transpose plus a contiguous tensor is a transpose)."""
    if out.ndim < 2:
        return out
    for a in operands:
        if not a.flags.c_contiguous:
            break
    else:
        return out  # (both libraries: contiguous)
    steps = [_broadcast_strides(a, out.shape) for a in operands]
    want = dense_strides(out.shape, *steps)
    have = [s // out.itemsize for s in out.strides]
    if all(w == h for w, h, n in zip(want, have, out.shape) if n > 1):
        return out
    fixed = _laid_out(out.shape, want, out.dtype)
    fixed[...] = out
    return fixed


def _broadcast_strides(a: np.ndarray, shape: tuple) -> tuple:
    """`a`'s strides (in elements) as seen broadcast to `shape`: 0 along broadcast dims."""
    lead = len(shape) - a.ndim
    own = [
        s // a.itemsize if n != 1 or m == 1 else 0
        for s, n, m in zip(a.strides, a.shape, shape[lead:])
    ]
    return (0,) * lead + tuple(own)


def empty_like(a: np.ndarray, dtype: np.dtype | None = None) -> np.ndarray:
    """PyTorch's empty_like (preserve_format): a dense array's layout is kept (a transpose
    stays one), any other gets dense strides in the order its own suggest (infer_dense_strides)."""
    dtype = a.dtype if dtype is None else dtype
    if a.flags.c_contiguous:
        return np.empty(a.shape, dtype)
    if dense(a):
        return np.empty_like(a, dtype=dtype, order="K")
    strides = dense_strides(a.shape, tuple(s // a.itemsize for s in a.strides))
    return _laid_out(a.shape, strides, dtype)


def copy_like(a: np.ndarray, dtype: np.dtype | None = None) -> np.ndarray:
    """A copy of `a` (in `dtype`) laid out as PyTorch's clone() and .to() lay theirs out."""
    out = empty_like(a, dtype)
    np.copyto(out, a, casting="unsafe")
    return out
