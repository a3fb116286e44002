"""Summing a broadcast gradient back to its input's shape: needed by forward ops (to build
`sum_to_size`) and by the engine (to reduce what a formula returns), so it lives on the floor."""

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
