"""kl_divergence(p, q): KL(p ‖ q) for the pairs of distributions with a closed form,
registered with `register_kl` (the pairs PyTorch registers among the distributions here)."""

from __future__ import annotations

import math
from collections.abc import Callable

from .. import creation
from ..core.tensor import Tensor
from ..ops.nn.activations import softplus
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .normal import Normal
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY: dict[tuple[type, type], Callable] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Callable], Callable]:
    """Decorator: `fn(p, q)` computes KL(p ‖ q) for these two classes (and their subclasses)."""

    def register(fn: Callable) -> Callable:
        _REGISTRY[type_p, type_q] = fn
        return fn

    return register


def _lookup(type_p: type, type_q: type) -> Callable | None:
    """The registration for the closest pair of base classes (p's first)."""
    for base_p in type_p.__mro__:
        for base_q in type_q.__mro__:
            if (base_p, base_q) in _REGISTRY:
                return _REGISTRY[base_p, base_q]
    return None


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
            f"{type(q).__name__}"
        )
    return fn(p, q)


def _pinned(t: Tensor, q_impossible: Tensor, p_impossible: Tensor) -> Tensor:
    """t, written in place: inf where q gives no mass, then 0 where p gives none. As in
    PyTorch, each mask must index t as it is (a mask that would need broadcasting raises)."""
    t[q_impossible] = math.inf
    t[p_impossible] = 0
    return t


@register_kl(Bernoulli, Bernoulli)
def _bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    ones = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    zeros = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    return _pinned(ones, q.probs == 0, p.probs == 0) + _pinned(zeros, q.probs == 1, p.probs == 1)


@register_kl(Categorical, Categorical)
def _categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    return _pinned(t, (q.probs == 0).expand_as(t), (p.probs == 0).expand_as(t)).sum(-1)


@register_kl(Normal, Normal)
def _normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(Uniform, Uniform)
def _uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    ratio = ((q.high - q.low) / (p.high - p.low)).log()
    ratio[(q.low > p.low) | (q.high < p.high)] = math.inf
    return ratio


@register_kl(Normal, Uniform)
def _normal_uniform(p: Normal, q: Uniform) -> Tensor:
    """A normal has mass outside every interval."""
    return creation.full_like(p.loc, math.inf)


@register_kl(Uniform, Normal)
def _uniform_normal(p: Uniform, q: Normal) -> Tensor:
    width = p.high - p.low
    log_ratio = (math.sqrt(2 * math.pi) * q.scale / width).log()
    centre = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return log_ratio + 0.5 * (width.pow(2) / 12 + centre) / q.scale.pow(2)
