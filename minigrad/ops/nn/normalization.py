"""batch_norm as PyTorch's F.batch_norm runs it on the CPU (native_batch_norm).

Training normalises with the batch's mean and biased variance per channel (dim 1), both
accumulated in float64 as PyTorch does, and moves the running statistics in place, without a
version bump: mean by momentum, variance by the unbiased estimate. Evaluation uses the running
statistics. The output is x * alpha + beta per channel, PyTorch's form. One node,
NativeBatchNormBackward0, for input, weight and bias; under create_graph its gradients are
recorded as PyTorch's NativeBatchNormBackwardBackward0, whose formulas are written with ops.
"""

from __future__ import annotations

import numpy as np

from ...core.dtypes import SCALAR_NAMES
from ...core.node import Node
from ...core.tensor import Tensor
from .. import formula
from .._record import record, record_many, should_record
from .layer_norm import normalized_tangent
from .tangent_rules import total

OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def _channels(a: np.ndarray, ndim: int) -> np.ndarray:
    """A per-channel (C,) array shaped to broadcast over an (N, C, ...) input."""
    return a.reshape((1, -1) + (1,) * (ndim - 2))


def _axes(ndim: int) -> tuple:
    return (0, *range(2, ndim))


def _first_order(node: Node, g: np.ndarray, x: np.ndarray, w, stats: tuple) -> list:
    """[dx, dw, db] as arrays (None where no gradient is wanted), PyTorch's CPU formulas:
    training dx = (g - mean(g) - (x - mean) * k) * invstd * w with
    k = sum((x - mean) g) invstd^2 / M, dw = sum((x - mean) g) invstd, db = sum(g) (sums in
    float64); evaluation dx = g * invstd * w with the running statistics."""
    ndim, axes = x.ndim, _axes(x.ndim)
    m = x.size // x.shape[1]
    mean, invstd = stats
    xc = x - _channels(mean.astype(x.dtype), ndim)
    sum_g = g.sum(axes, dtype=np.float64)
    dotp = (xc * g).sum(axes, dtype=np.float64)
    scale = invstd if w is None else invstd * w.reshape(-1)
    needs = [edge[0] is not None for edge in node.next_functions]
    dx = None
    if needs[0] and node.training:
        k = _channels(dotp * invstd * invstd / m, ndim)
        dx = (g - _channels(sum_g / m, ndim) - xc * k) * _channels(scale, ndim)
    elif needs[0]:
        dx = g * _channels(scale.astype(x.dtype), ndim)
    return [
        None if dx is None else dx.astype(x.dtype, copy=False),
        (dotp * invstd).astype(x.dtype) if needs[1] else None,
        sum_g.astype(x.dtype) if needs[2] else None,
    ]


class NativeBatchNormBackward0(Node):
    """Gradients for (input, weight, bias). The running statistics are saved as PyTorch saves
    them: written in place after the op, backward refuses."""

    def backward(self, g):
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        stats = (self.mean, self.invstd)  # the batch's, saved by the forward
        if self.has_stats:  # the version check; evaluation reads them now, as PyTorch does
            running = [formula.data(self.saved(k)) for k in ("running_mean", "running_var")]
            stats = stats if self.training else _running(*running, self.eps)
        grads = _first_order(self, formula.data(g), formula.data(x), formula.data(w), stats)
        if not isinstance(g, Tensor):
            return tuple(grads)
        return batch_norm_backward(self, grads, g, x, w, stats)

    def jvp(self, out, tangents):
        """xhat' w + xhat w' + b' per channel; in training xhat's statistics are the batch's
        and move with x (layer_norm's rule over the non-channel dims), in evaluation they
        are the running ones, constants."""
        tx, tw, tb = tangents
        x = self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        ndim, axes = x.ndim, _axes(x.ndim)
        per_channel = (1, -1) + (1,) * (ndim - 2)
        if self.training and should_record((x,)):
            mean = x.mean(axes, keepdim=True)
            invstd = (((x - mean) * (x - mean)).mean(axes, keepdim=True) + self.eps) ** -0.5
        else:
            stats = (self.mean, self.invstd)
            if not self.training:
                running = [self.saved(k)._data for k in ("running_mean", "running_var")]
                stats = _running(*running, self.eps)
            mean, invstd = (Tensor._wrap(_channels(s.astype(x._data.dtype), ndim)) for s in stats)
        xhat = (x - mean) * invstd
        dx = None
        if tx is not None:
            dx = normalized_tangent(tx, xhat, invstd, axes) if self.training else tx * invstd
            dx = dx if w is None else dx * w.reshape(per_channel)
        return total(
            dx,
            None if tw is None else xhat * tw.reshape(per_channel),
            None if tb is None else tb.reshape(per_channel).expand(out.shape),
        )


