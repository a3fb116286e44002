"""The static view: a graph drawn once, shown without JavaScript anywhere a notebook is rendered.

`GraphView` is what `draw_graph` returns. Its `text/plain` is the deterministic summary line that
nbval compares; its `text/html` is a caption, the picture as an `<img>` holding the SVG as a data
URI, and a legend of the kinds drawn. An image, not inline SVG: JupyterLab strips `<svg>` (and
`<style>`) out of the HTML of a notebook it does not trust (every notebook opened fresh), and
keeps images and inline style attributes; nbconvert's HTML shows it too, and an SVG image runs
no script. A graph too big to lay out whole is drawn smaller (drawing.py says how); a layout
failure becomes a readable message in the output, not a traceback.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, Any

from .dot import legend_html, to_dot
from .drawing import Drawing, auto_collapse, module_ids, plan
from .labels import escape_html
from .language import resolve
from .model import Graph
from .svg import LayoutError, layout_svg
from .texts import say
from .tips import node_tips

if TYPE_CHECKING:
    from .walk import GraphBuilder

# the layout (with the fast settings of dot.py) takes ~0.3-0.8 s here at 1,500 drawn nodes and
# grows faster than linearly: past this, modules are collapsed (or the far part cut) automatically
MAX_NODES = 1500
LISTED = 5  # collapsed modules named in a summary before "and N more"
# a picture's box never grows wider than the column it sits in, not even as an item of a row of
# pictures (a flex item's minimum width is its content's by default): a wide picture scrolls
STATIC_BOX = "min-width:0;max-width:100%"


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


def natural_key(path: str) -> list:
    """`layers.2` before `layers.10`: numbers compare as numbers."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", path) if p]


def short_list(names: Collection[str], listed: int = LISTED, lang: str | None = None) -> str:
    """`a, b, c, d, e and 7 more`, in natural order (the root module is `(model)`)."""
    ordered = [n or say("graph.model", lang) for n in sorted(names, key=natural_key)]
    sep = say("list.sep", lang)
    rest = len(ordered) - listed
    if rest <= 1:  # "and 1 more" is no shorter than the name itself
        return sep.join(ordered)
    return say("list.more", lang, names=sep.join(ordered[:listed]), n=rest)


