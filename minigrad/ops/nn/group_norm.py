"""group_norm as PyTorch's native_group_norm: the channels of each sample split into groups,
each group normalised by its own statistics, then a per-channel scale and shift. The gradient
is layer_norm's row formula on the (N, groups, rest) view of the input."""

from __future__ import annotations

import numpy as np

from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .layer_norm import (
    check_params,
    normalize_grad,
    normalized_tangent,
    record_normalized,
    row_stats,
    statistics,
    stats,
)
from .tangent_rules import total


def _per_channel(t: np.ndarray | Tensor, ndim: int):
    """A (C,) vector shaped to broadcast over an (N, C, *) input."""
    return t.reshape((1, -1) + (1,) * (ndim - 2))


class NativeGroupNormBackward0(Node):
    """dx by layer_norm's row formula on (N, groups, rest); dw as PyTorch sums it, per sample
    and channel first: sum_n (sum(g x) - sum(g) mean) rstd."""

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        self.saved("result1"), self.saved("result2")
        shape = formula.data(x).shape
        n, groups, c = shape[0], self.group, shape[1]
        size = formula.data(x).size
        per_group = size // max(n * groups, 1)
        xg = x.reshape(n, groups, per_group)
        mean, rstd = stats(self, xg, (2,), g, w)
        wanted = [edge[0] is not None for edge in self.next_functions]
        dx = dw = db = None
        if wanted[0]:
            gs = g if w is None else g * _per_channel(w, len(shape))
            dx = normalize_grad(gs.reshape(n, groups, per_group), xg, mean, rstd, (2,))
            dx = dx.reshape(shape)
        channel = (1, groups, c // groups, 1)
        split = (n, groups, c // groups, per_group * groups // max(c, 1))
        if wanted[1]:
            g4, x4 = g.reshape(split), x.reshape(split)
            ds = formula.sum_keepdim(g4 * x4, (3,))
            sums = formula.sum_keepdim(g4, (3,))
            m4, r4 = mean.reshape(n, groups, 1, 1), rstd.reshape(n, groups, 1, 1)
            dw = formula.sum_to((ds - sums * m4) * r4, channel).reshape(-1)
        if wanted[2]:
            db = formula.sum_to(g.reshape(split), channel).reshape(-1)
        return dx, dw, db

    def jvp(self, out, tangents):
        """layer_norm's rule on (N, groups, rest), then the per-channel scale and shift."""
        tx, tw, tb = tangents
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        shape = x.shape
        grouped = (shape[0], self.group, -1)
        xg = x.reshape(grouped)
        mean, rstd = statistics(self, xg, (2,))
        xhat = (xg - mean) * rstd
        dx = None if tx is None else normalized_tangent(tx.reshape(grouped), xhat, rstd, (2,))
        dx = None if dx is None else dx.reshape(shape)
        xhat = xhat.reshape(shape)
        return total(
            None if dx is None else dx if w is None else dx * _per_channel(w, len(shape)),
            None if tw is None else xhat * _per_channel(tw, len(shape)),
            None if tb is None else _per_channel(tb, len(shape)).expand(shape),
        )


def _contiguous(t: Tensor | None) -> Tensor | None:
    return t if t is None or t._data.flags.c_contiguous else t.contiguous()


def _check(x: Tensor, num_groups: int, weight: Tensor | None, bias: Tensor | None) -> None:
    if x.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {x.ndim}")
    channels = x.shape[1]
    if num_groups == 0:
        raise ZeroDivisionError("integer division or modulo by zero")
    if channels % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(x.shape)} and num_groups={num_groups}"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != channels):
            raise RuntimeError(
                f"Expected {name} to be a vector of size equal to the number of channels in "
                f"input, but got {name} of shape {list(t.shape)} and input of shape "
                f"{list(x.shape)}"
            )
    check_params(x, {"weight": weight, "bias": bias}, "GroupNormKernelImpl")


def _affine(x: np.ndarray, groups: int, mean, rstd, weight, bias) -> np.ndarray:
    """PyTorch's form of the output, per sample and channel: x * a + b with a = rstd * w and
    b = bias - mean * a (an infinite weight gives NaN wherever x * a and mean * a cancel)."""
    n, c = x.shape[:2]
    per_group = (n, groups, c // groups)
    a = np.broadcast_to(rstd, per_group)
    if weight is not None:
        a = a * weight._data.reshape(1, groups, c // groups)
    with np.errstate(invalid="ignore"):
        b = -np.broadcast_to(mean, per_group) * a
        if bias is not None:
            b = b + bias._data.reshape(1, groups, c // groups)
        spread = (n, c) + (1,) * (x.ndim - 2)
        return x * a.reshape(spread) + b.reshape(spread)


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    _check(input, num_groups, weight, bias)
    # PyTorch normalises input.contiguous() (a recorded copy when the input is not
    # contiguous) with weight.contiguous() and bias.contiguous()
    x, weight, bias = (_contiguous(t) for t in (input, weight, bias))
    xd = x._data
    n = xd.shape[0]
    grouped = xd.reshape(n, num_groups, xd.shape[1] // num_groups * int(np.prod(xd.shape[2:])))
    if grouped.size:
        mean, rstd = row_stats(grouped, (2,), eps)
    else:
        mean = rstd = np.zeros((n, num_groups, 1), xd.dtype)
    out = _affine(xd, num_groups, mean, rstd, weight, bias)
    # (PyTorch's _saved_* names: N, C, HxW, group, eps and the statistics)
    return record_normalized(
        NativeGroupNormBackward0,
        out,
        (x, weight, bias),
        {"input": x, "weight": weight},
        (mean, rstd),
        (n, num_groups),
        {
            "N": n,
            "C": xd.shape[1],
            "HxW": int(np.prod(xd.shape[2:], dtype=np.int64)),
            "group": num_groups,
            "eps": eps,
        },
        group=num_groups,
        eps=eps,
    )