class NativeBatchNormBackwardBackward0(Node):
    """PyTorch's batchnorm_double_backward (FunctionsManual.cpp), term by term: the gradients
    of (dx, dw, db) give those of (grad_output, input, weight). Outputs that receive no
    gradient stay None, as in PyTorch, which leaves their terms out (no 0 * inf)."""

    def _materialize(self, grads: list, arrays: bool) -> list:
        return list(grads)

    def backward(self, *grads):
        given = dict(zip(self.slots, grads))
        g, x = self.saved("grad_output"), self.saved("input")
        w = self.saved("weight") if self.has_weight else None
        return _double(self, g, x, w, given.get(0), given.get(1), given.get(2))

    def jvp(self, outs, tangents):
        """The tangents of the gradients asked for (dx, dw, db), from those of (grad_output,
        input, weight): the first-order formulas differentiated, the batch statistics moving
        with x in training."""
        tg, tx, tw = tangents
        g, x, w = self.operands
        axes = _axes(x.ndim)
        per_channel = (1, -1) + (1,) * (x.ndim - 2)

        def mean(v):
            return v.mean(axes, keepdim=True)

        if self.training and should_record((x,)):
            mu = mean(x)
            invstd = (mean((x - mu) * (x - mu)) + self.eps) ** -0.5
        else:
            mu, invstd = (
                Tensor._wrap(_channels(s.astype(x._data.dtype), x.ndim))
                for s in (self.mean, self.invstd)
            )
        xhat = (x - mu) * invstd
        gamma = None if w is None else w.reshape(per_channel)
        if self.training:
            txhat = None if tx is None else normalized_tangent(tx, xhat, invstd, axes)
            g_xhat = mean(g * xhat)
            shape_g = g - mean(g) - xhat * g_xhat  # dx = shape_g * invstd * w
            t_shape = total(
                None if tg is None else tg - mean(tg) - xhat * mean(tg * xhat),
                None if tx is None else -(txhat * g_xhat) - xhat * mean(g * txhat),
            )
            t_invstd = None if tx is None else -invstd * invstd * mean(xhat * tx)
            t_dx = total(
                None if t_shape is None else t_shape * invstd,
                None if t_invstd is None else shape_g * t_invstd,
            )
            t_dx = _scaled(t_dx, gamma)
            t_dx = total(t_dx, None if tw is None else shape_g * invstd * tw.reshape(per_channel))
        else:
            txhat = None if tx is None else tx * invstd
            t_dx = total(
                None if tg is None else _scaled(tg * invstd, gamma),
                None if tw is None else g * invstd * tw.reshape(per_channel),
            )
        t_dw = total(None if tg is None else tg * xhat, None if txhat is None else g * txhat)
        full = [
            t_dx,
            None if t_dw is None else t_dw.sum(axes).reshape(-1),
            None if tg is None else tg.sum(axes).reshape(-1),
        ]
        return [full[i] for i in self.slots]


def _scaled(t, gamma):
    """t times the per-channel weight, when there is one."""
    return None if t is None else t if gamma is None else t * gamma


