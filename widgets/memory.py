"""The memory timeline of a recorded backward pass: the bytes held after each of its steps.

    with record_backward(loss) as bwd:
        loss.backward()
    bwd.memory()          # a chart (stacked bands) and a text summary; .steps, .peak_bytes ...

Three kinds of bytes, each held by a node of the graph (its band in the chart):
- saved: the tensors nodes saved for backward, as saved (memory_sizes.py: each storage once);
  a node's bytes drop when the engine frees them (a `freed` record).
- grads: leaves' .grad (what they had before the pass, then each `accumulate`), retained grads
  (a `retain_grad` hook) and autograd.grad's results (a `capture`, held until its pass ends).
- buffers: gradients waiting in a node's input buffer: an `edge` record puts one there (another
  one for the same input is summed into it: no more bytes), the node's `node_start` takes them.
Nodes made during the pass that the drawing does not have (a checkpointed block recomputed in
backward) share one band. A gradient's bytes are its recorded copy's (torch's float16 and
bfloat16 gradients are recorded as float32, and counted so); a .grad's are its leaf's dtype's.
One step per record: `.steps[k]` is the player's frame k (`"frame": k`, counted from 0, an
index); what a learner reads counts steps from 1 as the player's counter does ("step k + 1").
A torch pass's frees are drawn at the node's `node_run` step, where torch's engine frees (its
recording notices them one node later).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

from . import adapters
from .labels import escape_html
from .language import resolve
from .memory_fold import CATEGORIES, fold_records
from .memory_sizes import SavedSizes
from .memory_svg import OTHER, RECOMPUTED, Band, Chart, chart_svg, format_bytes
from .texts import say
from .view import svg_image
from .walk import GraphBuilder

MAX_BANDS = 12  # nodes with a band of their own; the rest of each category share one
MAX_COLUMNS = 320  # a longer pass is drawn one column per several steps (their highest)


class MemoryTimeline:
    """The bytes a recorded backward pass held, step by step (see the module docstring).

    `.steps`: one dict per step (= player frame): `frame` (the frame's index, from 0: the text,
    the chart's axis and the player show it as step `frame + 1`), `kind`, `node` (its title),
    `bytes` by category, `total`, `by_node` (title -> bytes, nonzero only).
    `.peak_bytes`, `.peak_step`: the highest total and its first step (an index into `.steps`).
    `.totals(step)`: bytes by category (and `total`) at a step index, the peak by default.
    """

    def __init__(
        self,
        records: list[dict],
        builder: GraphBuilder,
        sizes: SavedSizes,
        lang: str | None = None,
    ) -> None:
        self.lang = resolve(lang)
        self.titles = builder.graph.titles(self.lang)
        self._start, self._changes = fold_records(records, builder, sizes)
        self._kinds = [rec["kind"] for rec in records]
        self._nodes = [self._node_title(builder, rec) for rec in records]
        now = Counter({c: 0 for c in CATEGORIES})
        for (category, _), n in self._start.items():
            now[category] += n
        self._totals: list[tuple[int, ...]] = []
        for changes in self._changes:
            for category, _, n in changes:
                now[category] += n
            self._totals.append(tuple(now[c] for c in CATEGORIES))
        sums = [sum(t) for t in self._totals] or [0]
        self.peak_bytes = max(sums)
        self.peak_step = sums.index(self.peak_bytes)
        self._steps: list[dict] | None = None

    def _node_title(self, builder: GraphBuilder, rec: dict) -> str | None:
        node = rec.get("target" if rec["kind"] == "edge" else "node")
        if node is None:
            return None
        nid = builder.node_id.get(node)
        return self.titles[nid] if nid is not None else adapters.node_name(node)

    def band_title(self, key: str) -> str:
        """A band's name: its node's title, or what the shared bands hold."""
        if key in (RECOMPUTED, OTHER):
            return say(f"memory.{key}", self.lang)
        return self.titles.get(key, key)

    # --- per step --------------------------------------------------------------------------
    @property
    def steps(self) -> list[dict]:
        """One dict per step (see the class docstring), made when first asked for."""
        if self._steps is None:
            self._steps = []
            held = Counter(self._start)
            for k, changes in enumerate(self._changes):
                for category, key, n in changes:
                    held[(category, key)] += n
                by_node: Counter = Counter()
                for (_, key), n in sorted(held.items(), key=lambda kv: _order(kv[0][1])):
                    if n:
                        by_node[self.band_title(key)] += n
                self._steps.append(
                    {
                        "frame": k,
                        "kind": self._kinds[k],
                        "node": self._nodes[k],
                        "bytes": dict(zip(CATEGORIES, self._totals[k], strict=True)),
                        "total": sum(self._totals[k]),
                        "by_node": dict(by_node),
                    }
                )
        return self._steps

    def totals(self, step: int | None = None) -> dict[str, int]:
        """Bytes by category and their `total` at `step` (the peak step when None)."""
        values = self._totals[self.peak_step if step is None else step] if self._totals else ()
        found = dict(zip(CATEGORIES, values, strict=False)) or dict.fromkeys(CATEGORIES, 0)
        return {**found, "total": sum(found.values())}

    def compact(self) -> dict[str, Any]:
        """What the player's front end needs for its readout: per-step totals, as short lists."""
        return {
            "totals": [list(col) for col in zip(*self._totals, strict=True)] or [[], [], []],
            "peak": self.peak_bytes,
            "peak_step": self.peak_step,
        }

    # --- the chart ---------------------------------------------------------------------------
    def chart(self) -> Chart:
        """Bands (the biggest nodes alone, each category's others together) per column. Two
        walks through the changes, each touching only what a step changed (a 10,000-node
        pass holds thousands of bands)."""
        n = len(self._changes)
        per = max(1, -(-n // MAX_COLUMNS))
        sums = [sum(t) for t in self._totals]
        columns = [max(range(j, min(j + per, n)), key=sums.__getitem__) for j in range(0, n, per)]
        peak, held = Counter(self._start), Counter(self._start)
        for changes in self._changes:
            for category, key, d in changes:
                held[(category, key)] += d
                peak[(category, key)] = max(peak[(category, key)], held[(category, key)])
        alone = {band for band, most in peak.most_common(MAX_BANDS) if most}
        others = {(c, OTHER) for c, key in set(peak) - alone if peak[(c, key)]}
        column_of = {k: j for j, k in enumerate(columns)}
        values = {band: [0] * len(columns) for band in alone | others}
        held = Counter(self._start)
        for k, changes in enumerate(self._changes):
            for category, key, d in changes:
                held[(category, key)] += d
            if k in column_of:
                totals = dict(zip(CATEGORIES, self._totals[k], strict=True))
                for band in alone:
                    values[band][column_of[k]] = held[band]
                    totals[band[0]] -= held[band]
                for category, key in others:
                    values[(category, key)][column_of[k]] = totals[category]
        order = sorted(values, key=lambda b: (CATEGORIES.index(b[0]), -_order(b[1])))
        bands = [Band(c, key, self.band_title(key), values[(c, key)]) for c, key in order]
        return Chart(n, per, columns, bands, self.peak_step, self.peak_bytes, self.lang)

    def svg(self, marker: bool = False) -> str:
        """The chart as SVG; `marker`: with the line the player moves to its frame."""
        return chart_svg(self.chart(), marker=marker)

    # --- showing itself ----------------------------------------------------------------------
    def summary(self) -> str:
        """The text/plain lines: what is counted, the peak, the start and the end."""
        t = self.totals()
        first, last = self.totals(0) if self._totals else t, self.totals(len(self._totals) - 1)
        words = {c: say(f"memory.{c}", self.lang) for c in CATEGORIES}

        def parts(found: dict[str, int]) -> str:
            return say("list.sep", self.lang).join(
                f"{words[c]} {format_bytes(found[c])}" for c in CATEGORIES
            )

        return "\n".join(
            (
                say("memory.head", self.lang, steps=len(self._changes)),
                say("memory.counted", self.lang),
                say(
                    "memory.peak",
                    self.lang,
                    total=format_bytes(self.peak_bytes),
                    step=self.peak_step + 1,
                    where=self._where(self.peak_step),
                    parts=parts(t),
                ),
                say("memory.start", self.lang, parts=parts(first)),
                say("memory.end", self.lang, parts=parts(last)),
            )
        )

    def _where(self, step: int) -> str:
        """What happened at a step, in a learner's words ("a gradient reaching MulBackward0")."""
        if step >= len(self._kinds):
            return say("memory.at.backward_end", self.lang)
        kind, node = self._kinds[step], self._nodes[step]
        alone = node is None and kind in ("hook", "error")
        return say(f"memory.at.{kind}{'_alone' if alone else ''}", self.lang, node=node)

    def __repr__(self) -> str:
        return self.summary()

    def html(self) -> str:
        """Summary lines, then the chart as an image (shows untrusted and in nbconvert HTML)."""
        lines = "".join(
            f'<div class="mg-caption">{escape_html(line)}</div>'
            for line in self.summary().split("\n")
        )
        alt = say("memory.alt", self.lang, peak=format_bytes(self.peak_bytes))
        return f'<div class="mg-static mg-memory">{lines}{svg_image(self.svg(), alt)}</div>'

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self.html()}

    def save_html(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        """One self-contained page (no script, no network): the summary and the chart."""
        path = Path(path)
        head = title or say("memory.page_title", self.lang)
        page = PAGE.format(
            lang="zh-CN" if self.lang == "zh" else "en",
            title=escape_html(head),
            body=self.html(),
        )
        path.write_text(page, encoding="utf-8")
        return path


def _order(key: str) -> int:
    """Bands in the graph's walk order (model ids `n12`), the shared bands last."""
    return int(key[1:]) if key[:1] == "n" and key[1:].isdigit() else 10**9


PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:;
  style-src 'unsafe-inline'">
<title>{title}</title>
</head>
<body style="margin:16px;font-family:sans-serif">
<h1 style="font-size:16px">{title}</h1>
{body}
</body>
</html>
"""
