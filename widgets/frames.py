"""Engine records -> frames: the same steps, one frame per record, naming model ids, as JSON.

A frame keeps the record's `kind` and adds what the player needs to show it without asking the
kernel again: which node and edge to highlight, the values as text formatted here in Python, and
the changes to the ready queue, the dependency counts, the finished nodes, the freed saved tensors
and the leaves' `.grad`. The browser folds these changes frame by frame; nothing is laid out again.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from . import adapters
from .labels import format_array, format_shape, format_values
from .model import GNode
from .walk import GraphBuilder

VALUES_LIMIT = 64  # frames carry raw numbers (for tests and tooltips) up to this many elements


class FrameMaker:
    """Turns one trace's records into frames against one GraphBuilder's ids."""

    def __init__(self, builder: GraphBuilder) -> None:
        self.b = builder
        self.graph = builder.graph
        self.out_edges: dict[str, list] = defaultdict(list)
        self.in_edges: dict[str, list] = defaultdict(list)
        for edge in self.graph.edges.values():
            self.out_edges[edge.source].append(edge)
            self.in_edges[edge.target].append(edge)
        plain = {nid: self._plain_name(n) for nid, n in self.graph.nodes.items()}
        twice = Counter(plain.values())
        # display names; ids tell apart nodes that share a name (two MulBackward0s)
        self.title = {
            nid: name + (f" ({nid})" if twice[name] > 1 else "") for nid, name in plain.items()
        }
        self.deps: dict[str, int] = {}
        self.sent: Counter = Counter()  # (source, target, slot) edges already used by this run
        self.passes = 0

    def _plain_name(self, node: GNode) -> str:
        if node.kind == "accumulate":
            leaf = next(
                (
                    self.graph.nodes[e.target]
                    for e in self.out_edges[node.id]
                    if e.kind == "accumulate"
                ),
                None,
            )
            return f"AccumulateGrad({leaf.title()})" if leaf is not None else node.name
        return node.title()

    # --- helpers -------------------------------------------------------------------------
    def nid(self, node: Any) -> str | None:
        return None if node is None else self.b.node_id.get(node)

    def name(self, node: Any) -> str:
        nid = self.nid(node)
        if nid is not None:
            return self.title[nid]
        return "the seed" if node is None else adapters.node_name(node)

    def queue(self, nodes: list) -> list[str]:
        return [i for i in (self.nid(n) for n in nodes) if i is not None]

    # --- records ---------------------------------------------------------------------------
    def run(self, records: list[dict]) -> list[dict]:
        """Frames for a whole trace (the maker keeps state between records: counts, passes)."""
        return [self.frame(rec) for rec in records]

    def frame(self, rec: dict) -> dict:
        """The frame for one record (`on_<kind>` adds what that kind of step shows)."""
        kind = rec["kind"]
        handler = getattr(self, f"on_{kind}", None)
        frame = {"kind": kind, "pass": self.passes}
        frame.update(handler(rec) if handler is not None else {"text": kind.replace("_", " ")})
        return {k: v for k, v in frame.items() if v is not None}

    def on_node_created(self, rec: dict) -> dict:
        node = rec["node"]
        inputs = [t for t in rec.get("inputs") or [] if t is not None]
        args = ", ".join(f"{self._tensor_name(t)} {format_shape(tuple(t.shape))}" for t in inputs)
        out = rec.get("output")
        values = format_values(adapters.to_numpy(out)) if out is not None else None
        when = "forward" if self.passes == 0 else "backward with create_graph"
        text = f"{when}: {self.name(node)} created, output {format_shape(rec.get('shape'))}"
        text += f" from {args}" if args else ""
        text += f" = {values}" if values is not None else ""
        return {"node": self.nid(node), "text": text, "show": self._appears_with(node)}

    def on_backward_start(self, rec: dict) -> dict:
        self.passes += 1
        self.sent.clear()
        self.deps = {
            self.nid(n): c for n, c in rec["dependencies"].items() if self.nid(n) is not None
        }
        roots = ", ".join(self.name(n) for n in rec.get("root_nodes") or [])
        retain = rec.get("retain_graph")
        mode = "" if retain is None else f", retain_graph={retain}"
        mode += ", create_graph=True" if rec.get("create_graph") else ""
        return {
            "pass": self.passes,
            "deps": dict(self.deps),
            "queue": [],
            "text": f"backward #{self.passes} from {roots}{mode}: "
            f"{len(self.deps)} nodes wait for gradients",
        }

    def on_edge(self, rec: dict) -> dict:
        source, target, slot = rec["source"], rec["target"], rec["slot"]
        if source is None:
            ids = self.b.seed_edges.get((target, slot), [])
        else:
            ids = self.b.grad_edges.get((source, target, slot), [])
        key = (source, target, slot)
        edge = ids[self.sent[key]] if self.sent[key] < len(ids) else (ids[0] if ids else None)
        self.sent[key] += 1
        tid, deps = self.nid(target), None
        if tid in self.deps:
            self.deps[tid] -= 1
            deps = {tid: self.deps[tid]}
        grad = rec.get("grad")
        return {
            "edge": edge,
            "node": tid,
            "deps": deps,
            **self._values(grad),
            "text": f"{self.name(source)} → {self.name(target)}: gradient {format_array(grad)}",
        }

    def on_buffer_sum(self, rec: dict) -> dict:
        return {
            "node": self.nid(rec["node"]),
            **self._values(rec["after"]),
            "text": f"{self.name(rec['node'])} sums its inputs: "
            f"{format_array(rec['before'])} + {format_array(rec['added'])} = "
            f"{format_array(rec['after'])}",
        }

    def on_ready(self, rec: dict) -> dict:
        nid = self.nid(rec["node"])
        if nid in self.deps:
            self.deps[nid] = 0
        queue = self.queue(rec["queue"])
        return {
            "node": nid,
            "queue": queue,
            "deps": {nid: 0} if nid else None,
            "text": f"{self.name(rec['node'])} is ready (every gradient it waits for has "
            f"arrived); queue: {self._names(queue)}",
        }

    def on_node_start(self, rec: dict) -> dict:
        grads = rec.get("grad_outputs") or []
        return {
            "node": self.nid(rec["node"]),
            "queue": self.queue(rec["queue"]),
            **self._values(grads[0] if len(grads) == 1 else None),
            "text": f"run {self.name(rec['node'])} on grad_output {self._many(grads)}",
        }

    def on_node_run(self, rec: dict) -> dict:
        self.sent.clear()
        node = rec["node"]
        outs = rec.get("grad_inputs") or []
        return {
            "node": self.nid(node),
            "done": self.nid(node),
            "text": f"{self.name(node)} returned grad_inputs {self._many(outs)}",
        }

    def on_accumulate(self, rec: dict) -> dict:
        node, var = rec["node"], rec["variable"]
        leaf = self.b.tensor_id.get(var)
        before = "None" if rec["before"] is None else format_array(rec["before"])
        after = format_array(rec["after"])
        title = self.title.get(leaf, "leaf")
        return {
            "node": self.nid(node),
            "edge": self.b.accumulate_edge.get(node),
            "done": self.nid(node),
            **self._values(rec["after"]),
            "leaf": {"id": leaf, "name": title, "before": before, "after": after},
            "text": f"{title}.grad: {before} + {format_array(rec['added'])} → {after}",
        }

    def on_hook(self, rec: dict) -> dict:
        grad = rec.get("grad")
        shown = self._many(grad) if isinstance(grad, list) else format_array(grad)
        returned = rec.get("returned")
        if returned is None or returned is False:
            result = "returned None (gradient unchanged)"
        elif returned is True:
            result = "returned replacement gradients"
        else:
            result = f"returned {format_array(returned)}"
        slot = "" if rec.get("slot") is None else f" slot {rec['slot']}"
        text = (
            f"{rec['hook']} hook {rec['fn']} on {self.name(rec['node'])}{slot}: saw "
            f"{shown}, {result}"
        )
        return {"node": self.nid(rec["node"]), "hook": text, "text": text}

    def on_capture(self, rec: dict) -> dict:
        return {
            "node": self.nid(rec["node"]),
            **self._values(rec.get("grad")),
            "text": f"autograd.grad captures {format_array(rec.get('grad'))} for input "
            f"{rec.get('index')}",
        }

    def on_freed(self, rec: dict) -> dict:
        node = rec["node"]
        ids = [
            self.b.saved_id[(node, n)]
            for n in rec.get("saved") or []
            if (node, n) in self.b.saved_id
        ]
        names = ", ".join(rec.get("saved") or [])
        return {
            "node": self.nid(node),
            "freed": ids,
            "text": f"{self.name(node)} frees its saved tensors ({names}): retain_graph "
            "was not set",
        }

    def on_error(self, rec: dict) -> dict:
        text = f"{rec['error']} in {self.name(rec['node'])}: {rec['message']}"
        return {"node": self.nid(rec["node"]), "error": text, "text": text}

    def on_backward_end(self, rec: dict) -> dict:
        return {"queue": [], "text": f"backward #{self.passes} finished"}

    # --- formatting ----------------------------------------------------------------------
    def _names(self, ids: list[str]) -> str:
        return ", ".join(self.title[i] for i in ids) if ids else "(empty)"

    @staticmethod
    def _many(arrays: list) -> str:
        return ", ".join(format_array(a) for a in arrays) if arrays else "()"

    @staticmethod
    def _values(arr: np.ndarray | None) -> dict:
        """The current gradient as panel text and, when small, as numbers."""
        if arr is None:
            return {}
        arr = np.asarray(arr)
        numbers = arr.tolist() if arr.size <= VALUES_LIMIT else None
        return {"grad": format_array(arr), "values": numbers}

    def _tensor_name(self, t: Any) -> str:
        tid = self.b.tensor_id.get(t)
        if tid is not None:
            return self.title[tid]
        if t.grad_fn is not None:
            nid = self.nid(t.grad_fn)
            return f"output of {self.title[nid]}" if nid else "tensor"
        return self.b.name_of(t, "tensor")

    def _appears_with(self, node: Any) -> list[str] | None:
        """Ids that appear when `node` is created: it, its edges, new leaves, constants and
        saved tensors, and tensors it outputs."""
        nid = self.nid(node)
        if nid is None:
            return None
        show = [nid]
        for edge in self.out_edges[nid]:
            show.append(edge.id)
            if self.graph.nodes[edge.target].kind in ("accumulate", "constant"):
                show.append(edge.target)
                for e in self.out_edges[edge.target]:  # AccumulateGrad -> its leaf
                    show.extend((e.id, e.target))
        for edge in self.in_edges[nid]:
            if edge.kind in ("saved", "output"):
                show.extend((edge.id, edge.source))
        return list(dict.fromkeys(show))


def make_frames(records: list[dict], builder: GraphBuilder) -> list[dict]:
    """One frame per record, in order."""
    return FrameMaker(builder).run(records)
