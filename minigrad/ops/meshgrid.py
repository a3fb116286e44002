"""meshgrid: each 0-D or 1-D input viewed along its own dim and expanded to the grid (views,
as in PyTorch: ViewBackward0 then ExpandBackward0). indexing='xy' swaps the first two dims."""

from __future__ import annotations

import warnings
from typing import Any

from ..core.tensor import Tensor
from .shape import expand, reshape

INDEXING_WARNING = (
    "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
)

_warned = {"indexing": False}


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        if not _warned["indexing"]:  # once per process, as PyTorch's TORCH_WARN_ONCE
            _warned["indexing"] = True
            warnings.warn(INDEXING_WARNING, UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(
                "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: "
                f"{t.ndim}-D tensor of shape {list(t.shape)}"
            )
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    dims = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        dims[0], dims[1] = 1, 0
    shape = [0] * len(tensors)
    for t, d in zip(tensors, dims):
        shape[d] = t.numel()
    out = []
    for t, d in zip(tensors, dims):
        view = [1] * len(tensors)
        view[d] = -1
        out.append(expand(reshape(t, view), shape))
    return tuple(out)
