"""nll_loss as PyTorch runs it (nll_loss_nd): a (C,) or (N, C) input records NllLossBackward0,
an (N, C, H, W) input NllLoss2DBackward0; any other rank is viewed as (N, C, 1, -1) first
(contiguous, as PyTorch makes it) and a 'none' result viewed back. Class weights scale each
target's term; the mean divides by the total weight of the targets counted (NaN when none is)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import kernels
from ...core import autocast
from ...core.dtypes import SCALAR_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula, tangents
from .._record import record
from .arguments import not_differentiable

REDUCTIONS = ("none", "mean", "sum")  # PyTorch's Reduction enum, in order


def _dtype_name(dt: np.dtype) -> str:
    return SCALAR_NAMES.get(dt.name, dt.name.capitalize())


def check_weight(weight: Tensor | None, x: Tensor) -> None:
    """The class weights, checked as PyTorch checks them."""
    if weight is None:
        return
    not_differentiable("nll_loss_forward", weight=weight)
    w, shape = weight._data, x._data.shape
    if w.ndim != 1 or w.size != shape[1 if len(shape) > 1 else 0]:
        if len(shape) > 2:
            raise RuntimeError("weight tensor should be defined either for all or no classes")
        raise RuntimeError(
            f"weight tensor should be defined either for all {shape[-1]} classes or no "
            f"classes but got weight tensor of shape: {list(w.shape)}"
        )
    if w.dtype != x._data.dtype:
        raise RuntimeError(
            f"expected scalar type {_dtype_name(x._data.dtype)} but found {_dtype_name(w.dtype)}"
        )


def class_indices(target: Tensor, n_classes: int, ignore_index: int) -> np.ndarray:
    """The target's classes as int64 (same shape), checked like PyTorch checks them."""
    t = target_classes(target)
    if t.size and (t.min() < 0 or t.max() >= n_classes):  # two reductions in the usual case
        bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
        if bad.any():
            raise out_of_bounds(int(t[bad][0]))
    return t


def target_classes(target: Tensor) -> np.ndarray:
    """The target's classes as int64, once its dtype is one PyTorch takes (bounds unchecked)."""
    t = target._data
    if t.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {_dtype_name(t.dtype)}"
        )
    return t.astype(np.int64, copy=False)


def out_of_bounds(target: int) -> IndexError:
    return IndexError(f"Target {target} is out of bounds.")


def _positions(t: np.ndarray, ndim: int) -> tuple:
    """Where each target's class sits in the (C,), (N, C) or (N, C, H, W) input."""
    picked = np.where(t >= 0, t, 0)  # ignored targets (possibly negative) point at class 0
    if ndim == 1:
        return (picked,)
    rest = np.indices(t.shape, sparse=True)
    return (rest[0], picked, *rest[1:])


def _picked(logp: np.ndarray, t: np.ndarray, ignore_index: int) -> np.ndarray:
    """-logp at each target's class, 0 where the target is ignored."""
    values = logp[_positions(t, logp.ndim)]
    return np.where(t != ignore_index, -values, logp.dtype.type(0))


class Terms(NamedTuple):
    """What the loss picks from its input: each target's class `t`, its weight (0 where
    ignored), the reduction, for the mean the total weight (0 when nothing counts), and each
    target's share of the result (weight / total for the mean)."""

    t: np.ndarray
    weights: np.ndarray
    ignore_index: int
    reduction: str
    total: np.generic | None
    scale: np.ndarray
    shape: tuple  # the input's


def _divide(a, total):
    """a / total; 0 / 0 is NaN, as in PyTorch (without numpy's warning)."""
    if total:
        return a / total
    with np.errstate(divide="ignore", invalid="ignore"):
        return a / total


def _reduce(losses: np.ndarray, terms: Terms) -> np.ndarray:
    if terms.reduction == "none":
        return losses
    total = losses.sum()
    if terms.reduction == "mean":
        total = _divide(total, terms.total)
    return np.asarray(total, dtype=losses.dtype)


class NllLossBackward0(Node):
    """The input, target and weights are saved as PyTorch saves them: changed in place,
    backward refuses. Recorded again (unsaved) as the gradient of NllLossBackwardBackward0."""

    jvp = tangents.linear(lambda node, out, t: nll_pick(t, node.terms))  # (linear in logp)

    def backward(self, g):
        if not self._saved:  # recorded by nll_pick
            return (nll_input_grad(g, self.terms),)
        for key in ("target", "weight"):  # the version checks
            if key in self._saved:
                self.saved(key)
        return (nll_input_grad(g, self.terms, self.saved("self")),)


class NllLoss2DBackward0(NllLossBackward0):
    pass


class NllLossBackwardBackward0(Node):
    """nll_input_grad recorded under create_graph: linear in g, its gradient is nll_pick; the
    input's is zeros, as in PyTorch (where it is an edge of this node)."""

    jvp = tangents.linear(lambda node, out, t: nll_input_grad(t, node.terms))

    def backward(self, gg):
        zeros = formula.zeros_like(gg) if self.next_functions[1][0] is not None else None
        return nll_pick(gg, self.terms), zeros


class NllLoss2DBackwardBackward0(NllLossBackwardBackward0):
    pass


