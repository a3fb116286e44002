"""How samples become a batch (default_collate) and how a lone sample is converted when
batching is off (default_convert), following the sample's structure: tensors are stacked,
numbers and numpy arrays become tensors, and tuples, lists, dicts and namedtuples are
collated field by field."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ... import creation
from ...core import dtypes
from ...core.tensor import Tensor
from ...ops.shape import stack

ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _numeric_array(value: np.ndarray) -> bool:
    """numpy arrays of strings or objects have no tensor."""
    return value.dtype.kind not in "SaUO"


def _same_kind(elem: Any, items: list) -> Any:
    """A container of elem's own type around `items`, where that type can be built so."""
    try:
        return type(elem)(items)
    except TypeError:
        return items


def default_collate(batch: Sequence) -> Any:
    """A list of samples as one batch, collated by the first sample's structure."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray) and type(elem).__module__ == "numpy":
        if not _numeric_array(elem):
            raise TypeError(ERROR.format(elem.dtype))
        return default_collate([creation.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and elem.shape == ():
        return creation.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return creation.tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(field)) for field in zip(*batch)))
    if isinstance(elem, Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(list(field)) for field in zip(*batch)]
        return fields if isinstance(elem, tuple) else _same_kind(elem, fields)
    raise TypeError(ERROR.format(type(elem)))


def default_convert(data: Any) -> Any:
    """One sample with its numpy arrays as tensors (what a DataLoader without batching
    returns); tuples come back as lists, as PyTorch's do."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray) and type(data).__module__ == "numpy":
        return creation.as_tensor(data) if _numeric_array(data) else data
    if isinstance(data, np.generic) and data.shape == () and _numeric_array(np.asarray(data)):
        return creation.as_tensor(np.asarray(data))
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, Mapping):
        converted = {key: default_convert(value) for key, value in data.items()}
        try:
            return type(data)(converted)
        except TypeError:
            return converted
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, Sequence):
        return _same_kind(data, [default_convert(d) for d in data])
    return data
