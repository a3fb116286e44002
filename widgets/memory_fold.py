"""A recorded backward pass's records -> the bytes each one adds or takes away (memory.py
says what is counted). The changes are per (category, band key): a band key is the model id of
the node holding the bytes, or RECOMPUTED for a node the drawing does not have.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from . import adapters
from .memory_sizes import SavedSizes, itemsize
from .memory_svg import RECOMPUTED
from .walk import GraphBuilder

CATEGORIES = ("saved", "grads", "buffers")
Change = tuple[str, str, int]  # (category, band key, bytes added: negative when let go)


class MemoryFold:
    """Folds the records one by one into changes of bytes held, per (category, band key)."""

    def __init__(self, builder: GraphBuilder, sizes: SavedSizes) -> None:
        self.b, self.sizes = builder, sizes
        self.held: Counter = Counter()  # (category, key) -> bytes now
        self.changes: list[Change] = []  # the current step's
        self.holders: dict[int, list[tuple[Any, str]]] = defaultdict(list)  # storage -> holders
        self.buffers: dict[Any, dict[int, int]] = defaultdict(dict)  # node -> slot -> bytes
        self.grads: dict[tuple[str, int], int] = {}  # (key, slot) -> bytes of its .grad
        self.captures: list[list[tuple[str, int]]] = []  # per open pass
        acc_of = {
            e.target: e.source for e in builder.graph.edges.values() if e.kind == "accumulate"
        }
        for node in sizes.initial:
            self.hold(node)
        for leaf, n in sizes.grads.items():
            self.set_grad(acc_of.get(leaf, leaf), 0, n)

    def key(self, node: Any) -> str:
        return self.b.node_id.get(node, RECOMPUTED)

    def add(self, category: str, key: str, n: int) -> None:
        if n:
            self.held[(category, key)] += n
            self.changes.append((category, key, n))

    def step(self, rec: dict) -> list[Change]:
        """The changes one record makes (kinds without a handler change no bytes: ready,
        buffer_sum, node_run)."""
        self.changes = []
        getattr(self, "on_" + rec["kind"], lambda _rec: None)(rec)
        return self.changes

    # --- saved tensors: each storage counts once, for the first node still holding it --------
    def hold(self, node: Any) -> None:
        for name, (n, storage) in self.sizes.of.get(node, {}).items():
            if n and (node, name) not in self.holders[storage]:
                self.holders[storage].append((node, name))
                if len(self.holders[storage]) == 1:
                    self.add("saved", self.key(node), n)

    def release(self, node: Any, names: list[str]) -> None:
        for name, (n, storage) in self.sizes.of.get(node, {}).items():
            holders = self.holders[storage]
            freed = any(name == f or name.startswith(f + "[") for f in names)  # torch: `x[0]`
            if not freed or (node, name) not in holders:
                continue
            first = holders[0] == (node, name)
            holders.remove((node, name))
            if first:
                self.add("saved", self.key(node), -n)
                if holders:
                    self.add("saved", self.key(holders[0][0]), n)

    # --- gradients -------------------------------------------------------------------------
    def set_grad(self, key: str, slot: int, n: int) -> None:
        old = self.grads.get((key, slot), 0)
        self.grads[(key, slot)] = n
        self.add("grads", key, n - old)

    def drop_buffers(self, node: Any) -> None:
        for n in self.buffers.pop(node, {}).values():
            self.add("buffers", self.key(node), -n)

    def end_pass(self) -> None:
        for key, n in self.captures.pop() if self.captures else ():
            self.add("grads", key, -n)
        if not self.captures:  # the outermost pass: what no node took is gone too
            for node in list(self.buffers):
                self.drop_buffers(node)

    # --- records -----------------------------------------------------------------------------
    def on_backward_start(self, rec: dict) -> None:
        self.captures.append([])

    def on_node_created(self, rec: dict) -> None:
        self.hold(rec["node"])

    def on_edge(self, rec: dict) -> None:
        grad, target = rec.get("grad"), rec["target"]
        if grad is not None and rec["slot"] not in self.buffers[target]:
            self.buffers[target][rec["slot"]] = grad.nbytes
            self.add("buffers", self.key(target), grad.nbytes)

    def on_node_start(self, rec: dict) -> None:
        self.drop_buffers(rec["node"])

    def on_accumulate(self, rec: dict) -> None:
        after, leaf = rec.get("after"), self.b.tensor_id.get(rec["variable"])
        if after is None:
            return
        dtype = self.b.graph.nodes[leaf].dtype if leaf is not None else None
        n = np.asarray(after).size * itemsize(dtype) if dtype else np.asarray(after).nbytes
        self.set_grad(self.key(rec["node"]), 0, int(n))

    def on_hook(self, rec: dict) -> None:
        if rec["hook"] == "retain_grad" and rec.get("grad") is not None:
            self.set_grad(self.key(rec["node"]), rec["slot"] or 0, np.asarray(rec["grad"]).nbytes)

    def on_capture(self, rec: dict) -> None:
        if rec.get("grad") is not None and self.captures:
            entry = (self.key(rec["node"]), np.asarray(rec["grad"]).nbytes)
            self.captures[-1].append(entry)
            self.add("grads", *entry)

    def on_freed(self, rec: dict) -> None:
        self.release(rec["node"], rec.get("saved") or [])

    def on_error(self, rec: dict) -> None:
        self.end_pass()

    def on_backward_end(self, rec: dict) -> None:
        self.end_pass()


def fold_records(
    records: list[dict], builder: GraphBuilder, sizes: SavedSizes
) -> tuple[Counter, list[list[Change]]]:
    """(bytes held before the first record, the changes each record makes). A torch pass's
    frees move to the node's `node_run`: torch_records notices a free at the next node's
    start, but torch's engine frees right after the node ran, before its gradients go on."""
    fold = MemoryFold(builder, sizes)
    start = Counter(fold.held)
    changes: list[list[Change]] = []
    ran: dict[Any, int] = {}  # node -> the step of its last node_run
    for k, rec in enumerate(records):
        changes.append(fold.step(rec))
        if rec["kind"] == "node_run":
            ran[rec["node"]] = k
        elif rec["kind"] == "freed" and adapters.is_torch(rec["node"]) and rec["node"] in ran:
            changes[ran[rec["node"]]].extend(changes[k])
            changes[k] = []
    return start, changes
