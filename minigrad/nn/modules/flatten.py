"""Flatten: merge dims start_dim..end_dim (by default everything but the batch dim);
Unflatten: split one dim into several."""

from __future__ import annotations

import math
from typing import Any

from ...core.tensor import Tensor
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """input.unflatten(dim, unflattened_size): a tuple/list of ints (or torch.Size)."""

    def __init__(self, dim: int | str, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(dim, int):
            self._require_tuple_int(unflattened_size)
        else:
            raise TypeError("invalid argument type for dim parameter")
        self.dim, self.unflattened_size = dim, unflattened_size

    def _require_tuple_int(self, input: Any) -> None:
        if isinstance(input, (tuple, list)):
            for idx, elem in enumerate(input):
                if not isinstance(elem, int):
                    raise TypeError(
                        f"unflattened_size must be tuple of ints, but found element of type "
                        f"{type(elem).__name__} at pos {idx}"
                    )
            return
        raise TypeError(
            f"unflattened_size must be a tuple of ints, but found type {type(input).__name__}"
        )

    def forward(self, input: Tensor) -> Tensor:
        dim = self.dim if self.dim >= 0 else self.dim + input.ndim
        shape, sizes = tuple(input.shape), list(self.unflattened_size)
        known = math.prod(n for n in sizes if n != -1)
        fits = shape[dim] % known == 0 if -1 in sizes and known else known == shape[dim]
        if not fits:
            raise RuntimeError(
                f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                f"({shape[dim]}) in the input tensor"
            )
        return input.reshape(shape[:dim] + tuple(sizes) + shape[dim + 1 :])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
