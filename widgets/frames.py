"""Engine records -> frames: the same steps, one frame per record, naming model ids, as JSON.

A frame keeps the record's `kind` and adds what the player needs to show it without asking the
kernel again: which node and edge to highlight, the values as text formatted here in Python, and
the changes to the ready queue, the dependency counts, the finished nodes, the freed saved tensors
and the leaves' `.grad`. The browser folds these changes frame by frame; nothing is laid out again.

Arrays appear as summaries (labels.summarize) in every text; a frame's current gradient also
comes whole as `grad_full` (hover/click) and as the short `edge_label` drawn on the active edge.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.core import events

from . import adapters
from .hooks import HookNamer
from .labels import (
    VALUE_LIMIT,
    edge_text,
    format_shape,
    format_values,
    full_text,
    summarize,
)
from .language import resolve
from .texts import say
from .walk import GraphBuilder

# `grad_full` texts one recording carries at most (characters): a 10,000-node graph's frames
# hold tens of thousands of gradients, and every frame travels to the browser at once (measured:
# 8 MB of them made a 10,000-node player's frames 14 MB and its first paint seconds later)
FULL_BUDGET = 1_000_000


class ArrayTexts:
    """Summary, full text and edge label of each distinct array, made once: the same gradient
    shows up in several frames (sent on an edge, run by its node, summed, accumulated)."""

    def __init__(self, budget: int | None = None, lang: str = "en") -> None:
        self.cache: dict[tuple, tuple[str, str | None]] = {}
        self.budget = FULL_BUDGET if budget is None else budget
        self.lang = lang

    def texts(self, arr: np.ndarray) -> tuple[str, str | None]:
        key = (arr.dtype.str, arr.shape, arr.tobytes())
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = (summarize(arr, self.lang), full_text(arr, self.lang))
        return found

    def summary(self, values: Any) -> str:
        return "None" if values is None else self.texts(np.asarray(values))[0]

    def full(self, arr: np.ndarray) -> str | None:
        """The full text, while the recording's budget lasts."""
        full = self.texts(arr)[1]
        if full is None or len(full) > self.budget:
            return None
        self.budget -= len(full)
        return full


@dataclass
class RunningPass:
    """A backward pass begun and not yet ended. A pass can start inside a node of another (a
    reentrant checkpoint's backward runs one on its recomputed block): the outer one's counts
    wait meanwhile, and the node it is running names the inner one."""

    n: int
    create_graph: bool
    deps: dict[str, int]  # model id -> gradients it still waits for (drawn nodes only)
    node: Any = None  # the node it runs now (started, not yet returned)


