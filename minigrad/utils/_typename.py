"""torch.typename: how PyTorch's messages name a value's type ('torch.FloatTensor', 'int')."""

from __future__ import annotations

from typing import Any

from ..core.dtypes import LEGACY_NAMES
from ..core.tensor import Tensor


def typename(obj: Any) -> str:
    """Tensors by legacy type name, builtins by bare name, anything else module-qualified."""
    if isinstance(obj, Tensor):
        return f"torch.{LEGACY_NAMES.get(obj.dtype.name, obj.dtype.name)}"
    cls = type(obj)
    if cls.__module__ in ("builtins", ""):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"
