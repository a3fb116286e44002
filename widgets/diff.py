"""Two recorded backward passes compared: nodes and steps only one has, gradients that differ.

    with record_backward(loss1) as a: loss1.backward()       # e.g. without checkpointing
    with record_backward(loss2) as b: loss2.backward()       # ... and with it
    diff_passes(a, b, labels=("plain", "checkpoint"))        # summary, both pictures, step table

Nodes are paired by diff_match.py's rules (ranks in titles shift when one pass has an extra node).
Nodes a pass made while it ran backward (a checkpoint's recomputed forward: `node_created`
records in a backward trace) are not in the drawn graph; they are called `<name> (made in
backward #k)`; other nodes a pass ran outside its drawn graph `<name> (not drawn #k)`; both are
paired by name and k, counted in the order the pass first names them. A node one pass ran
without drawing it that the other pass draws (the same live object: a parameter's AccumulateGrad
run inside a reentrant checkpoint's backward) is paired with it, `<its title there> (not drawn
here)`.

Matching steps: each record is a step, keyed by its kind and the paired nodes it names (for an
edge, both ends and the slot; for a hook, its kind and function); the two key sequences are
aligned with difflib.SequenceMatcher. A step left over in each pass with the same key is one
both ran at different points: it is paired as `moved`. Paired steps carrying gradients compare
them bit for bit and with np.allclose (diff_match.compare); a step is listed when they are not
bit-identical, with `allclose` saying whether the tolerance hides the difference.

torch runs its engine out of sight (torch_records.py watches it from outside): nothing inside a
node is recorded, so a torch checkpoint's recomputation never shows as steps (PassDiff.notes says
so); minigrad reports it.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import adapters
from .diff_match import compare, gradients, match_nodes
from .frames import FrameMaker
from .labels import format_shape
from .language import resolve
from .model import Graph
from .texts import say
from .view import GraphView, short_list

if TYPE_CHECKING:
    from .diff_player import DiffPlayer
    from .trace import record_backward

LISTED = 8  # node names a summary line lists before "and N more"


@dataclass
class Step:
    """One record of a pass: what the aligned table and the player show of it."""

    index: int
    kind: str
    key: tuple
    element: str | None  # the drawn node to highlight (model id), None when not drawn
    node: str  # THE name of the node it is about ("" for a pass's start and end)
    text: str
    grads: list[Any]


@dataclass
class Side:
    """One pass as the diff sees it: its graph's picture, its node names, its steps."""

    label: str
    trace: record_backward
    view: GraphView
    titles: dict[str, str]  # model id -> THE name; undrawn nodes too, under `new:<k>` ids
    made_in_backward: list[str] = field(default_factory=list)  # ids of undrawn nodes, in order
    steps: list[Step] = field(default_factory=list)

    @property
    def graph(self) -> Graph:
        return self.trace.graph


