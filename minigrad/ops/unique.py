"""unique: the distinct elements (or, with dim, the distinct slices along dim), sorted, with
optionally where each input element went (inverse) and how often each occurs (counts).

Equal means ==: -0.0 and 0.0 are one value (the first in the input stands for both), and each
NaN is a value of its own, sorted last, as PyTorch's sort-based unique has them. Slices are
sorted column by column, NaN last (where a slice holding NaN lands in PyTorch's order depends on
its sort's steps: its comparison skips NaN columns). PyTorch has no derivative for unique: an
output of an input requiring grad gets a node that says so."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.node import Node
from ..core.shapes import wrap_dim
from ..core.tensor import Tensor
from ._record import argument_error, record


class Unique2Backward0(Node):
    op = "_unique2"

    def jvp(self, out, tangents):
        """PyTorch has no forward formula either: its message for an op declared without one."""
        raise NotImplementedError(
            f"Trying to use forward AD with {self.op} that does not support it because it has "
            "not been implemented yet.\nPlease file an issue to PyTorch at "
            "https://github.com/pytorch/pytorch/issues/new?template=feature-request.yml so that "
            "we can prioritize its implementation or submit a PR adding the implementation to "
            "derivatives.yaml"
        )

    def backward(self, g):
        raise NotImplementedError(f"the derivative for '{self.op}' is not implemented.")


class UniqueDimBackward0(Unique2Backward0):
    op = "unique_dim"


def _groups(starts: np.ndarray, order: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """From the sorted order and where its runs of equal items start: each input item's run
    (the inverse) and each run's length (the counts)."""
    inverse = np.empty(n, np.int64)
    inverse[order] = np.cumsum(starts) - 1
    counts = np.diff(np.append(np.flatnonzero(starts), n)).astype(np.int64)
    return inverse, counts


def _unique_elements(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    flat = x.reshape(-1)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = np.ones(flat.size, bool)
    starts[1:] = ordered[1:] != ordered[:-1]  # (NaN != NaN: every NaN starts a run)
    inverse, counts = _groups(starts, order, flat.size)
    return ordered[starts], inverse.reshape(x.shape), counts


def _unique_slices(x: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if 0 in x.shape and x.shape[d] != 0:
        raise RuntimeError(
            "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied"
        )
    moved = np.moveaxis(x, d, 0)
    rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:], dtype=np.int64)))
    order = np.lexsort(rows.T[::-1]) if rows.shape[1] else np.arange(len(rows))
    ordered = rows[order]
    starts = np.ones(len(rows), bool)
    starts[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse, counts = _groups(starts, order, len(rows))
    kept = moved[order[starts]]
    return np.ascontiguousarray(np.moveaxis(kept, 0, d)), inverse, counts


def unique(
    input: Tensor,  # noqa: A002
    sorted: bool = True,  # noqa: A002 - PyTorch's name (the result is sorted either way)
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The values (a tensor), or with return_inverse/return_counts a tuple, as in PyTorch."""
    if not isinstance(input, Tensor):
        raise argument_error("_unique2", "input", 1, input)
    x = input._data
    if dim is None:
        values, inverse, counts = _unique_elements(x)
        node = Unique2Backward0
    else:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(
                f"unique_dim(): argument 'dim' (position 2) must be int, not {type(dim).__name__}"
            )
        if x.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        values, inverse, counts = _unique_slices(x, wrap_dim(dim, x.ndim))
        node = UniqueDimBackward0
    out = record(node, values, (input,))
    asked = [a for a, keep in ((inverse, return_inverse), (counts, return_counts)) if keep]
    return (out, *map(Tensor._wrap, asked)) if asked else out
