"""Saved tensors: what a node keeps for its backward formula, checked against in-place changes."""

from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING

import numpy as np

from .dtypes import LEGACY_NAMES
from .tensor import Tensor

if TYPE_CHECKING:
    from .node import Node

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class SavedTensor:
    """A tensor kept for backward, with the version it had when saved.

    An op's own output is kept without a strong link to its node (data, version counter and a
    weak reference to the node), so saving outputs creates no reference cycle.
    """

    __slots__ = (
        "_tensor",
        "_data",
        "_counter",
        "_version",
        "_node_ref",
        "_output_nr",
    )

    def __init__(self, tensor: Tensor, is_output: bool) -> None:
        self._counter = tensor._version_counter
        self._version = self._counter.value
        if is_output:
            node = tensor._grad_fn  # an output is saved before anything can make it a view
            self._tensor = None
            self._data = tensor._data
            self._node_ref = weakref.ref(node) if node is not None else None
            self._output_nr = tensor._output_nr
        else:
            self._tensor = tensor

    def data(self) -> np.ndarray:
        """The saved numbers alone, for a formula running on arrays."""
        if self._counter.value != self._version:
            raise RuntimeError(self._modified_message())
        return self._data if self._tensor is None else self._tensor._data

    def unpack(self, owner: Node) -> Tensor:
        if self._counter.value != self._version:
            raise RuntimeError(self._modified_message())
        if self._tensor is not None:
            return self._tensor
        out = Tensor._wrap(self._data, requires_grad=False, counter=self._counter)
        node = self._node_ref() if self._node_ref is not None else None
        if node is not None:
            out._grad_fn, out._output_nr = node, self._output_nr
        return out

    def _modified_message(self) -> str:
        shape = list(self._data.shape if self._tensor is None else self._tensor.shape)
        dname = (self._data.dtype if self._tensor is None else self._tensor._data.dtype).name
        desc = f"[torch.{LEGACY_NAMES.get(dname, dname)} {shape}]"
        node = (
            self._node_ref()
            if self._tensor is None and self._node_ref
            else (self._tensor.grad_fn if self._tensor is not None else None)
        )
        nr = self._output_nr if self._tensor is None else self._tensor._output_nr
        op = re.sub(r"Backward\d*$", "", node.name()) if node is not None else ""
        where = f", which is output {nr} of {op}," if node is not None else ""
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: {desc}{where} is at version {self._counter.value}; expected version "
            f"{self._version} instead. Hint: enable anomaly detection to find the operation that "
            "failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, "
            "check_nan=False)."
        )

    @property
    def shape(self) -> tuple:
        return (self._data if self._tensor is None else self._tensor._data).shape