class GraphView:
    """A drawn graph: summary, DOT source, SVG; displays itself in notebooks.

    max_nodes: the most elements drawn; a bigger graph has its modules collapsed automatically
               (when `collapse` is not given) and whatever is still too much cut (drawing.py).
    legend:    show the legend of node kinds below the picture.
    builder:   the GraphBuilder the graph came from, so `title` also accepts tensors and nodes.
    lang:      the language of its words ("en" or "zh"; None: widgets.set_language's choice).
    """

    def __init__(
        self,
        graph: Graph,
        *,
        classes: Mapping[str, str] | None = None,
        collapse: bool | Collection[str] | None = None,
        legend: bool = True,
        max_nodes: int = MAX_NODES,
        rankdir: str = "TB",
        builder: GraphBuilder | None = None,
        lang: str | None = None,
    ) -> None:
        self.lang = resolve(lang)
        self.graph = graph
        self.classes = dict(classes or {})
        self.collapsed = collapsed_paths(self.classes, collapse, graph)
        self.auto = False  # whether the collapsed modules were chosen for size
        if collapse is None and self.classes:
            chosen = auto_collapse(graph, self.classes, max_nodes)
            if chosen:
                self.collapsed, self.auto = chosen, True
        self.legend = legend
        self.max_nodes = max_nodes
        self.rankdir = rankdir
        self.builder = builder
        self._drawings: dict[frozenset, Drawing] = {}  # per set of collapsed modules
        self._sources: dict[frozenset, str] = {}
        self._tips: dict[frozenset, dict[str, str]] = {}

    def toggle(self, module_id: str) -> None:
        """Collapse an expanded module or expand a collapsed one, by its element id (`m<k>`).

        A module too big to open whole opens one level: its submodules stay collapsed.
        """
        path = next((p for p, i in self.ids().items() if i == module_id), None)
        if path is None:
            return
        if path not in self.collapsed:
            self.collapsed.add(path)
            return
        self.collapsed.discard(path)
        if self.drawing().more is not None:
            inner = {n.module for n in self.graph.nodes.values() if n.module}
            prefix = f"{path}." if path else ""
            self.collapsed |= {
                p
                for p in self.classes
                if p.startswith(prefix)
                and p != path
                and "." not in p[len(prefix) :]
                and any(u == p or u.startswith(p + ".") for u in inner)
            }

    def ids(self) -> dict[str, str]:
        """Module path -> element id of its box or cluster."""
        return module_ids(self.classes)

    def drawing(self) -> Drawing:
        """What is drawn with the current collapsed modules (computed once per choice)."""
        key = frozenset(self.collapsed)
        if key not in self._drawings:
            self._drawings[key] = plan(
                self.graph, self.classes, self.collapsed, self.max_nodes, self.lang
            )
        return self._drawings[key]

    def title(self, obj: Any) -> str:
        """THE name of a node, tensor or model id, as the picture and the player show it
        (e.g. `MulBackward0 #3`); a tensor that is not drawn is named by its grad_fn."""
        nid = obj if isinstance(obj, str) else None
        if nid is None and self.builder is not None:
            nid = self.builder.model_id(obj)
        titles = self.drawing().titles
        if nid not in titles:
            raise KeyError(f"{obj!r} is not part of this graph")
        return titles[nid]

    def tips(self) -> dict[str, str]:
        """Model id -> what a hover on that drawn node says (tips.py), in this view's language."""
        key = frozenset(self.collapsed)
        if key not in self._tips:
            self._tips[key] = node_tips(self.graph, self.drawing(), self.lang)
        return self._tips[key]

    def summary(self) -> str:
        """The graph's node counts by kind, plus what is collapsed or cut (deterministic)."""
        text = self.graph.summary(self.lang)
        if self.collapsed:
            how = "graph.collapsed_auto" if self.auto else "graph.collapsed"
            text += say(how, self.lang, names=short_list(self.collapsed, lang=self.lang))
        more = self.drawing().more
        if more is not None:
            text += say("graph.cut", self.lang, k=self.drawing().size - 1, n=more.size)
        return text

    def source(self) -> str:
        """DOT text (written once per set of collapsed modules)."""
        key = frozenset(self.collapsed)
        if key not in self._sources:  # writing DOT for 2,000 nodes takes ~0.15 s: once
            self._sources[key] = to_dot(self.drawing(), rankdir=self.rankdir, lang=self.lang)
        return self._sources[key]

    def svg(self) -> str:
        """The laid-out picture (raises LayoutError)."""
        return layout_svg(self.source())

    def __repr__(self) -> str:
        return f"GraphView({self.summary()})"

    def picture_html(self) -> str:
        """The picture as an SVG image and its legend, or the reason there is no picture."""
        try:
            svg = self.svg()
        except LayoutError as err:
            return f'<pre class="mg-message">{escape_html(str(err))}</pre>'
        legend = legend_html(self.drawing(), self.lang) if self.legend else ""
        return svg_image(svg, alt=say("graph.alt", self.lang, summary=self.summary())) + legend

    def html(self, caption: str = "") -> str:
        """HTML showing the picture (or the reason there is none) under a caption line."""
        head = escape_html(caption or self.summary())
        return (
            f'<div class="mg-static" style="{STATIC_BOX}"><div class="mg-caption">{head}</div>'
            f"{self.picture_html()}</div>"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self.html()}


def svg_image(svg: str, alt: str) -> str:
    """An `<img>` showing `svg` from a data URI (base64: no character of it needs escaping), at
    its own size (labels stay readable) in a box that scrolls when the picture is bigger: wider
    than the column, or taller than every lesson's pictures (1000 px: none is cut off)."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (
        '<div class="mg-scroll" style="overflow:auto;max-width:100%;max-height:1000px">'
        f'<img class="mg-picture" alt="{escape_html(alt)}" style="max-width:none;height:auto" '
        f'src="data:image/svg+xml;base64,{data}"></div>'
    )
