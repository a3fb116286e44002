"""Gradient clipping, with PyTorch's arithmetic: one global norm, coefficient clamped to 1.

clip_grad_norm_(p) on a single tensor clips that tensor alone; clipping every parameter of a
model needs one call on the iterable (the norm is over all gradients, as if concatenated).
"""

from __future__ import annotations

import types
import warnings
from collections.abc import Iterable

import numpy as np

from ...core.grad_mode import no_grad
from ...core.tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]

TensorOrTensors = Tensor | Iterable[Tensor]


def _as_list(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _vector_norm(data: np.ndarray, norm_type: float) -> np.ndarray:
    flat = np.abs(data.ravel())
    if norm_type == float("inf"):
        return flat.max(initial=0).astype(data.dtype)
    if norm_type == 0:
        return np.asarray((flat != 0).sum(), dtype=data.dtype)
    return np.asarray((flat**norm_type).sum() ** (1.0 / norm_type), dtype=data.dtype)


def get_total_norm(
    tensors: TensorOrTensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The norm of the per-tensor norms, i.e. of all tensors concatenated into one vector."""
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return Tensor._wrap(np.array(0.0, dtype=np.float32))
    norms = np.stack([_vector_norm(t._data, norm_type) for t in tensors])
    total = Tensor._wrap(_vector_norm(norms, norm_type))
    if error_if_nonfinite and not np.isfinite(total._data):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` "
            "is non-finite, so it cannot be clipped. To disable this error and "
            "scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return total


def clip_grads_with_norm_(
    parameters: TensorOrTensors, max_norm: float, total_norm: Tensor, foreach: bool | None = None
) -> None:
    """grad *= min(max_norm / (total_norm + 1e-6), 1), in place (even when the factor is 1)."""
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    if not grads:
        return
    coef = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
    with no_grad():
        for g in grads:
            g.mul_(coef)


def clip_grad_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale all gradients together so that their global norm is at most max_norm.

    Returns the total norm before clipping, a 0-d tensor.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2
            )
    with no_grad():
        total = get_total_norm(
            [p.grad for p in parameters if p.grad is not None], norm_type, error_if_nonfinite
        )
        clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_value_(
    parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    with no_grad():
        for p in _as_list(parameters):
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
