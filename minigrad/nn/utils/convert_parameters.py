"""parameters_to_vector / vector_to_parameters: one flat view of a model's parameters."""

from __future__ import annotations

from collections.abc import Iterable

from ...core.grad_mode import no_grad
from ...core.tensor import Tensor
from ...ops import shape

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated (differentiable, like PyTorch's)."""
    return shape.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of `vec` into each parameter's data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    with no_grad():
        for param in parameters:
            n = param.numel()
            param.data = vec[pointer : pointer + n].view_as(param).data
            pointer += n