def _double(node: Node, g_o, x, w, gg_i, gg_w, gg_b) -> tuple:
    """(grad of grad_output, grad of input, grad of weight); written with formula ops. Under
    create_graph the batch statistics are recomputed from x with ops, so that higher orders
    see how they depend on x (PyTorch reaches them through the forward's saved outputs)."""
    xd = formula.data(x)
    ndim, axes = xd.ndim, _axes(xd.ndim)
    m = xd.size // xd.shape[1]
    per_channel = (1, -1) + (1,) * (ndim - 2)

    def csum(v):
        return formula.sum_keepdim(v, axes)

    if node.training and should_record((g_o, x, w, gg_i, gg_w, gg_b)):
        mu = x.mean(axes, keepdim=True)
        invstd = (((x - mu) * (x - mu)).mean(axes, keepdim=True) + node.eps) ** -0.5
    else:
        mu = _channels(node.mean.astype(xd.dtype), ndim)
        invstd = _channels(node.invstd.astype(xd.dtype), ndim)
    gamma = 1.0 if w is None else w.reshape(per_channel)
    x_mu = x - mu
    inv2, inv3 = invstd**2, invstd**3
    x_mu_inv3 = x_mu * inv3
    go_x_sum, go_sum = csum(g_o * x_mu), csum(g_o)
    g_i = None
    if gg_i is not None and node.training:
        gg_sum, gg_x_sum = csum(gg_i), csum(gg_i * x_mu)
        all_sub = gg_sum * go_sum / m - csum(g_o * gg_i) + inv2 * go_x_sum * gg_x_sum * (3.0 / m)
        t0 = x_mu_inv3 * all_sub / m
        t1 = gg_x_sum * inv3 / m * (go_sum / m - g_o)
        t2 = go_x_sum * inv3 / m * (gg_sum / m - gg_i)
        g_i = gamma * (t0 + t1 + t2)
    if w is not None and gg_w is not None:
        gg_w_c = gg_w.reshape(per_channel)
        if node.training:
            term = gg_w_c * (g_o * invstd + invstd * go_sum / -m + x_mu_inv3 * go_x_sum / -m)
        else:
            term = gg_w_c * invstd * g_o
        g_i = term if g_i is None else g_i + term

    def first_backward(grad, gamma_):
        return gamma_ * invstd / m * (m * grad - csum(grad) - x_mu * inv2 * csum(grad * x_mu))

    g_w = None
    if w is not None and gg_i is not None:
        inner = gg_i * (first_backward(g_o, 1.0) if node.training else g_o * invstd)
        g_w = csum(inner).reshape(-1)
    g_go = None
    if gg_i is not None:
        g_go = first_backward(gg_i, gamma) if node.training else gg_i * invstd * gamma
    if gg_w is not None:
        term = gg_w.reshape(per_channel) * x_mu * invstd
        g_go = term if g_go is None else g_go + term
    if gg_b is not None:
        term = formula.expand(gg_b.reshape(per_channel), xd.shape)
        g_go = term if g_go is None else g_go + term
    return g_go, g_i, g_w


def batch_norm_backward(node: Node, grads: list, g: Tensor, x: Tensor, w, stats: tuple) -> tuple:
    """The first-order gradients as Tensors: recorded under create_graph as PyTorch's
    NativeBatchNormBackwardBackward0 (one node for the gradients asked for)."""
    if not should_record((g, x, w)):
        return tuple(None if a is None else Tensor._wrap(a) for a in grads)
    slots = [i for i, a in enumerate(grads) if a is not None]
    save = {"grad_output": g, "input": x, "weight": w}
    outs = record_many(
        NativeBatchNormBackwardBackward0,
        [grads[i] for i in slots],
        (g, x, w),
        slots=slots,
        has_weight=w is not None,
        training=node.training,
        eps=node.eps,
        mean=stats[0],
        invstd=stats[1],
        operands=(g, x, w),  # (what its forward-mode formula differentiates)
    )
    full: list = [None, None, None]
    for i, out in zip(slots, outs):
        full[i] = out
    outs[0].grad_fn._save({k: v for k, v in save.items() if v is not None})
    return tuple(full)


def _name(dt: np.dtype) -> str:
    return SCALAR_NAMES.get(dt.name, dt.name)