def nll_input_grad(g, terms: Terms, x=None):
    """Zeros of the input's shape holding -g * weight (/ total) at each counted target; `x`,
    the input, is the double-backward node's second edge."""
    shape, t = terms.shape, terms.t
    coef = (terms.scale * -formula.data(g)).reshape(-1)  # g is 0-d or shaped like t
    rows = kernels.nll_loss_backward(
        coef, t.reshape(-1), terms.ignore_index, shape[min(1, len(shape) - 1)]
    )
    if len(shape) <= 2:
        data = rows.reshape(shape)
    else:
        data = np.moveaxis(rows.reshape(shape[:1] + shape[2:] + shape[1:2]), -1, 1)
    cls = NllLoss2DBackwardBackward0 if len(shape) == 4 else NllLossBackwardBackward0
    return formula.result(cls, data, (g, x), terms=terms)


def nll_pick(gg, terms: Terms):
    """The loss itself, of any array shaped like its input: -gg at each counted target,
    weighed and reduced."""
    losses = _picked(formula.data(gg), terms.t, terms.ignore_index) * terms.weights
    cls = NllLoss2DBackward0 if len(terms.shape) == 4 else NllLossBackward0
    return formula.result(cls, _reduce(losses, terms), (gg,), terms=terms)


def reduce_nll(
    logp: Tensor,
    losses: np.ndarray,
    t: np.ndarray,
    weight: Tensor | None,
    reduction: str,
    ignore_index: int,
    target: Tensor,
    counted: tuple | None = None,
) -> Tensor:
    """Weigh and reduce per-target losses (-logp at the target, 0 where ignored) and record
    the node on logp; `t` is `target`'s classes shaped like `losses`; `counted`, without class
    weights, each target's weight (1, or 0 where ignored) and their sum, if already known."""
    dtype = logp._data.dtype
    count = None
    if counted is not None:
        weights, count = counted
    elif weight is None:
        weights = (t != ignore_index).astype(dtype)
    else:  # an ignored target weighs exactly 0, whatever weight[0] holds
        valid = t != ignore_index
        weights = np.where(valid, weight._data[np.where(valid, t, 0)], dtype.type(0))
        losses = losses * weights
    if reduction == "none":
        total, count = None, dtype.type(0)
    else:
        count = weights.sum(dtype=dtype) if count is None else dtype.type(count)
        total = count if reduction == "mean" else None
    scale = _divide(weights, total) if reduction == "mean" else weights
    terms = Terms(t, weights, ignore_index, reduction, total, scale, logp._data.shape)
    data = _reduce(losses.astype(dtype, copy=False), terms)
    cls = NllLoss2DBackward0 if logp.ndim == 4 else NllLossBackward0
    save = {  # what PyTorch's node saves (grad_fn._saved_total_weight, ...), its ints included
        "self": logp,
        "target": target,
        "weight": weight,
        "total_weight": Tensor._wrap(np.asarray(count, dtype)),  # (its forward's 2nd output)
        "reduction": REDUCTIONS.index(reduction),
        "ignore_index": ignore_index % 2**64,  # (PyTorch shows the int64 as its uint64 bits)
    }
    return record(cls, data, (logp,), save=save, terms=terms)


def check_classes(x: Tensor, target: Tensor) -> None:
    """nll_loss_nd's checks of the two shapes (ValueError), then each kernel's."""
    shape, t_shape = x._data.shape, target._data.shape
    nd, t_nd = len(shape), len(t_shape)
    if nd < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {nd})")
    batch = t_shape[0] if t_nd else 0
    if nd != 1 and shape[0] != batch:
        raise ValueError(
            f"Expected input batch_size ({shape[0]}) to match target batch_size ({batch})."
        )
    if nd == 1 and t_nd == 1 and batch != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {batch}")
    if nd <= 2:
        if t_nd > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif nd == 4:
        if t_nd != 3:
            raise RuntimeError(
                "only batches of spatial targets supported (3D tensors) but got targets of "
                f"dimension: {t_nd}"
            )
        if t_shape != shape[:1] + shape[2:]:
            raise RuntimeError(f"size mismatch (got input: {list(shape)} , target: {list(t_shape)}")
    elif t_shape[1:] != shape[2:]:
        raise RuntimeError(f"Expected target size {[shape[0], *shape[2:]]}, got {list(t_shape)}")


def nll_loss(
    logp: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int = -100,
) -> Tensor:
    if autocast.cpu_on:
        logp, weight = autocast.widen(logp, weight)
    check_classes(logp, target)
    if logp.ndim == 3 or logp.ndim > 4:
        return _flattened(logp, target, weight, reduction, ignore_index)
    check_weight(weight, logp)
    t = class_indices(target, logp.shape[1 if logp.ndim > 1 else 0], ignore_index)
    t = t.reshape(()) if logp.ndim == 1 else t
    losses = _picked(logp._data, t, ignore_index)
    return reduce_nll(logp, losses, t, weight, reduction, ignore_index, target)


def _flattened(x: Tensor, target: Tensor, weight, reduction: str, ignore_index: int) -> Tensor:
    """An (N, C, d1, ...) input as PyTorch takes it: (N, C, 1, L), the target (N, 1, L)."""
    n, c = x.shape[0], x.shape[1]
    flat_x = x.contiguous().view(n, c, *((1, -1) if x.numel() else (0, 0)))
    flat_t = target.contiguous().view(n, *((1, -1) if target.numel() else (0, 0)))
    out = nll_loss(flat_x, flat_t, weight, reduction, ignore_index)
    return out.view(n, *x.shape[2:]) if reduction == "none" else out
