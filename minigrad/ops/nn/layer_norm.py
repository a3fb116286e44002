"""layer_norm as PyTorch's native_layer_norm: each row (the trailing `normalized_shape` dims)
normalised by its own mean and biased variance, then scaled and shifted elementwise.

The gradient is one formula for every row-normalising layer (group_norm uses it too), written
with formula.py: on arrays it reads the statistics the forward saved; under create_graph it
recomputes them from the input with ops, so second and higher derivatives see how they depend
on it (PyTorch reaches them through its double-backward formula).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import kernels
from ...core.dtypes import SCALAR_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .._record import record, should_record
from .tangent_rules import total


def row_stats(x: np.ndarray, axes: tuple, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Mean and 1 / sqrt(biased var + eps) over the trailing `axes` (kept as size-1 dims),
    accumulated in float64 and returned in x's dtype (one kernel call over the rows)."""
    kept = x.shape[: x.ndim - len(axes)]
    mean, rstd = kernels.row_stats(x.reshape(math.prod(kept), -1), eps)
    shape = kept + (1,) * len(axes)
    return mean.reshape(shape), rstd.reshape(shape)


def stats(node: Node, x: Any, axes: tuple, *others: Any) -> tuple[Any, Any]:
    """(mean, rstd) of x's rows for a gradient formula: the forward's (`node.mean`,
    `node.rstd`, arrays) unless create_graph records through x or `others`; then they are
    recomputed from x with ops, so that higher derivatives see how they depend on x."""
    if isinstance(x, Tensor) and should_record((x, *others)):
        mean = x.mean(axes, keepdim=True)
        centered = x - mean
        return mean, ((centered * centered).mean(axes, keepdim=True) + node.eps) ** -0.5
    return node.mean, node.rstd


def normalize_grad(gs: Any, x: Any, mean: Any, rstd: Any, axes: tuple) -> Any:
    """dx for rows over `axes` given gs = g * scale, in PyTorch's CPU form: with the row sums
    db = sum(gs), ds = sum(gs x), dx = rstd gs + b x + c where b = (db mean - ds) rstd^3 / n
    and c = -b mean - db rstd / n (so an inf in g makes its row NaN, as in PyTorch)."""
    if not isinstance(gs, Tensor) and not isinstance(x, Tensor) and gs.shape == x.shape and x.size:
        kept = x.shape[: x.ndim - len(axes)]
        rows = (math.prod(kept), -1)
        dx = kernels.normalize_backward(
            gs.reshape(rows), x.reshape(rows), mean.reshape(-1), rstd.reshape(-1)
        )
        return dx.reshape(x.shape)
    n = int(np.prod([formula.data(x).shape[a] for a in axes]))
    db = formula.sum_keepdim(gs, axes)
    ds = formula.sum_keepdim(gs * x, axes)
    b = (db * mean - ds) * (rstd * rstd * rstd) / n
    c = -b * mean - db * rstd / n
    return gs * rstd + x * b + c


def statistics(node: Node, x: Tensor, axes: tuple) -> tuple[Tensor, Tensor]:
    """`stats` as Tensors in x's dtype, for a tangent formula."""
    return tuple(
        s if isinstance(s, Tensor) else Tensor._wrap(s.astype(x._data.dtype, copy=False))
        for s in stats(node, x, axes)
    )


def normalized_tangent(tx: Tensor, xhat: Tensor, rstd: Tensor, axes: tuple) -> Tensor:
    """The tangent of xhat = (x - mean) rstd over `axes`, the statistics moving with x:
    rstd (tx - mean(tx) - xhat mean(xhat tx))."""
    centered = tx - tx.mean(axes, keepdim=True)
    return (centered - xhat * (xhat * tx).mean(axes, keepdim=True)) * rstd


