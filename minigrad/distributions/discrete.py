"""What Bernoulli, Categorical and Multinomial share: given by `probs` or by `logits` (exactly
one), with the other derived on first read; a finite support that can be listed."""

from __future__ import annotations

from typing import Any

from ..core.tensor import Size, Tensor


def one_parameter(probs: Any, logits: Any) -> tuple[str, Any]:
    """The name and value of the one parameter given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    return ("probs", probs) if probs is not None else ("logits", logits)


def at_least_1d(name: str, value: Tensor) -> None:
    if value.ndim < 1:
        raise ValueError(f"`{name}` parameter must be at least one-dimensional.")


def expanded_parameters(d: Any, shape: tuple) -> dict[str, Tensor]:
    """probs and logits, those already computed, expanded to `shape`; `_param`, the one the
    shapes are read from, is logits when both are there (as in PyTorch)."""
    given = [k for k in ("probs", "logits") if k in d.__dict__]
    params = {k: d.__dict__[k].expand(shape) for k in given}
    params["_param"] = params[given[-1]]
    return params


def enumeration(values: Tensor, batch_shape: Size, expand: bool) -> Tensor:
    """Every value of the support along a new first dimension, then one per batch element
    (or a size-1 dimension each, without `expand`)."""
    values = values.view(-1, *(1,) * len(batch_shape))
    return values.expand(-1, *batch_shape) if expand else values
