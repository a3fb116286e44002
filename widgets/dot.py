"""The DOT text for a Drawing: one look per kind, model ids as SVG element ids; the legend in HTML.

Every node and edge gets `id=<model id>`, which Graphviz copies onto the SVG `<g>` element, and a
`class` naming its kind; the player finds elements by those ids and animates them by class alone.
The text is written here rather than through a DOT library so that every piece of user text goes
through the escaping of labels.py and nothing else: ids, classes and styles are our own words.
The legend is not part of the drawing (it would widen it and shrink every label): `legend_html`
writes it as HTML for the static pictures; the player's front end writes its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .drawing import Box, Drawing
from .labels import escape_html, format_shape, html_label, label_text, quoted
from .model import GNode
from .texts import say

# fill colour, shape and style of each kind (torchviz's colours where it has the kind)
NODE_STYLE = {
    "tensor": dict(fillcolor="#caff70", shape="box", style="filled"),
    "leaf": dict(fillcolor="#add8e6", shape="box", style="filled"),
    "constant": dict(fillcolor="#f2f2f2", shape="box", style="filled,dashed", color="#888888"),
    "backward": dict(fillcolor="#e8e8e8", shape="box", style="filled,rounded"),
    "accumulate": dict(fillcolor="#d9d2e9", shape="box", style="filled,rounded"),
    "saved": dict(fillcolor="#ffcc99", shape="note", style="filled"),
    "module": dict(fillcolor="#fff2cc", shape="box3d", style="filled"),
    "more": dict(fillcolor="#ffffff", shape="box", style="filled,dashed,bold", color="#666666"),
}
# the legend's swatch of each kind: the fill, and a border that tells kinds apart without colour
LEGEND = {
    "tensor": "1px solid #333333",
    "leaf": "2px solid #333333",
    "constant": "1px dashed #888888",
    "backward": "1px solid #333333;border-radius:6px",
    "accumulate": "1px solid #6a51a3;border-radius:6px",
    "saved": "1px dotted #c87f2a",
    "module": "3px double #b59f3b",
    "more": "2px dashed #666666",
}
EDGE_STYLE = {
    "grad": {},
    "output": dict(style="bold", color="#4f7f1f"),
    "accumulate": dict(color="#6a51a3"),
    "saved": dict(style="dotted", arrowhead="none", color="#c87f2a"),
    "constant": dict(style="dashed", color="#aaaaaa", arrowhead="none"),
}
# the drawing sits on white paper in every theme: its colours are chosen for a light background
GRAPH_ATTRS = dict(rankdir="TB", nodesep="0.25", ranksep="0.35", bgcolor="white")
NODE_ATTRS = dict(
    fontname="Helvetica", fontsize="11", height="0.3", margin="0.08,0.04", penwidth="1.2"
)
EDGE_ATTRS = dict(arrowsize="0.6", penwidth="1.2")
FAST_LAYOUT = 400  # above this many drawn nodes, trade some crossings for speed
FAST_ATTRS = dict(
    newrank="true", nslimit="2", nslimit1="2", mclimit="0.2", searchsize="20", remincross="false"
)


def attr_list(attrs: Mapping[str, str]) -> str:
    """`[a="1", label=<...>]`. Values are our own words, or already escaped by labels.py: an
    HTML-like label (`<...>`) or a `quoted()` string is written as it is."""
    parts = []
    for key, value in attrs.items():
        if not (value.startswith("<") or value.startswith('"')):
            value = f'"{value}"'
        parts.append(f"{key}={value}")
    return "[" + ", ".join(parts) + "]"


# Graphviz sizes a label with Latin font metrics, which give a CJK character about half the
# width it is drawn with: a label with Chinese in it asks for the width it will take
WIDE = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]")


def wide_label_width(title: str, lines: Sequence[str]) -> dict[str, str]:
    """`{"width": inches}` for a node label holding CJK text (bold 11 pt title, 9 pt lines), else
    nothing (Graphviz's own measure is right for Latin text)."""
    if not any(WIDE.search(text) for text in (title, *lines)):
        return {}

    def points(text: str, size: float) -> float:
        wide = len(WIDE.findall(text))
        return (wide + 0.62 * (len(text) - wide)) * size

    need = max([points(title, 11), *(points(line, 9) for line in lines)])
    return {"width": f"{need / 72 + 0.2:.2f}"}


def node_lines(node: GNode, lang: str | None = None) -> list[str]:
    """The detail lines under a node's title (the first is its shape: legend.shape says so)."""
    lines = []
    if node.hooked and node.shape is None:
        lines.append(say("node.hooked", lang))
    elif node.kind not in ("backward", "accumulate") or node.shape is not None:
        lines.append(format_shape(node.shape))
    if node.values is not None:
        lines.append(f"= {node.values}")
    if node.grad is not None:
        lines.append(f".grad {node.grad}")
    if node.freed:
        lines.append(say("node.freed", lang))
    return lines


def to_dot(drawing: Drawing, *, rankdir: str = "TB", lang: str | None = None) -> str:
    """The DOT text for a Drawing (no layout yet); box labels and tooltips in `lang`."""
    graph = {**GRAPH_ATTRS, "rankdir": rankdir}
    if drawing.size > FAST_LAYOUT:
        graph.update(FAST_ATTRS)
    out = [
        "digraph {",
        f"graph {attr_list(graph)}",
        f"node {attr_list(NODE_ATTRS)}",
        f"edge {attr_list(EDGE_ATTRS)}",
    ]
    titles = drawing.titles
    clustered = {nid for cl in drawing.clusters.values() for nid in cl.node_ids}
    out += [
        _node(node, titles[node.id], lang) for node in drawing.nodes if node.id not in clustered
    ]
    boxes = {box.id: box for box in drawing.boxes}
    out += [_box(box, lang) for box in drawing.boxes if box.id not in clustered]
    out += _clusters(drawing, boxes, lang)
    for edge in drawing.edges:
        attrs = {"id": edge.id, "class": f"mg-e-{edge.kind}", **EDGE_STYLE[edge.kind]}
        out.append(f"{edge.source} -> {edge.target} {attr_list(attrs)}")
    out.append("}")
    return "\n".join(out) + "\n"


def _node(node: GNode, title: str, lang: str | None = None) -> str:
    lines = node_lines(node, lang)
    attrs = {
        "label": html_label(title, lines),
        "id": node.id,
        "class": f"mg-n-{node.kind}" + (" mg-freed" if node.freed else ""),
        **NODE_STYLE[node.kind],
        **wide_label_width(title, lines),
    }
    return f"{node.id} {attr_list(attrs)}"


def _box(box: Box, lang: str | None) -> str:
    if box.path is None:
        kind, tip = "more", say("box.more_tip", lang)
        lines = [say("box.more_line", lang)]
    else:
        path = box.path or say("graph.model", lang)
        kind, tip = "module", say("box.module_tip", lang, path=path)
        lines = [say("box.inside", lang, n=box.size)]
    title = box.title(lang)
    attrs = {
        "label": html_label(title, lines),
        "id": box.id,
        "tooltip": quoted(tip),
        "class": f"mg-n-{kind} mg-box",
        **NODE_STYLE[kind],
        **wide_label_width(title, lines),
    }
    return f"{box.id} {attr_list(attrs)}"


def _clusters(drawing: Drawing, boxes: dict[str, Box], lang: str | None) -> list[str]:
    """Nested clusters as DOT subgraphs, each holding its nodes and its child clusters."""
    nodes = {n.id: n for n in drawing.nodes}

    def write(path: str) -> list[str]:
        cluster = drawing.clusters[path]
        attrs = {
            "id": cluster.id,
            "label": f"<{label_text(path)} ({label_text(cluster.cls)})>",
            "style": "rounded,dashed,filled",
            "fillcolor": "#fffdf3",
            "color": "#b59f3b",
            "fontsize": "10",
            "fontname": "Helvetica",
            "tooltip": quoted(say("box.cluster_tip", lang, path=path)),
            "class": "mg-cluster",
        }
        lines = [f"subgraph cluster_{cluster.id} {{", f"graph {attr_list(attrs)}"]
        for nid in cluster.node_ids:
            lines.append(
                _node(nodes[nid], drawing.titles[nid], lang)
                if nid in nodes
                else _box(boxes[nid], lang)
            )
        for child in cluster.children:
            lines += write(child)
        return [*lines, "}"]

    return [line for cluster in drawing.top_clusters() for line in write(cluster.path)]


def legend_html(drawing: Drawing, lang: str | None = None) -> str:
    """The kinds drawn, as a row of swatches: HTML a notebook keeps even when it does not trust
    the output (no `<style>`, no `<svg>`: inline style attributes only). The swatches carry
    their own dark text on light fills, like the picture, so they read in any theme."""
    kinds = {n.kind for n in drawing.nodes} | {
        "module" if b.path is not None else "more" for b in drawing.boxes
    }
    items = "".join(
        f'<span class="mg-static-legend-item mg-n-{kind}" style="display:inline-block;'
        f"margin:2px 6px 2px 0;padding:1px 6px;font-size:12px;color:#000000;"
        f'background-color:{NODE_STYLE[kind]["fillcolor"]};border:{LEGEND[kind]}">'
        f"{escape_html(say(f'kind.{kind}', lang))}</span>"
        for kind in LEGEND
        if kind in kinds
    )
    shapes = (
        '<span class="mg-static-legend-item mg-shape-note" style="display:inline-block;'
        f'margin:2px 6px 2px 0;font-size:12px">{escape_html(say("legend.shape", lang))}</span>'
    )
    return f'<div class="mg-static-legend" style="margin-top:4px">{items}{shapes}</div>'
