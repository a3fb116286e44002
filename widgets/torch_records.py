"""Records of a real torch forward and backward, in the same shape minigrad's engine emits.

torch does not report its engine's steps, so they are observed from outside:
- forward: a `TorchFunctionMode` sees every torch function call; the graph nodes each call left
  behind (walked back to the ones already seen) become "node_created" records, in creation order.
- backward: a pre-hook and a hook on every node of the graph see each node start and finish with
  its gradients. Edges, input-buffer sums, dependency counts and the ready queue are then replayed
  the way the engine works (see design notes); freed saved tensors are noticed when their
  `_saved_*` attributes start raising; the end of a pass comes from the engine's own callback queue.
Only called once the user has handed over torch objects, so importing torch here costs nothing new.
"""

from __future__ import annotations

import heapq
import itertools
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from . import adapters
from .modules import flatten_tensors


def forward_mode(records: list[dict]):
    """A TorchFunctionMode appending "node_created" records to `records` (enter it as a context)."""
    from torch.overrides import TorchFunctionMode  # torch only when the user hands us torch

    class _ForwardMode(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.seen: set = set()

        def __torch_function__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            for t in flatten_tensors(out):
                if t.grad_fn is not None and t.grad_fn not in self.seen:
                    self._created(t, flatten_tensors((args, kwargs or {})))
            return out

        def _created(self, out: Any, inputs: list) -> None:
            new, stack = [], [out.grad_fn]
            while stack:
                node = stack.pop()
                if node is None or node in self.seen:
                    continue
                self.seen.add(node)
                if not adapters.is_accumulate(node):
                    new.append(node)
                    stack.extend(n for n, _ in node.next_functions)
            for node in sorted(new, key=adapters.sequence_nr):
                mine = node is out.grad_fn
                records.append(
                    {
                        "kind": "node_created",
                        "node": node,
                        "name": adapters.node_name(node),
                        "inputs": inputs if mine else [],
                        "output": out if mine else None,
                        "shape": adapters.output_shape(node),
                    }
                )

    return _ForwardMode()


def _np(t: Any):
    return None if t is None else adapters.to_numpy(t)


class BackwardHooks:
    """Hooks on every given node of a torch graph, turning what they see into engine records."""

    def __init__(self, records: list[dict], roots: list[Any], edges: dict[Any, list]) -> None:
        """`edges`: node -> its (next node, slot) list, for every node of the graph."""
        self.records = records
        self.roots = roots
        self.edges = edges
        self.handles: list = []
        self.active = False
        self.started: Any = None  # the node whose pre-hook ran last without its hook yet
        self.tie = itertools.count()

    # --- attaching --------------------------------------------------------------------------
    def __enter__(self) -> BackwardHooks:
        for node in self.edges:
            self.handles.append(node.register_prehook(self._pre_hook(node)))
            self.handles.append(node.register_hook(self._post_hook(node)))
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()
        if self.active and self.started is not None:
            # the pass stopped inside a node, before its end callback: that node raised
            message = str(exc) if exc is not None else "raised (caught inside the block)"
            name = exc_type.__name__ if exc_type is not None else "Error"
            self._emit("error", node=self.started, error=name, message=message)
            self.active = False  # like minigrad's engine: no "backward_end" after an error
        self._end()

    def _pre_hook(self, node: Any):
        def pre(grad_outputs):
            self._start(node, grad_outputs)

        return pre

    def _post_hook(self, node: Any):
        def post(grad_inputs, grad_outputs):
            self._finish(node, grad_inputs, grad_outputs)

        return post

    def _emit(self, kind: str, **fields: Any) -> None:
        self.records.append({"kind": kind, **fields})

    # --- one pass ---------------------------------------------------------------------------
    def _begin(self, first: Any, seed) -> None:
        import torch  # only when the user hands us torch objects

        self.active = True
        roots = [t.grad_fn for t in self.roots if t.grad_fn is not None] or [first]
        if first not in roots:
            roots = [first]
        self.deps = self._dependencies(roots)
        for node in roots:
            self.deps[node] = self.deps.get(node, 0) + 1
        self.buffers: dict = defaultdict(dict)
        self.heap: list = []
        self.pending_free: list = []
        self._emit(
            "backward_start",
            roots=list(self.roots),
            root_nodes=roots,
            retain_graph=None,
            create_graph=None,
            inputs=None,
            dependencies=dict(self.deps),
            capture=False,
        )
        for node in roots:
            self._send(None, node, 0, _np(seed[0]) if node is first and seed else None)
        torch.autograd.Variable._execution_engine.queue_callback(self._end)

    def _dependencies(self, roots: list) -> dict:
        deps: dict = {}
        seen, stack = set(roots), list(roots)
        while stack:
            for nxt, _ in self.edges.get(stack.pop(), ()):
                deps[nxt] = deps.get(nxt, 0) + 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return deps

    def _send(self, source: Any, target: Any, slot: int, grad) -> None:
        if grad is not None:
            self._emit("edge", source=source, target=target, slot=slot, grad=grad)
            buffer = self.buffers[target]
            if slot in buffer:
                before = buffer[slot]
                buffer[slot] = before + grad
                self._emit(
                    "buffer_sum",
                    node=target,
                    slot=slot,
                    before=before,
                    added=grad,
                    after=buffer[slot],
                )
            else:
                buffer[slot] = grad
        if target not in self.deps:
            return
        self.deps[target] -= 1
        if self.deps[target] == 0:
            heapq.heappush(self.heap, (-adapters.sequence_nr(target), next(self.tie), target))
            self._emit("ready", node=target, queue=self._queue())

    def _queue(self) -> list:
        return [entry[2] for entry in sorted(self.heap)]

    def _start(self, node: Any, grad_outputs) -> None:
        if not self.active:
            self._begin(node, grad_outputs)
        self._flush_freed()
        self.heap = [e for e in self.heap if e[2] is not node]
        heapq.heapify(self.heap)
        self.buffers.pop(node, None)
        self.started = node
        self.before = _np(node.variable.grad) if adapters.is_accumulate(node) else None
        self._emit(
            "node_start",
            node=node,
            grad_outputs=[_np(g) for g in grad_outputs],
            queue=self._queue(),
        )

    def _finish(self, node: Any, grad_inputs, grad_outputs) -> None:
        self.started = None
        if adapters.is_accumulate(node):
            self._emit(
                "accumulate",
                node=node,
                variable=node.variable,
                before=self.before,
                added=_np(grad_outputs[0]),
                after=_np(node.variable.grad),
            )
            return
        grads = [_np(g) for g in grad_inputs]
        self._emit(
            "node_run", node=node, grad_outputs=[_np(g) for g in grad_outputs], grad_inputs=grads
        )
        self.pending_free.append(node)
        for (nxt, slot), grad in zip(node.next_functions, grads, strict=False):
            if nxt is not None:
                self._send(node, nxt, slot, grad)

    def _flush_freed(self) -> None:
        for node in self.pending_free:
            freed = [name for name, _, gone in adapters.saved_slots(node) if gone]
            if freed:
                self._emit("freed", node=node, saved=freed)
        self.pending_free = []

    def _end(self) -> None:
        if not self.active:
            return
        self._flush_freed()
        self._emit("backward_end", results=[])
        self.active = False


def graph_edges(nodes: Iterable[Any]) -> dict[Any, list]:
    """node -> [(next node, slot)] for the given nodes (None edges dropped)."""
    return {n: [(m, s) for m, s in n.next_functions if m is not None] for n in nodes}
