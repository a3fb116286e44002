"""The bytes a node's saved tensors hold, read while they still exist.

A backward without retain_graph frees them, so `watch` reads every node of the graph when the
recording starts, and (minigrad) each node made during the pass when the engine first names it:
a checkpointed block recomputed in backward, or a create_graph pass's new nodes.

What is counted is the memory the saved tensors keep alive: the storage under each one, once per
storage. A view saved shares its base's storage (`w.t()` saved by a matmul keeps `w`'s), and
two nodes saving the same tensor share it too: such a storage counts once, for the first node
holding it. A storage counts whole (a saved slice of a big tensor keeps all of it), and a saved
parameter counts although it would exist anyway. A Python number an op saves as a 0-d tensor
counts too: minigrad keeps it as float32 (4 bytes), torch as int64 or float64 (8). A tensor given
to saved-tensor hooks (`torch.utils.checkpoint`, pack hooks) is replaced by whatever the pack
hook returned: a tensor there counts, anything else (a handle) counts 0 bytes.

Both libraries' saved-tensor internals are read here and nowhere else: minigrad's `Node._saved`
(name -> core.saved.SavedTensor; a custom Function's `_saved_list`) without unpacking (its
`_raw_saved_*` switches a node to run on Tensors), torch's `_raw_saved_*`
(`torch._C._autograd.SavedTensor.data`: the pack hook's result for a packed one; it never runs
the unpack hook).
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from minigrad.core import observe
from minigrad.core.saved import SavedTensor
from minigrad.core.tensor import Tensor

from . import adapters
from .walk import GraphBuilder

# itemsize of dtypes numpy lacks (torch's), by the name walk.dtype_name gives
ITEMSIZE = {"bfloat16": 2, "float8_e4m3fn": 1, "float8_e5m2": 1}


def itemsize(dtype: str) -> int:
    """Bytes per element of a dtype named like `float32` (either library's names)."""
    return ITEMSIZE[dtype] if dtype in ITEMSIZE else np.dtype(dtype).itemsize


def _root(arr: np.ndarray) -> np.ndarray:
    """The array owning a numpy view's memory (a minigrad tensor's storage)."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _minigrad_saved(node: Any) -> Iterator[tuple[str, Any]]:
    """(name, what holds memory: an ndarray, or what a pack hook returned) per saved tensor
    (names as `saved_tensor_slots` gives them)."""
    if getattr(node, "_freed", False):
        return
    found = list((getattr(node, "_saved", None) or {}).items())  # an op's node
    listed = getattr(node, "_saved_list", None) or []  # a custom Function's (ctx.save_for_backward)
    found += [(f"saved_tensors[{i}]", saved) for i, saved in enumerate(listed)]
    for name, saved in found:
        if not isinstance(saved, SavedTensor):
            continue
        if saved._hooks is not None:
            yield name, saved._hooks[0]
        else:
            yield name, saved._data if saved._tensor is None else saved._tensor._data


def _torch_saved(node: Any) -> Iterator[tuple[str, Any]]:
    """(name, torch tensor or pack-hook result) per `_raw_saved_<name>` (lists as `name[i]`)."""
    for attr in dir(node):
        if not attr.startswith("_raw_saved_"):
            continue
        name = attr[len("_raw_saved_") :]
        try:
            raw = getattr(node, attr)
        except RuntimeError:  # a custom Function's, once freed
            continue
        if isinstance(raw, tuple | list):
            for i, one in enumerate(raw):
                yield f"{name}[{i}]", one.data
        elif hasattr(raw, "data"):
            yield name, raw.data


class SavedSizes:
    """node -> {saved name: (bytes, storage number)}: the same storage has one number.

    torch's are read all at once, when every one is alive: a storage's address names it.
    minigrad's are read as nodes appear, while others are being freed: an array's id names it
    only while a weak reference says it is still that array (a new one may take a freed id).
    Nothing is kept alive by the counting."""

    def __init__(self, builder: GraphBuilder) -> None:
        self.of: dict[Any, dict[str, tuple[int, int]]] = {}
        self._storages: dict[Any, tuple[int, Any]] = {}  # key -> (number, weakref or None)
        self._count = 0
        for node in builder.node_id:
            self.add(node)
        self.initial = list(self.of)  # the graph's nodes, as the pass found them
        self.grads: dict[str, int] = {}  # leaf id -> bytes of the .grad it had already
        for t, tid in builder.tensor_id.items():
            grad = adapters.stored_grad(t) if builder.graph.nodes[tid].kind == "leaf" else None
            if grad is not None:
                self.grads[tid] = grad.numel() * itemsize(builder.graph.nodes[tid].dtype)

    def add(self, node: Any) -> None:
        """Measure `node`'s saved tensors (once: later calls keep the first reading)."""
        if node in self.of:
            return
        found = _torch_saved(node) if adapters.is_torch(node) else _minigrad_saved(node)
        self.of[node] = {name: self._measure(held) for name, held in found}

    def _measure(self, held: Any) -> tuple[int, int]:
        """(bytes of the storage under `held`, its number); 0 bytes for a non-tensor."""
        if isinstance(held, Tensor):
            held = held._data
        if isinstance(held, np.ndarray):
            root = _root(held)
            return root.nbytes, self._number(id(root), weakref.ref(root))
        if adapters.is_tensor(held):  # torch's
            storage = held.untyped_storage()
            return storage.nbytes(), self._number(storage.data_ptr(), None)
        return 0, -1

    def _number(self, key: Any, ref: weakref.ref | None) -> int:
        found = self._storages.get(key)
        if found is None or (found[1] is not None and found[1]() is None):
            found = self._storages[key] = (self._count, ref)
            self._count += 1
        return found[0]

    def hear(self, record: dict) -> None:
        """A minigrad record: measure a node the engine names for the first time."""
        node = record.get("node")
        if node is not None and record["kind"] in ("node_created", "node_start"):
            self.add(node)


@contextlib.contextmanager
def watch(builder: GraphBuilder, torch: bool) -> Iterator[SavedSizes]:
    """Measure the graph now and, for minigrad, the nodes made while the block runs."""
    sizes = SavedSizes(builder)
    if not torch:
        observe.LISTENERS.append(sizes.hear)
    try:
        yield sizes
    finally:
        if not torch:
            observe.LISTENERS.remove(sizes.hear)