class FrameMaker:
    """Turns one trace's records into frames against one GraphBuilder's ids, worded in `lang`."""

    def __init__(self, builder: GraphBuilder, lang: str | None = None) -> None:
        self.lang = resolve(lang)
        self.b = builder
        self.graph = builder.graph
        self.out_edges: dict[str, list] = defaultdict(list)
        self.in_edges: dict[str, list] = defaultdict(list)
        for edge in self.graph.edges.values():
            self.out_edges[edge.source].append(edge)
            self.in_edges[edge.target].append(edge)
        self.title = self.graph.titles(self.lang)  # model id -> THE name (Graph.titles)
        self.arrays = ArrayTexts(lang=self.lang)
        self.hooks = HookNamer(builder, self.title, self.lang)
        self.deps: dict[str, int] = {}
        self.sent: Counter = Counter()  # (source, target, slot) edges already used by this run
        self.passes = 0
        self.running: list[RunningPass] = []  # innermost last
        self.handlers = handlers(self)

    # --- helpers -------------------------------------------------------------------------
    def nid(self, node: Any) -> str | None:
        return None if node is None else self.b.node_id.get(node)

    def name(self, node: Any) -> str:
        nid = self.nid(node)
        if nid is not None:
            return self.title[nid]
        return self.say("step.seed") if node is None else adapters.node_name(node)

    def say(self, key: str, **values: Any) -> str:
        return say(key, self.lang, **values)

    def queue(self, nodes: list) -> list[str]:
        return [i for i in (self.nid(n) for n in nodes) if i is not None]

    # --- records ---------------------------------------------------------------------------
    def run(self, records: list[dict]) -> list[dict]:
        """Frames for a whole trace (the maker keeps state between records: counts, passes)."""
        return [self.frame(rec) for rec in records]

    def frame(self, rec: dict) -> dict:
        """The frame for one record: `on_<kind>` adds what that kind of step shows."""
        kind = rec["kind"]
        handler = self.handlers.get(kind)
        if handler is None:
            raise ValueError(f"no such kind of record: {kind!r} (minigrad/core/events.py)")
        number = self.running[-1].n if self.running else self.passes
        frame = {"kind": kind, "pass": number, **handler(rec)}
        return {k: v for k, v in frame.items() if v is not None}

    def on_node_created(self, rec: dict) -> dict:
        node = rec["node"]
        inputs = [t for t in rec.get("inputs") or [] if t is not None]
        args = self.say("list.sep").join(
            f"{self._tensor_name(t)} {format_shape(tuple(t.shape))}" for t in inputs
        )
        out = rec.get("output")
        small = out is not None and out.numel() <= VALUE_LIMIT
        values = format_values(adapters.to_numpy(out)) if small else None
        when = self._when_created()
        shape = format_shape(rec.get("shape"))
        text = self.say("step.node_created", when=when, node=self.name(node), shape=shape)
        text += self.say("step.created_from", args=args) if args else ""
        text += f" = {values}" if values is not None else ""
        frame = {"node": self.nid(node), "show": self._appears_with(node)}
        tangent = rec.get("tangent")
        if tangent is not None:  # forward mode: the directional derivative, in the same pass
            frame["tangent"] = edge_text(tangent, self.lang)
            frame["tangent_full"] = summarize(tangent, self.lang)
            text += self.say("step.tangent", tangent=frame["tangent_full"])
        return {**frame, "text": text}

    def on_backward_start(self, rec: dict) -> dict:
        outer = self.running[-1] if self.running else None
        self.passes += 1
        self.sent.clear()
        self.hooks.new_pass()
        self.deps = {
            self.nid(n): c for n, c in rec["dependencies"].items() if self.nid(n) is not None
        }
        self.running.append(RunningPass(self.passes, bool(rec.get("create_graph")), self.deps))
        roots = self.say("list.sep").join(self.name(n) for n in rec.get("root_nodes") or [])
        retain = rec.get("retain_graph")
        mode = "" if retain is None else self.say("step.retain_graph", value=retain)
        mode += self.say("step.create_graph") if rec.get("create_graph") else ""
        if outer is None:
            text = self.say(
                "step.backward_start", n=self.passes, roots=roots, mode=mode, count=len(self.deps)
            )
        else:
            text = self._inner_start(rec, outer, roots=roots, mode=mode)
        return {"pass": self.passes, "deps": dict(self.deps), "queue": [], "text": text}

    def _inner_start(self, rec: dict, outer: RunningPass, **words: str) -> str:
        """The start of a pass run inside another: which node runs it, and how many nodes wait
        (all of them: they are mostly made during backward, so not drawn)."""
        inner = (
            self.say("step.inner_of_pass", outer=outer.n)
            if outer.node is None
            else self.say("step.inner_of_node", node=self.name(outer.node))
        )
        count = len(rec["dependencies"])
        text = self.say(
            "step.inner_backward_start", n=self.passes, inner=inner, count=count, **words
        )
        hidden = count - len(self.deps)
        return text + (self.say("step.not_drawn", k=hidden) if hidden else "")

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
            "edge_label": edge_text(grad, self.lang) if edge is not None else None,
            "node": tid,
            "deps": deps,
            **self._values(grad),
            "text": self.say(
                "step.edge",
                source=self.name(source),
                target=self.name(target),
                grad=self._sum(grad),
            ),
        }

    def on_buffer_sum(self, rec: dict) -> dict:
        return {
            "node": self.nid(rec["node"]),
            **self._values(rec["after"]),
            "text": self.say(
                "step.buffer_sum",
                node=self.name(rec["node"]),
                before=self._sum(rec["before"]),
                added=self._sum(rec["added"]),
                after=self._sum(rec["after"]),
            ),
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
            "text": self.say("step.ready", node=self.name(rec["node"]), queue=self._names(queue)),
        }

    def on_node_start(self, rec: dict) -> dict:
        self._running_node(rec["node"])
        grads = rec.get("grad_outputs") or []
        return {
            "node": self.nid(rec["node"]),
            "queue": self.queue(rec["queue"]),
            **self._values(grads[0] if len(grads) == 1 else None),
            "text": self.say(
                "step.node_start", node=self.name(rec["node"]), grads=self._many(grads)
            ),
        }

    def on_node_run(self, rec: dict) -> dict:
        self.sent.clear()
        self._running_node(None)
        node = rec["node"]
        outs = rec.get("grad_inputs") or []
        return {
            "node": self.nid(node),
            "done": self.nid(node),
            "text": self.say("step.node_run", node=self.name(node), grads=self._many(outs)),
        }

    def on_accumulate(self, rec: dict) -> dict:
        self._running_node(None)
        node, var = rec["node"], rec["variable"]
        leaf = self.b.tensor_id.get(var)
        before, after = self._sum(rec["before"]), self._sum(rec["after"])
        title = self.title.get(leaf, "leaf")
        edge = self.b.accumulate_edge.get(node)
        after_full = (
            self.arrays.full(np.asarray(rec["after"])) if rec["after"] is not None else None
        )
        return {
            "node": self.nid(node),
            "edge": edge,
            "edge_label": edge_text(rec["added"], self.lang) if edge is not None else None,
            "done": self.nid(node),
            **self._values(rec["after"]),
            "leaf": {
                k: v
                for k, v in (
                    ("id", leaf),
                    ("name", title),
                    ("before", before),
                    ("after", after),
                    ("after_full", after_full),
                )
                if v is not None
            },
            "text": self.say(
                "step.accumulate",
                leaf=title,
                before=before,
                added=self._sum(rec["added"]),
                after=after,
            ),
        }

    def on_hook(self, rec: dict) -> dict:
        hook, text = self.hooks.describe(rec, self.name)
        return {"node": self.nid(rec.get("node")), "hook": hook, "text": text}

    def on_capture(self, rec: dict) -> dict:
        return {
            "node": self.nid(rec["node"]),
            **self._values(rec.get("grad")),
            "text": self.say(
                "step.capture", grad=self._sum(rec.get("grad")), index=rec.get("index")
            ),
        }

    def on_freed(self, rec: dict) -> dict:
        node = rec["node"]
        ids = [
            self.b.saved_id[(node, n)]
            for n in rec.get("saved") or []
            if (node, n) in self.b.saved_id
        ]
        names = self.say("list.sep").join(rec.get("saved") or [])
        return {
            "node": self.nid(node),
            "freed": ids,
            "text": self.say("step.freed", node=self.name(node), names=names),
        }

    def on_error(self, rec: dict) -> dict:
        self.running.clear()  # no backward_end follows: the exception ends every running pass
        node = self.name(rec["node"])
        text = self.say("step.error", error=rec["error"], node=node, message=rec["message"])
        return {"node": self.nid(rec["node"]), "error": text, "text": text}

    def on_backward_end(self, rec: dict) -> dict:
        ended = self.running.pop().n if self.running else self.passes
        if not self.running:
            return {"queue": [], "text": self.say("step.backward_end", n=ended)}
        self.deps = self.running[-1].deps  # the outer pass goes on
        text = self.say("step.inner_backward_end", n=ended, outer=self.running[-1].n)
        return {"queue": [], "text": text}

    # --- where the engine is ---------------------------------------------------------------
    def _running_node(self, node: Any) -> None:
        if self.running:
            self.running[-1].node = node

    def _when_created(self) -> str:
        """When a node was made: outside any pass (the forward), by a create_graph pass (the
        graph of the gradients), or by code a pass without create_graph ran inside a node (a
        checkpoint recomputing its block)."""
        if not self.running:  # (between passes too: ordinary code ran)
            return self.say("step.forward")
        current = self.running[-1]
        if current.create_graph:
            return self.say("step.double_backward")
        if current.node is None:
            return self.say("step.during_backward", n=current.n)
        return self.say("step.during_node", n=current.n, node=self.name(current.node))

    # --- formatting ----------------------------------------------------------------------
    def _names(self, ids: list[str], listed: int = 5) -> str:
        """The first few nodes of a queue by name, then how many more."""
        if not ids:
            return self.say("list.empty")
        names = self.say("list.sep").join(self.title[i] for i in ids[:listed])
        if len(ids) <= listed:
            return names
        return self.say("list.more", names=names, n=len(ids) - listed)

    def _sum(self, values: Any) -> str:
        return self.arrays.summary(values)

    def _many(self, arrays: list) -> str:
        """A node's gradients: one alone, several in parentheses (labels.summarize_many)."""
        if len(arrays) == 1:
            return self._sum(arrays[0])
        return "(" + ", ".join(self._sum(a) for a in arrays) + ")"

    def _values(self, arr: np.ndarray | None) -> dict:
        """The current gradient: its summary, the whole of it (when the summary is not), and
        the numbers themselves when there are few."""
        if arr is None:
            return {}
        arr = np.asarray(arr)
        return {
            "grad": self.arrays.summary(arr),
            "grad_full": self.arrays.full(arr),
            "values": arr.tolist() if arr.size <= VALUE_LIMIT else None,
        }

    def _tensor_name(self, t: Any) -> str:
        tid = self.b.tensor_id.get(t)
        if tid is not None:
            return self.title[tid]
        if t.grad_fn is not None:
            nid = self.nid(t.grad_fn)
            return (
                self.say("step.output_of", node=self.title[nid]) if nid else self.say("step.tensor")
            )
        return self.b.name_of(t, self.say("step.tensor"))

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


def handlers(maker: FrameMaker) -> dict[str, Callable[[dict], dict]]:
    """Each kind of record (events.KINDS) -> the maker's `on_<kind>`: a kind without one fails
    here, when a maker is made, not when such a record first arrives."""
    return {kind: getattr(maker, f"on_{kind}") for kind in events.KINDS}


def make_frames(records: list[dict], builder: GraphBuilder, lang: str | None = None) -> list[dict]:
    """One frame per record, in order."""
    return FrameMaker(builder, lang).run(records)
