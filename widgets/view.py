"""The static view: a graph drawn once, shown without JavaScript anywhere a notebook is rendered.

`GraphView` is what `draw_graph` returns. Its `text/plain` is the deterministic summary line that
nbval compares; its `text/html` is a caption and the picture as an `<img>` holding the SVG as a
data URI. An image, not inline SVG: JupyterLab strips `<svg>` out of the HTML of a notebook it does
not trust (every notebook opened fresh), and keeps images; nbconvert's HTML shows it too, and an
SVG image runs no script. Size limits and layout failures become a readable message in the
output, not a traceback.
"""

from __future__ import annotations

import base64
from collections.abc import Collection, Mapping
from typing import Any

from .dot import to_dot
from .drawing import Drawing, module_ids, plan
from .labels import escape_html
from .model import Graph
from .svg import LayoutError, layout_svg

# the layout (with the fast settings of dot.py) takes ~0.9 s here at 2,000 nodes, ~2 s at 3,000,
# and grows faster than linearly: past this, a message instead of a page that seems to hang
MAX_NODES = 3000


class GraphTooLargeError(ValueError):
    """Raised instead of handing the layout a graph it would take minutes to lay out."""


def collapsed_paths(
    classes: Mapping[str, str] | None, collapse: bool | Collection[str] | None, graph: Graph
) -> set[str]:
    """`collapse=True`: every top-level submodule that created nodes; a collection: those paths."""
    if not collapse:
        return set()
    if not classes:
        raise ValueError(
            "collapse needs to know which module made which node: record the "
            "forward pass with record_forward(module=...) and draw from its trace"
        )
    if collapse is True:
        used = {n.module for n in graph.nodes.values() if n.module}
        return {
            p
            for p in classes
            if p and "." not in p and any(u == p or u.startswith(p + ".") for u in used)
        }
    unknown = sorted(set(collapse) - set(classes))
    if unknown:
        raise ValueError(f"no such module to collapse: {', '.join(unknown)}")
    return set(collapse)


class GraphView:
    """A drawn graph: summary, DOT source, SVG; displays itself in notebooks."""

    def __init__(
        self,
        graph: Graph,
        *,
        classes: Mapping[str, str] | None = None,
        collapse: bool | Collection[str] | None = None,
        legend: bool = True,
        max_nodes: int = MAX_NODES,
        rankdir: str = "TB",
    ) -> None:
        self.graph = graph
        self.classes = dict(classes or {})
        self.collapsed = collapsed_paths(self.classes, collapse, graph)
        self.legend = legend
        self.max_nodes = max_nodes
        self.rankdir = rankdir
        self._drawings: dict[frozenset, Drawing] = {}  # per set of collapsed modules
        self._sources: dict[frozenset, str] = {}

    def toggle(self, module_id: str) -> None:
        """Collapse an expanded module or expand a collapsed one, by its element id (`m<k>`)."""
        path = next((p for p, i in self.ids().items() if i == module_id), None)
        if path is None:
            return
        if path in self.collapsed:
            self.collapsed.discard(path)
        else:
            self.collapsed.add(path)

    def ids(self) -> dict[str, str]:
        """Module path -> element id of its box or cluster."""
        return module_ids(self.classes)

    def drawing(self) -> Drawing:
        """What is drawn with the current collapsed modules (computed once per choice)."""
        key = frozenset(self.collapsed)
        if key not in self._drawings:
            self._drawings[key] = plan(self.graph, self.classes, self.collapsed)
        return self._drawings[key]

    def summary(self) -> str:
        """The graph's node counts by kind, plus what is collapsed (deterministic)."""
        text = self.graph.summary()
        if self.collapsed:
            text += f"; collapsed: {', '.join(sorted(self.collapsed))}"
        return text

    def source(self) -> str:
        """DOT text, after the size check."""
        drawing = self.drawing()
        if drawing.size > self.max_nodes:
            raise GraphTooLargeError(
                f"This graph has {drawing.size:,} nodes to draw, more than the limit of "
                f"{self.max_nodes:,}, so it is not drawn (laying it out could freeze the page). "
                "Collapse modules (collapse=True, with a forward recorded by "
                "record_forward(module=...)), draw a smaller part (an intermediate tensor), or "
                "raise max_nodes=."
            )
        key = frozenset(self.collapsed)
        if key not in self._sources:  # writing DOT for 2,000 nodes takes ~0.15 s: once
            self._sources[key] = to_dot(drawing, legend=self.legend, rankdir=self.rankdir)
        return self._sources[key]

    def svg(self) -> str:
        """The laid-out picture (raises GraphTooLargeError or LayoutError)."""
        return layout_svg(self.source())

    def __repr__(self) -> str:
        return f"GraphView({self.summary()})"

    def picture_html(self) -> str:
        """The picture as an SVG image, or the reason there is none."""
        try:
            svg = self.svg()
        except (GraphTooLargeError, LayoutError) as err:
            return f'<pre class="mg-message">{escape_html(str(err))}</pre>'
        return svg_image(svg, alt=f"graph: {self.summary()}")

    def html(self, caption: str = "") -> str:
        """HTML showing the picture (or the reason there is none) under a caption line."""
        head = escape_html(caption or self.summary())
        return (
            f'<div class="mg-static"><div class="mg-caption">{head}</div>'
            f"{self.picture_html()}</div>"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self.html()}


def svg_image(svg: str, alt: str) -> str:
    """An `<img>` showing `svg` from a data URI (base64: no character of it needs escaping)."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        f'<img class="mg-picture" alt="{escape_html(alt)}" style="max-width:100%;height:auto" '
        f'src="data:image/svg+xml;base64,{data}">'
    )