def _check(x: Tensor, stats: tuple, params: tuple, training: bool) -> None:
    """native_batch_norm's checks, in its order: sizes, the input's dtype, both statistics or
    neither, then the dtypes of the parameters (PyTorch's mixed-dtype rules on the CPU)."""
    channels = x.shape[1] if x.ndim > 1 else 0  # PyTorch reads 0 channels off a 1-d input
    for name, t in zip(("running_mean", "running_var", "weight", "bias"), (*stats, *params)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
        if t is None and name.startswith("running") and not training:
            raise RuntimeError(f"{name} must be defined in evaluation mode")
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{_name(x._data.dtype)}'")
    if (stats[0] is None) != (stats[1] is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if x.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    given = [t for t in (*params, *stats) if t is not None]
    if given and given[0].dtype != x.dtype:  # "mixed": only reduced floats may mix, with Float
        if any(t.dtype.name != "float32" for t in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for t in given:
        if t.dtype != x.dtype:
            raise RuntimeError(
                f"expected scalar type {_name(x._data.dtype)} but found {_name(t._data.dtype)}"
            )
    if training:
        for t in stats:
            if t is not None and t.ndim != 1:
                raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {t.ndim}")


def _running(mean: np.ndarray, var: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(mean, 1 / sqrt(var + eps)) per channel in float64, from the running statistics."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return mean.reshape(-1).astype(np.float64), 1 / np.sqrt(var.reshape(-1) + np.float64(eps))


def _empty(x: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """PyTorch's answer for no elements: a copy (not a view), times weight[0], plus bias[0]."""
    out = x.clone()
    if weight is not None:
        out = out * weight[0]
    return out + bias[0] if bias is not None else out


def _batch_stats(
    x: np.ndarray, stats: tuple, momentum: float, eps: float
) -> tuple[np.ndarray, np.ndarray]:
    """The batch's mean and 1/sqrt(biased var + eps) per channel (float64); moves the running
    statistics (if any) in place."""
    axes = _axes(x.ndim)
    n = x.size // x.shape[1]
    mean = x.mean(axes, dtype=np.float64)
    xc = x - _channels(mean, x.ndim)
    var_sum = (xc * xc).sum(axes, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        unbiased = var_sum / (n - 1)
    for t, new in zip(stats, (mean, unbiased)):
        if t is None:
            continue
        data = t._data
        if not data.flags.writeable:
            raise RuntimeError(OVERLAP)
        data[...] = momentum * new + (1 - momentum) * data
    with np.errstate(divide="ignore"):
        return mean, 1 / np.sqrt(var_sum / n + eps)


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """F.batch_norm: the Python checks first (one value per channel is not a batch), then
    native_batch_norm's."""
    x = input
    if training:
        size = tuple(x.shape)
        if not size:
            raise IndexError("tuple index out of range")
        if size[0] * int(np.prod(size[2:], dtype=np.int64)) == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {x.shape}"
            )
        if eps <= 0.0:
            raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if not isinstance(momentum, (int, float)):
        raise TypeError(
            "batch_norm(): argument 'momentum' (position 7) must be float, not "
            f"{type(momentum).__name__}"
        )
    if x.numel() == 0:
        return _empty(x, weight, bias)
    stats = (running_mean, running_var)
    _check(x, stats, (weight, bias), training)
    xd, ndim = x._data, x.ndim
    if training:
        mean, invstd = _batch_stats(xd, stats, momentum, eps)
    else:
        mean, invstd = _running(running_mean._data, running_var._data, eps)
    alpha = invstd if weight is None else invstd * weight._data.reshape(-1)
    beta = -mean * alpha if bias is None else bias._data.reshape(-1) - mean * alpha
    dt = xd.dtype
    out = xd * _channels(alpha.astype(dt), ndim) + _channels(beta.astype(dt), ndim)
    save = {"input": x, "weight": weight}
    if running_mean is not None:
        save.update(running_mean=running_mean, running_var=running_var)
    return record(
        NativeBatchNormBackward0,
        out,
        (x, weight, bias),
        save={k: v for k, v in save.items() if v is not None},
        has_weight=weight is not None,
        has_stats=running_mean is not None,
        training=training,
        eps=eps,
        mean=mean if training else None,
        invstd=invstd if training else None,
    )