class _Reader:
    """Turns one trace's records into Steps keyed by paired-node tokens."""

    def __init__(
        self, side: Side, token: dict[str, tuple], other: Side, other_token: dict, lang: str
    ) -> None:
        self.side, self.token, self.lang = side, token, lang
        self.other, self.other_token = other, other_token
        self.b = side.trace.builder
        self.undrawn: dict[Any, str] = {}  # live node not in the graph -> `new:<k>` id
        self.per_name: Counter = Counter()
        # nodes the pass made while it ran (a trace of backward holds no forward's records)
        self.created = {r["node"] for r in side.trace.records if r["kind"] == "node_created"}
        self.depth = 0  # passes running (a reentrant checkpoint runs one inside its node)

    def ident(self, node: Any) -> str | None:
        """The model id of a live node (`new:<k>` for one made during backward)."""
        if node is None:
            return None
        nid = self.b.node_id.get(node)
        if nid is not None:
            return nid
        if node not in self.undrawn:
            nid = f"new:{len(self.undrawn)}"
            self.undrawn[node] = nid
            there = self.other.trace.builder.node_id.get(node)
            if there is not None:  # the same node, drawn in the other pass: paired with it
                title = self.other.titles[there]
                self.side.titles[nid] = say("diff.drawn_there", self.lang, title=title)
                self.token[nid] = self.other_token[there]
                return nid
            name = adapters.node_name(node)
            self.per_name[name] += 1
            made = node in self.created
            how = "diff.made_in_backward" if made else "diff.undrawn"
            self.side.titles[nid] = say(how, self.lang, name=name, k=self.per_name[name])
            self.token[nid] = ("new", name, self.per_name[name])
            if made:
                self.side.made_in_backward.append(nid)
        return self.undrawn[node]

    def tok(self, node: Any) -> tuple | None:
        nid = self.ident(node)
        return None if nid is None else self.token[nid]

    def key(self, rec: dict) -> tuple:
        kind = rec["kind"]
        if kind == "edge":
            return (kind, self.tok(rec["source"]), self.tok(rec["target"]), rec["slot"])
        if kind == "hook":
            return (kind, rec["hook"], self.tok(rec.get("node")), rec["fn"])
        if kind == "buffer_sum":
            return (kind, self.tok(rec["node"]), rec["slot"])
        if kind in ("backward_start", "backward_end"):  # a pass run inside a node is nested
            self.depth += kind == "backward_start"
            key = (kind, self.depth)
            self.depth -= kind == "backward_end"
            return key
        if kind == "error":  # no backward_end follows: the exception ends every running pass
            self.depth = 0
        return (kind, self.tok(rec.get("node")))

    def steps(self) -> list[Step]:
        records = self.side.trace.records
        frames = _Frames(self).run(records)
        found = []
        for i, (rec, frame) in enumerate(zip(records, frames, strict=True)):
            key = self.key(rec)
            main = rec.get("target") if rec["kind"] == "edge" else rec.get("node")
            nid = self.ident(main)
            drawn = nid if nid is not None and nid in self.side.graph.nodes else None
            title = self.side.titles.get(nid, "") if nid is not None else ""
            found.append(
                Step(i, rec["kind"], key, drawn, title, frame.get("text", ""), gradients(rec))
            )
        return found


class _Frames(FrameMaker):
    """The player's step texts, naming undrawn nodes as the diff does, and saying that a node
    created while backward runs was made then (not in the forward)."""

    def __init__(self, reader: _Reader) -> None:
        super().__init__(reader.b, reader.lang)
        self.reader = reader

    def name(self, node: Any) -> str:
        if node is None or node in self.b.node_id:
            return super().name(node)
        return self.reader.side.titles[self.reader.ident(node)]

    def on_node_created(self, rec: dict) -> dict:
        frame = super().on_node_created(rec)
        if self.passes:
            when = self.say("diff.during_backward", n=self.passes)
            shape = format_shape(rec.get("shape"))
            node = self.name(rec["node"])
            frame["text"] = self.say("step.node_created", when=when, node=node, shape=shape)
        return frame


