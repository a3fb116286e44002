"""What to draw: the graph model with some modules collapsed into boxes and others as clusters.

A collapsed module becomes one box (`m<k>`, k = the module's place in `named_modules()` order);
edges that enter or leave it merge into `x<k>` edges; edges inside it disappear. `alias` maps each
model id that is not drawn to the element that stands for it, so frames (which only know model ids)
still light up the right box. Expanded modules that own nodes are drawn as clusters.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .model import GEdge, GNode, Graph


@dataclass
class Box:
    """A collapsed module: one node standing for all nodes it created."""

    id: str
    path: str
    cls: str
    size: int


@dataclass
class Cluster:
    """An expanded module: a labelled frame around its nodes and nested clusters."""

    id: str
    path: str
    cls: str
    node_ids: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)  # paths of nested clusters


@dataclass
class Drawing:
    """Everything the DOT writer needs, in a stable order."""

    nodes: list[GNode]
    edges: list[GEdge]
    boxes: list[Box] = field(default_factory=list)
    clusters: dict[str, Cluster] = field(default_factory=dict)
    alias: dict[str, str] = field(default_factory=dict)

    @property
    def size(self) -> int:
        return len(self.nodes) + len(self.boxes)

    def top_clusters(self) -> list[Cluster]:
        nested = {c for cl in self.clusters.values() for c in cl.children}
        return [cl for path, cl in self.clusters.items() if path not in nested]


def module_ids(classes: Mapping[str, str]) -> dict[str, str]:
    """Stable element id of each module, by its place in `named_modules()` order."""
    return {path: f"m{i}" for i, path in enumerate(classes)}


def _prefixes(path: str) -> list[str]:
    """ "" , "a", "a.b" for "a.b": outermost first."""
    parts = path.split(".") if path else []
    return [""] + [".".join(parts[: i + 1]) for i in range(len(parts))]


def plan(
    graph: Graph, classes: Mapping[str, str] | None = None, collapsed: Collection[str] = ()
) -> Drawing:
    """Lay out which elements exist; `classes` maps module paths to class names (or None)."""
    if not classes:
        return Drawing(list(graph.nodes.values()), list(graph.edges.values()))
    ids = module_ids(classes)
    collapsed = set(collapsed)
    owner: dict[str, str] = {}  # node id -> drawn element id
    box_size: Counter = Counter()
    shown: list[GNode] = []
    for node in graph.nodes.values():
        box = _outermost_collapsed(node.module, collapsed)
        if box is None:
            owner[node.id] = node.id
            shown.append(node)
        else:
            owner[node.id] = ids[box]
            box_size[box] += 1
    drawing = Drawing(shown, [])
    drawing.boxes = [Box(ids[p], p, classes[p], box_size[p]) for p in classes if box_size[p]]
    drawing.alias = {nid: el for nid, el in owner.items() if nid != el}
    _merge_edges(graph, owner, drawing)
    _add_clusters(shown, drawing, classes, ids)
    for box in drawing.boxes:  # a box inside an expanded module sits in that module's cluster
        parent = _parent_cluster(box.path, drawing.clusters)
        if parent is not None:
            drawing.clusters[parent].node_ids.append(box.id)
    return drawing


def _outermost_collapsed(path: str | None, collapsed: set[str]) -> str | None:
    if path is None:
        return None
    return next((p for p in _prefixes(path) if p in collapsed), None)


def _merge_edges(graph: Graph, owner: dict[str, str], drawing: Drawing) -> None:
    merged: dict[tuple[str, str, str], GEdge] = {}
    for edge in graph.edges.values():
        source, target = owner[edge.source], owner[edge.target]
        if source == edge.source and target == edge.target:
            drawing.edges.append(edge)
        elif source == target:
            drawing.alias[edge.id] = source  # inside a box: the box stands for it
        else:
            key = (source, target, edge.kind)
            if key not in merged:
                merged[key] = GEdge(f"x{len(merged)}", source, target, edge.kind, edge.slot)
                drawing.edges.append(merged[key])
            drawing.alias[edge.id] = merged[key].id


def _add_clusters(
    shown: list[GNode], drawing: Drawing, classes: Mapping[str, str], ids: Mapping[str, str]
) -> None:
    """A cluster for every non-root module that owns a drawn node, nested like the modules."""
    for node in shown:
        if node.module:
            for path in _prefixes(node.module)[1:]:
                drawing.clusters.setdefault(path, Cluster(ids[path], path, classes[path]))
            drawing.clusters[node.module].node_ids.append(node.id)
    for path, cluster in drawing.clusters.items():
        parent = _parent_cluster(path, drawing.clusters)
        if parent is not None:
            drawing.clusters[parent].children.append(cluster.path)


def _parent_cluster(path: str, clusters: Mapping[str, Cluster]) -> str | None:
    return next((p for p in reversed(_prefixes(path)[1:-1]) if p in clusters), None)
