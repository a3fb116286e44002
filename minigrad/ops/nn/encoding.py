"""one_hot: class indices (int64 only) to a new last dim of 0s and 1s, with PyTorch's checks."""

from __future__ import annotations

import operator

import numpy as np

from ...core.tensor import Tensor


def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """num_classes=-1 infers max + 1; an empty tensor needs it given. Never differentiable."""
    if isinstance(num_classes, bool) or not hasattr(num_classes, "__index__"):
        raise TypeError(
            "one_hot(): argument 'num_classes' (position 2) must be int, not "
            f"{type(num_classes).__name__}"
        )
    num_classes = operator.index(num_classes)
    t = input._data
    if t.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if t.size == 0:
        if num_classes <= 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        return Tensor._wrap(np.zeros(t.shape + (num_classes,), dtype=np.int64))
    if t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    top = int(t.max())
    if num_classes == -1:
        num_classes = top + 1
    elif num_classes <= top:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._wrap((t[..., None] == np.arange(num_classes)).astype(np.int64))