class PassDiff:
    """Two backward passes compared (see the module docstring for the rules).

    differences: plain data, `a` and `b` being the two passes (`labels` names them):
      nodes_only_a / nodes_only_b: names of the nodes only that pass has (drawn or made in backward)
      made_in_backward_a / _b:     names of the nodes that pass made while it ran backward
      steps_only_a / steps_only_b: {"step", "kind", "node", "text"} of steps the other lacks
      steps_moved:  {"step_a", "step_b", "kind", "node"} of steps both ran, at different points
      grads_differ: {"step_a", "step_b", "kind", "node", "exact": False, "allclose"} of paired
                    steps (aligned or moved) whose gradients are not bit-identical
    rows: the aligned steps, `{"a": i or None, "b": j or None, "status", "grads"}`; status one
          of same, close (allclose only), differs (gradients), only_a, only_b, moved; grads how
          the paired steps' gradients compare (same, close, differs; None for a lone step).
    notes: what the records cannot show (a torch pass's inside of a node).
    """

    def __init__(
        self,
        a: record_backward,
        b: record_backward,
        labels: Sequence[str] = ("A", "B"),
        lang: str | None = None,
    ) -> None:
        for trace in (a, b):
            if getattr(trace, "kind", None) != "backward" or trace.builder is None:
                raise TypeError("diff_passes compares two recorded `record_backward` traces")
        if len(labels) != 2:
            raise ValueError("labels: one name for each pass, e.g. ('A', 'B')")
        self.lang = resolve(lang)
        self.labels = (str(labels[0]), str(labels[1]))
        self.a, self.b = (
            Side(
                label,
                trace,
                trace.draw(legend=False, lang=self.lang),
                dict(trace.graph.titles(self.lang)),
            )
            for label, trace in zip(self.labels, (a, b), strict=True)
        )
        pairs = match_nodes(a, b)
        token_a = {nid: ("m", nid) if nid in pairs else ("a", nid) for nid in a.graph.nodes}
        token_b = {nid: ("b", nid) for nid in b.graph.nodes}
        token_b.update({bid: ("m", aid) for aid, bid in pairs.items()})
        self.a.steps = _Reader(self.a, token_a, self.b, token_b, self.lang).steps()
        self.b.steps = _Reader(self.b, token_b, self.a, token_a, self.lang).steps()
        self.pairs = pairs
        self.rows = self._align()
        self.differences = self._differences(token_a, token_b)
        torch = any(adapters.is_torch(t) for t in a.roots + b.roots)
        self.notes = [say("diff.torch_note", self.lang)] if torch else []

    # --- comparing ------------------------------------------------------------------------
    def _align(self) -> list[dict]:
        """Rows of aligned steps; a step both passes ran at different points (one removal and
        one insertion of the same key) becomes one `moved` row where the first pass ran it."""
        sa, sb = self.a.steps, self.b.steps
        matcher = difflib.SequenceMatcher(
            a=[s.key for s in sa], b=[s.key for s in sb], autojunk=False
        )
        rows: list[dict] = []
        for op, i0, i1, j0, j1 in matcher.get_opcodes():
            if op == "equal":
                for i, j in zip(range(i0, i1), range(j0, j1), strict=True):
                    grads = compare(sa[i].grads, sb[j].grads)
                    rows.append({"a": i, "b": j, "status": grads, "grads": grads})
                continue
            rows += [{"a": i, "b": None, "status": "only_a", "grads": None} for i in range(i0, i1)]
            rows += [{"a": None, "b": j, "status": "only_b", "grads": None} for j in range(j0, j1)]
        waiting: dict[tuple, list[dict]] = defaultdict(list)
        for row in rows:
            if row["status"] == "only_b":
                waiting[sb[row["b"]].key].append(row)
        for row in rows:
            partners = waiting.get(sa[row["a"]].key) if row["status"] == "only_a" else None
            if partners:
                other = partners.pop(0)
                other["status"] = "gone"
                row["b"], row["status"] = other["b"], "moved"
                row["grads"] = compare(sa[row["a"]].grads, sb[row["b"]].grads)
        return [row for row in rows if row["status"] != "gone"]

    def _differences(self, token_a: dict, token_b: dict) -> dict[str, list]:
        def only(side: Side, others: set) -> list[str]:
            own = token_a if side is self.a else token_b
            return [side.titles[n] for n, t in own.items() if t not in others]

        def step(s: Step) -> dict:
            return {"step": s.index, "kind": s.kind, "node": s.node, "text": s.text}

        def pair(r: dict) -> dict:
            return {"kind": self.a.steps[r["a"]].kind, "node": self.a.steps[r["a"]].node}

        rows = self.rows
        return {
            "nodes_only_a": only(self.a, set(token_b.values())),
            "nodes_only_b": only(self.b, set(token_a.values())),
            "made_in_backward_a": [self.a.titles[n] for n in self.a.made_in_backward],
            "made_in_backward_b": [self.b.titles[n] for n in self.b.made_in_backward],
            "steps_only_a": [step(self.a.steps[r["a"]]) for r in rows if r["status"] == "only_a"],
            "steps_only_b": [step(self.b.steps[r["b"]]) for r in rows if r["status"] == "only_b"],
            "steps_moved": [
                {"step_a": r["a"], "step_b": r["b"], **pair(r)}
                for r in rows
                if r["status"] == "moved"
            ],
            "grads_differ": [
                {
                    "step_a": r["a"],
                    "step_b": r["b"],
                    **pair(r),
                    "exact": False,
                    "allclose": r["grads"] == "close",
                }
                for r in rows
                if r["grads"] in ("close", "differs")
            ],
        }

    def node_marks(self, side: Side) -> dict[str, str]:
        """Drawn model id -> `only` (not in the other pass) or `grad` (a gradient there differs)."""
        mine = "nodes_only_a" if side is self.a else "nodes_only_b"
        names = set(self.differences[mine])
        marks = {n: "only" for n, t in side.titles.items() if t in names and n in side.graph.nodes}
        column = "a" if side is self.a else "b"
        for r in self.rows:
            if r["grads"] in ("close", "differs"):
                element = side.steps[r[column]].element
                if element is not None:
                    marks.setdefault(element, "grad")
        return marks

    # --- showing ----------------------------------------------------------------------------
    def same(self) -> bool:
        """No node, step or gradient bit differs."""
        return not any(v for k, v in self.differences.items() if not k.startswith("made_in"))

    def __repr__(self) -> str:
        lang, d = self.lang, self.differences
        la, lb = self.labels
        lines = [
            say("diff.pass", lang, label=s.label, steps=len(s.steps), graph=s.graph.summary(lang))
            for s in (self.a, self.b)
        ]
        if self.same():
            lines.append(say("diff.none", lang))
        for label, key in ((la, "nodes_only_a"), (lb, "nodes_only_b")):
            if d[key]:
                names = short_list(d[key], LISTED, lang)
                lines.append(say("diff.nodes_only", lang, label=label, n=len(d[key]), names=names))
        for label, key in ((la, "made_in_backward_a"), (lb, "made_in_backward_b")):
            if d[key]:
                lines.append(say("diff.made", lang, label=label, n=len(d[key])))
        if d["steps_only_a"] or d["steps_only_b"]:
            lines.append(
                say(
                    "diff.steps_only",
                    lang,
                    a=la,
                    b=lb,
                    n_a=len(d["steps_only_a"]),
                    n_b=len(d["steps_only_b"]),
                )
            )
        if d["steps_moved"]:
            lines.append(say("diff.moved", lang, n=len(d["steps_moved"])))
        matched = sum(1 for r in self.rows if r["a"] is not None and r["b"] is not None)
        close = sum(1 for g in d["grads_differ"] if g["allclose"])
        lines.append(
            say(
                "diff.grads",
                lang,
                matched=matched,
                differs=len(d["grads_differ"]) - close,
                close=close,
            )
        )
        return "\n".join(lines + self.notes)

    def html(self) -> str:
        """The static view: both pictures with differing nodes outlined, and the step table."""
        from .diff_view import diff_html

        return diff_html(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self.html()}

    def player(self) -> DiffPlayer:
        """The live view: step through the aligned steps, both pictures following along."""
        from .diff_player import DiffPlayer

        return DiffPlayer(self)

    def save_html(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        """One self-contained page replaying this diff offline (no kernel, no network)."""
        return self.player().save_html(path, title)


def diff_passes(
    a: record_backward,
    b: record_backward,
    labels: Sequence[str] = ("A", "B"),
    lang: str | None = None,
) -> PassDiff:
    """Compare two recorded backward passes: nodes and steps only one has, gradients that differ.

    a, b:   `record_backward` traces (minigrad or torch), e.g. without and with checkpointing.
    labels: what to call each pass in the summary, the pictures and the table.
    lang:   "en" or "zh" (None: widgets.set_language's choice).
    """
    return PassDiff(a, b, labels, lang)