class NativeLayerNormBackward0(Node):
    """Gradients of (input, weight, bias); the statistics are saved as result1 and result2,
    as PyTorch names its outputs."""

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        self.saved("result1"), self.saved("result2")
        axes = tuple(range(-len(self.normalized_shape), 0))
        wanted = [edge[0] is not None for edge in self.next_functions]
        mean, rstd = stats(self, x, axes, g, w)
        dx = normalize_grad(g if w is None else g * w, x, mean, rstd, axes) if wanted[0] else None
        dw = formula.sum_to(g * ((x - mean) * rstd), self.normalized_shape) if wanted[1] else None
        db = formula.sum_to(g, self.normalized_shape) if wanted[2] else None
        return dx, dw, db

    def jvp(self, out, tangents):
        """(xhat w + b)' = xhat' w + xhat w' + b'."""
        tx, tw, tb = tangents
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        axes = tuple(range(-len(self.normalized_shape), 0))
        mean, rstd = statistics(self, x, axes)
        xhat = (x - mean) * rstd
        dx = None if tx is None else normalized_tangent(tx, xhat, rstd, axes)
        return total(
            None if dx is None else dx if w is None else dx * w,
            None if tw is None else xhat * tw,
            None if tb is None else tb.expand(out.shape),
        )


def _name(dt: np.dtype) -> str:
    return SCALAR_NAMES.get(dt.name, dt.name)


def check_params(x: Tensor, params: dict, kernel: str) -> None:
    """The input's dtype, then PyTorch's CPU mixed-dtype rule for weight and bias."""
    if x._data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x._data.dtype)}'")
    for t in params.values():
        if t is not None and t.dtype != x.dtype:
            if x.dtype.name == "float32":
                raise RuntimeError(
                    "mixed dtype (CPU): expect parameter to have scalar type of Float"
                )
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def record_normalized(
    node_cls: type[Node],
    out: np.ndarray,
    inputs: tuple[Tensor, Tensor | None, Tensor | None],
    save: dict,
    statistics: tuple[np.ndarray, np.ndarray],
    shown_shape: tuple | None,
    shown: dict,
    **attrs: Any,
) -> Tensor:
    """One recording for every row-normalising op: the output in the input's dtype, the tensors
    of `save` that exist, the forward's (mean, rstd) for the backward, and what PyTorch shows as
    the node's _saved_*: the statistics as result1/result2 (reshaped to `shown_shape` if
    given), then `shown`."""
    x, weight, _ = inputs
    mean, rstd = statistics
    result = record(
        node_cls,
        np.ascontiguousarray(out, dtype=x._data.dtype),
        inputs,
        save={k: v for k, v in save.items() if v is not None},
        has_weight=weight is not None,
        **attrs,
        mean=mean,
        rstd=rstd,
    )
    node = result.grad_fn
    if node is not None:
        if shown_shape is not None:
            mean, rstd = mean.reshape(shown_shape), rstd.reshape(shown_shape)
        node._save({"result1": Tensor._wrap(mean), "result2": Tensor._wrap(rstd), **shown})
    return result


def _check(x: Tensor, shape: tuple, weight: Tensor | None, bias: Tensor | None) -> None:
    if not shape:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
            "one element, but got normalized_shape = []"
        )
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.shape)} and normalized_shape = {list(shape)}"
            )
    if tuple(x.shape[x.ndim - len(shape) :]) != shape or x.ndim < len(shape):
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{list(x.shape)}"
        )
    check_params(x, {"weight": weight, "bias": bias}, "LayerNormKernelImpl")


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    if not isinstance(normalized_shape, (tuple, list)):
        raise TypeError(
            "layer_norm(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
            f"{type(normalized_shape).__name__}"
        )
    shape = tuple(int(n) for n in normalized_shape)
    x = input
    _check(x, shape, weight, bias)
    xd = x._data
    axes = tuple(range(-len(shape), 0))
    if xd.size:
        mean, rstd = row_stats(xd, axes, eps)
    else:  # no rows: PyTorch's statistics are empty, its result a copy
        mean = rstd = np.zeros(xd.shape[: xd.ndim - len(shape)] + (1,) * len(shape), xd.dtype)
    with np.errstate(invalid="ignore"):
        out = (xd - mean) * rstd
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        out = out + bias._data
    # (what PyTorch shows as _saved_result1/2 and _saved_normalized_shape)
    return record_normalized(
        NativeLayerNormBackward0,
        out,
        (x, weight, bias),
        {"input": x, "weight": weight, "bias": bias},
        (mean, rstd),
        None,
        {"normalized_shape": shape},
        normalized_shape=shape,
        eps=eps,
    )
