"""The DOT text for a Drawing: one look per kind, a legend, model ids as SVG element ids.

Every node and edge gets `id=<model id>`, which Graphviz copies onto the SVG `<g>` element, and a
`class` naming its kind; the player finds elements by those ids and animates them by class alone.
"""

from __future__ import annotations

import graphviz

from .drawing import Box, Drawing
from .labels import escape_attr, escape_html, format_shape, html_label
from .model import KIND_NAMES, GNode

# fill colour, shape and style of each kind (torchviz's colours where it has the kind)
NODE_STYLE = {
    "tensor": dict(fillcolor="#caff70", shape="box", style="filled"),
    "leaf": dict(fillcolor="#add8e6", shape="box", style="filled"),
    "constant": dict(fillcolor="#f2f2f2", shape="box", style="filled,dashed", color="#888888"),
    "backward": dict(fillcolor="#e8e8e8", shape="box", style="filled,rounded"),
    "accumulate": dict(fillcolor="#d9d2e9", shape="box", style="filled,rounded"),
    "saved": dict(fillcolor="#ffcc99", shape="note", style="filled"),
    "module": dict(fillcolor="#fff2cc", shape="box3d", style="filled"),
}
EDGE_STYLE = {
    "grad": {},
    "output": dict(style="bold", color="#4f7f1f"),
    "accumulate": dict(color="#6a51a3"),
    "saved": dict(style="dotted", arrowhead="none", color="#c87f2a"),
    "constant": dict(style="dashed", color="#aaaaaa", arrowhead="none"),
}
FAST_LAYOUT = 400  # above this many drawn nodes, trade some crossings for speed
FAST_ATTRS = dict(
    newrank="true", nslimit="2", nslimit1="2", mclimit="0.2", searchsize="20", remincross="false"
)


def node_lines(node: GNode) -> list[str]:
    """The detail lines under a node's title."""
    lines = []
    if node.kind not in ("backward", "accumulate") or node.shape is not None:
        lines.append(format_shape(node.shape))
    if node.values is not None:
        lines.append(f"= {node.values}")
    if node.grad is not None:
        lines.append(f".grad {node.grad}")
    if node.freed:
        lines.append("freed")
    return lines


def to_dot(drawing: Drawing, *, legend: bool = True, rankdir: str = "TB") -> graphviz.Digraph:
    """The Digraph for a Drawing (no layout yet)."""
    attrs = dict(rankdir=rankdir, nodesep="0.25", ranksep="0.35", bgcolor="transparent")
    if drawing.size > FAST_LAYOUT:
        attrs.update(FAST_ATTRS)
    g = graphviz.Digraph(
        graph_attr=attrs,
        node_attr=dict(
            fontname="Helvetica", fontsize="11", height="0.3", margin="0.08,0.04", penwidth="1.2"
        ),
        edge_attr=dict(arrowsize="0.6", penwidth="1.2"),
    )
    clustered = {nid for cl in drawing.clusters.values() for nid in cl.node_ids}
    for node in drawing.nodes:
        if node.id not in clustered:
            _node(g, node)
    boxes = {box.id: box for box in drawing.boxes}
    for box in drawing.boxes:
        if box.id not in clustered:
            _box(g, box)
    _clusters(g, drawing, boxes)
    for edge in drawing.edges:
        g.edge(
            edge.source,
            edge.target,
            id=edge.id,
            **{"class": f"mg-e-{edge.kind}"},
            **EDGE_STYLE[edge.kind],
        )
    if legend:
        _legend(g)
    return g


def _node(g: graphviz.Digraph, node: GNode) -> None:
    g.node(
        node.id,
        label=html_label(node.title(), node_lines(node)),
        id=node.id,
        **{"class": f"mg-n-{node.kind}" + (" mg-freed" if node.freed else "")},
        **NODE_STYLE[node.kind],
    )


def _box(g: graphviz.Digraph, box: Box) -> None:
    name = box.path or "(model)"
    g.node(
        box.id,
        label=html_label(f"{name} ({box.cls})", [f"{box.size} nodes inside"]),
        id=box.id,
        tooltip=escape_attr(f"{name}: a collapsed module (a player opens it)"),
        **{"class": "mg-n-module mg-box"},
        **NODE_STYLE["module"],
    )


def _clusters(g: graphviz.Digraph, drawing: Drawing, boxes: dict[str, Box]) -> None:
    """Nested clusters, deepest first, so each is complete before its parent takes it in."""
    nodes = {n.id: n for n in drawing.nodes}
    subs: dict[str, graphviz.Digraph] = {}
    for path in sorted(drawing.clusters, key=lambda p: p.count("."), reverse=True):
        cluster = drawing.clusters[path]
        sub = graphviz.Digraph(name=f"cluster_{cluster.id}")
        sub.attr(
            id=cluster.id,
            label=f"<{escape_html(path)} ({escape_html(cluster.cls)})>",
            style="rounded,dashed,filled",
            fillcolor="#fffdf3",
            color="#b59f3b",
            fontsize="10",
            fontname="Helvetica",
            tooltip=escape_attr(f"{path}: a player closes it on a click on the frame"),
            **{"class": "mg-cluster"},
        )
        for nid in cluster.node_ids:
            if nid in nodes:
                _node(sub, nodes[nid])
            else:
                _box(sub, boxes[nid])
        for child in cluster.children:
            sub.subgraph(subs[child])
        subs[path] = sub
    for cluster in drawing.top_clusters():
        g.subgraph(subs[cluster.path])


def _legend(g: graphviz.Digraph) -> None:
    cells = "".join(
        f'<td bgcolor="{NODE_STYLE[k]["fillcolor"]}" border="1">{escape_html(name)}</td>'
        for k, name in KIND_NAMES.items()
    )
    g.node(
        "legend",
        id="legend",
        shape="plaintext",
        fontsize="9",
        fontname="Helvetica",
        label=f'<<table border="0" cellspacing="2" cellpadding="2"><tr>{cells}</tr></table>>',
    )
