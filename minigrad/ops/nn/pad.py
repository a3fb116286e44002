"""F.pad's four modes. `pad` lists (left, right) pairs from the last dim backwards, as PyTorch
reads it; negative amounts crop.

constant: one node (ConstantPadNdBackward0) whose gradient is the gradient cropped, which is
constant padding again, so every order is differentiable. reflect and replicate: each output
element reads one input element, so the op is a gather along the padded dims, a linear map
whose adjoint is the matching scatter-add (linear_map.py). circular: composed of copies
into slices of a new tensor, as PyTorch composes it (its grad_fn is CopySlices).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from ... import creation
from ...core.node import Node
from ...core.tensor import Tensor
from .. import tangents
from .._record import record
from ..elementwise import checked_scalar
from .linear_map import apply_map, node_pair


def _pairs(pad: tuple) -> list[tuple[int, int]]:
    """(left, right) per padded dim, outermost padded dim first."""
    return [(pad[i], pad[i + 1]) for i in range(len(pad) - 2, -1, -2)]


def _check_length(x: Tensor, pad: tuple) -> None:
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > x.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but "
            f"got padding length {len(pad)} and input of dimension {x.ndim}"
        )


# --- constant ------------------------------------------------------------------------------
def _constant_data(x: np.ndarray, pad: tuple, value: Any) -> np.ndarray:
    pairs = _pairs(pad)
    lead = x.ndim - len(pairs)
    crop = [slice(None)] * lead
    widths = [(0, 0)] * lead
    for (left, right), n in zip(pairs, x.shape[lead:]):
        start, stop = max(-left, 0), n - max(-right, 0)
        if stop < start:
            raise RuntimeError("narrow(): length must be non-negative.")
        crop.append(slice(start, stop))
        widths.append((max(left, 0), max(right, 0)))
    fill = checked_scalar(value, x.dtype)
    if not widths:  # a 0-d input: a copy
        return x.copy()
    return np.pad(x[tuple(crop)], widths, constant_values=fill)


class ConstantPadNdBackward0(Node):
    jvp = tangents.linear(lambda node, out, t: _constant_pad(t, node.pad, 0))

    def backward(self, g):
        return (_constant_pad(g, tuple(-p for p in self.pad), 0),)


def _constant_pad(x: Any, pad: tuple, value: Any) -> Any:
    """Constant padding of an array, or of a Tensor as a recorded op."""
    if not isinstance(x, Tensor):
        return _constant_data(x, pad, value)
    data = _constant_data(x._data, pad, value)
    return record(ConstantPadNdBackward0, data, (x,), save={"pad": pad}, pad=pad)


# --- reflect and replicate: a gather along the padded dims ---------------------------------
def _sources(n: int, left: int, right: int, mode: str) -> np.ndarray:
    """For each output position along one dim, the input position it reads."""
    src = np.arange(-left, n + right)
    if mode == "replicate":
        return np.clip(src, 0, n - 1)
    src = np.abs(src)
    return np.where(src > n - 1, 2 * (n - 1) - src, src)


def _index(shape: tuple, pairs: list, mode: str) -> tuple:
    """The index that gathers the padded tensor from the input (open grids on padded dims)."""
    lead = len(shape) - len(pairs)
    grids = [_sources(n, left, right, mode) for (left, right), n in zip(pairs, shape[lead:])]
    return (Ellipsis, *np.ix_(*grids)) if grids else (Ellipsis,)


def _gather(x: np.ndarray, index: tuple) -> np.ndarray:
    return np.ascontiguousarray(x[index])


def _scatter(g: np.ndarray, index: tuple, shape: tuple) -> np.ndarray:
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, index, g)
    return out


def _node_classes() -> dict:
    """ReflectionPad{1,2,3}DBackward0 and ReplicationPad{1,2,3}DBackward0 (linear_map.py's
    pairs, with their …BackwardBackward0 twins), named as PyTorch names them."""
    kinds = (("reflect", "Reflection"), ("replicate", "Replication"))
    return {
        (mode, k): node_pair(f"{kind}Pad{k}D")
        for (mode, kind), k in itertools.product(kinds, (1, 2, 3))
    }


_INDEX_PAD = _node_classes()
_SUPPORTED = (
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)
_AXES = "DHW"


def _check_index_pad(x: Tensor, pad: tuple, mode: str) -> None:
    k = len(pad) // 2
    if len(pad) not in (2, 4, 6) or x.ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {x.ndim}D input tensor.\n{_SUPPORTED}"
        )
    shape = tuple(x.shape)
    batch = x.ndim - k - 1  # 1 when the first dim is a batch (which may be empty)
    if 0 in shape[batch:]:
        raise RuntimeError(
            f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
            f"other non-zero dimensions for input, but got: {list(shape)}"
        )
    if x.dtype.name == "bool" and mode != "circular":
        kernel = "reflection" if mode == "reflect" else "replication"
        raise NotImplementedError(f"\"{kernel}_pad{k}d\" not implemented for 'Bool'")
    pairs = _pairs(pad)
    sizes = shape[-k:]
    if mode == "reflect":
        for j in range(k - 1, -1, -1):  # W first, then H, then D
            left, right = pairs[j]
            if left >= sizes[j] or right >= sizes[j]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * (k - 1 - j)}: Padding size should be less than the "
                    "corresponding input dimension, but got: padding "
                    f"({left}, {right}) at dimension {x.ndim - k + j} of input {list(shape)}"
                )
    out = [n + left + right for n, (left, right) in zip(sizes, pairs)]
    if min(out) < 1:
        axes = _AXES[3 - k :]
        given = ", ".join(f"{a}: {n}" for a, n in zip(axes, sizes))
        got = ", ".join(f"{a}: {n}" for a, n in zip(axes, out))
        raise RuntimeError(f"input ({given}) is too small. Calculated output {got}")


# --- circular: copies into a new tensor ----------------------------------------------------
def _circular(x: Tensor, pad: tuple) -> Tensor:
    """PyTorch's composition: the (cropped) input copied into the middle of a new tensor, then
    each padded dim's borders copied from the far side of that same tensor."""
    pairs = _pairs(pad)
    k = len(pairs)
    lead = x.ndim - k
    sizes = x.shape[lead:]
    for (left, right), n in zip(pairs, sizes):
        if left > n or right > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
    out_sizes = [n + left + right for n, (left, right) in zip(sizes, pairs)]
    out = creation.empty(tuple(x.shape[:lead]) + tuple(out_sizes), dtype=x.dtype)
    full = [slice(None)] * x.ndim
    src, dst = list(full), list(full)
    for j, ((left, right), n) in enumerate(zip(pairs, sizes)):
        src[lead + j] = slice(max(-left, 0), n - max(-right, 0))
        dst[lead + j] = slice(max(left, 0), out_sizes[j] - max(right, 0))
    out[tuple(dst)] = x[tuple(src)]
    for j, (left, right) in reversed(list(enumerate(pairs))):  # the last dim first
        size, dim = out_sizes[j], lead + j
        left, right = max(left, 0), max(right, 0)
        if left:
            to, frm = list(full), list(full)
            to[dim], frm[dim] = slice(0, left), slice(size - right - left, size - right)
            out[tuple(to)] = out[tuple(frm)]
        if right:
            to, frm = list(full), list(full)
            to[dim], frm[dim] = slice(size - right, size), slice(left, left + right)
            out[tuple(to)] = out[tuple(frm)]
    return out


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """F.pad: `pad` a sequence of ints, (left, right) for the last dim first."""
    pad = tuple(int(p) for p in pad)
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant" and value is not None:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    if mode == "constant":
        _check_length(input, pad)
        return _constant_pad(input, pad, 0 if value is None else value)
    _check_index_pad(input, pad, mode)
    if mode == "circular":
        return _circular(input, pad)
    shape = tuple(input.shape)
    index = _index(shape, _pairs(pad), mode)
    return apply_map(
        input,
        functools.partial(_gather, index=index),
        functools.partial(_scatter, index=index, shape=shape),
        _INDEX_PAD[mode, len(pad) // 2],
        self=input,
        padding=pad,
    )
