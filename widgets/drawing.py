"""What to draw: the graph model with some modules collapsed into boxes and others as clusters.

A collapsed module becomes one box (`m<k>`, k = the module's place in `named_modules()` order);
edges that enter or leave it merge into `x<k>` edges; edges inside it disappear. `alias` maps each
model id that is not drawn to the element that stands for it, so frames (which only know model ids)
still light up the right box. Expanded modules that own nodes are drawn as clusters.

A graph too big to lay out (more than `limit` elements) is cut down, never refused: with module
information, `auto_collapse` picks the module level to collapse; whatever is still too much (or
any graph without modules) keeps the elements nearest the roots (walk order is breadth first from
the roots) and stands the rest in for by one `more` box, "+N more nodes".
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from .model import GEdge, GNode, Graph
from .texts import say

MORE = "more"  # element id of the box standing for the nodes past the size limit
RUNNABLE = ("backward", "accumulate")  # kinds the engine runs: the nodes frames mark done


@dataclass
class Box:
    """A collapsed module (or the `more` box): one node standing for all nodes it holds."""

    id: str
    path: str | None  # the module's path; None for the `more` box
    cls: str
    members: list[str] = field(default_factory=list)  # model node ids inside, in walk order

    @property
    def size(self) -> int:
        return len(self.members)

    def title(self, lang: str | None = None) -> str:
        if self.path is None:
            return say("box.more_title", lang, n=self.size)
        return f"{self.path or say('graph.model', lang)} ({self.cls})"


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
    titles: dict[str, str] = field(default_factory=dict)  # model and box ids -> display name

    @property
    def size(self) -> int:
        return len(self.nodes) + len(self.boxes)

    @property
    def more(self) -> Box | None:
        """The box of nodes cut for size, if any."""
        return next((b for b in self.boxes if b.id == MORE), None)

    def top_clusters(self) -> list[Cluster]:
        nested = {c for cl in self.clusters.values() for c in cl.children}
        return [cl for path, cl in self.clusters.items() if path not in nested]

    def box_members(self, graph: Graph) -> dict[str, list[str]]:
        """Box id -> the nodes inside it that the engine runs (what frames mark done)."""
        return {
            box.id: [m for m in box.members if graph.nodes[m].kind in RUNNABLE]
            for box in self.boxes
        }


def module_ids(classes: Mapping[str, str]) -> dict[str, str]:
    """Stable element id of each module, by its place in `named_modules()` order."""
    return {path: f"m{i}" for i, path in enumerate(classes)}


def _prefixes(path: str) -> list[str]:
    """ "" , "a", "a.b" for "a.b": outermost first."""
    parts = path.split(".") if path else []
    return [""] + [".".join(parts[: i + 1]) for i in range(len(parts))]


def _depth(path: str) -> int:
    return path.count(".") + 1 if path else 0


def auto_collapse(graph: Graph, classes: Mapping[str, str], limit: int) -> set[str] | None:
    """Modules to collapse so that at most `limit` elements are drawn: every module of the
    deepest level that fits (collapsing no more than needed), else of the level that draws the
    fewest elements (the rest is then cut, see `plan`). None when the whole graph fits, or when
    no module made a backward node (only parameter names are known: boxes of parameters alone
    would each be joined to hundreds of nodes, which takes the layout minutes)."""
    if len(graph.nodes) <= limit:
        return None
    if not any(n.module is not None and n.kind == "backward" for n in graph.nodes.values()):
        return None
    used = [n.module for n in graph.nodes.values()]
    deepest = max((_depth(m) for m in used if m is not None), default=-1)
    sizes = {}
    for level in range(deepest, -1, -1):
        boxes, drawn = set(), 0
        for m in used:
            if m is None or _depth(m) < level:
                drawn += 1
            else:
                boxes.add(_prefixes(m)[level])
        sizes[level] = (drawn + len(boxes), boxes)
        if drawn + len(boxes) <= limit:
            return boxes
    if not sizes:
        return None
    return min(sizes.values(), key=lambda s: s[0])[1]


def plan(
    graph: Graph,
    classes: Mapping[str, str] | None = None,
    collapsed: Collection[str] = (),
    limit: float = math.inf,
    lang: str | None = None,
) -> Drawing:
    """Lay out which elements exist; `classes` maps module paths to class names (or None)."""
    classes = classes or {}
    ids = module_ids(classes)
    collapsed = set(collapsed)
    owner: dict[str, str] = {}  # node id -> drawn element id
    boxes: dict[str, Box] = {}
    for node in graph.nodes.values():
        path = _outermost_collapsed(node.module, collapsed)
        if path is None:
            owner[node.id] = node.id
            continue
        box = boxes.get(path)
        if box is None:
            box = boxes[path] = Box(ids[path], path, classes[path])
        box.members.append(node.id)
        owner[node.id] = box.id
    ordered = [boxes[p] for p in classes if p in boxes]  # named_modules() order
    if len(set(owner.values())) > limit:
        ordered = _cut(graph, owner, ordered, int(limit))
    return _drawing(graph, classes, ids, owner, ordered, lang)


def _cut(graph: Graph, owner: dict[str, str], boxes: list[Box], limit: int) -> list[Box]:
    """Keep the `limit - 1` elements nearest the roots; the `more` box holds the rest."""
    first: dict[str, int] = {}  # element -> walk index of its first node
    for i, nid in enumerate(graph.nodes):
        first.setdefault(owner[nid], i)
    kept = set(sorted(first, key=first.__getitem__)[: max(limit - 1, 0)])
    more = Box(MORE, None, "")
    for nid in graph.nodes:
        if owner[nid] not in kept:
            owner[nid] = MORE
            more.members.append(nid)
    return [b for b in boxes if b.id in kept] + [more]


def _drawing(
    graph: Graph,
    classes: Mapping[str, str],
    ids: Mapping[str, str],
    owner: dict[str, str],
    boxes: list[Box],
    lang: str | None,
) -> Drawing:
    shown = [n for n in graph.nodes.values() if owner[n.id] == n.id]
    drawing = Drawing(shown, [], boxes)
    drawing.alias = {nid: el for nid, el in owner.items() if nid != el}
    titles = graph.titles(lang)
    drawing.titles = {**titles, **{box.id: box.title(lang) for box in boxes}}
    _merge_edges(graph, owner, drawing)
    _add_clusters(shown, drawing, classes, ids)
    for box in boxes:  # a box inside an expanded module sits in that module's cluster
        parent = _parent_cluster(box.path, drawing.clusters) if box.path is not None else None
        if parent is not None:
            drawing.clusters[parent].node_ids.append(box.id)
    return drawing


def _outermost_collapsed(path: str | None, collapsed: set[str]) -> str | None:
    if path is None or not collapsed:
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
        if node.module and node.module in classes:
            for path in _prefixes(node.module)[1:]:
                drawing.clusters.setdefault(path, Cluster(ids[path], path, classes[path]))
            drawing.clusters[node.module].node_ids.append(node.id)
    children = defaultdict(list)
    for path in drawing.clusters:
        parent = _parent_cluster(path, drawing.clusters)
        if parent is not None:
            children[parent].append(path)
    for parent, paths in children.items():
        drawing.clusters[parent].children.extend(paths)


def _parent_cluster(path: str, clusters: Mapping[str, Cluster]) -> str | None:
    return next((p for p in reversed(_prefixes(path)[1:-1]) if p in clusters), None)
