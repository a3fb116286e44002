"""The graph model: what the explorer knows about a graph, as plain data with stable ids.

Ids come from walk order (`n0`, `n1`, ... for nodes, `e0`, ... for edges), never from `id()`, so
the same graph gives the same ids, the same DOT text and the same notebook outputs every run.
Everything else (drawing, frames, widgets) reads this model; nothing here knows about Graphviz.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .language import resolve
from .texts import say

# node kinds, in the order the summary line counts them (texts.py names each: `kind.<kind>`)
NODE_KINDS = ("tensor", "leaf", "constant", "backward", "accumulate", "saved")

# edge kinds: a gradient between backward nodes, a root tensor seeding its grad_fn, an
# AccumulateGrad writing its leaf's .grad, a saved tensor used by its node, a constant input
EDGE_KINDS = ("grad", "output", "accumulate", "saved", "constant")


@dataclass
class GNode:
    """One drawn thing. `name` is user text (escaped only when drawn)."""

    id: str
    kind: str
    name: str
    shape: tuple[int, ...] | None = None
    values: str | None = None  # formatted values of a small tensor
    grad: str | None = None  # formatted .grad of a small leaf at drawing time
    freed: bool = False  # a saved tensor already released by backward
    hooked: bool = False  # a saved tensor held by saved-tensor hooks, its shape unknown (torch)
    module: str | None = None  # qualified module name that created it ("" = the root module)
    placeholder: bool = False  # `name` only says what it is ("output", "constant"): translated
    seq: int | None = None  # a graph node's sequence number (creation order; AccumulateGrad's is
    # UINT64_MAX = 18446744073709551615, in torch and minigrad alike)
    dtype: str | None = None  # a tensor's (or an AccumulateGrad's leaf's) dtype: `float32`

    def title(self, lang: str | None = None) -> str:
        """The node's own name, before `Graph.titles` tells apart nodes that share it; what
        stands in for a missing name is in `lang` (`output`, 输出)."""
        if self.kind == "saved":
            return say("node.saved", lang, name=self.name)
        if self.kind == "leaf" and not self.name:
            return say("node.leaf", lang)
        if self.placeholder and self.name in ("output", "constant"):
            return say(f"node.{self.name}", lang)
        return self.name


@dataclass
class GEdge:
    """A directed edge in the direction gradients flow (saved tensors point at their node)."""

    id: str
    source: str
    target: str
    kind: str
    slot: int = 0


@dataclass
class Graph:
    """Nodes and edges in walk order."""

    nodes: dict[str, GNode] = field(default_factory=dict)
    edges: dict[str, GEdge] = field(default_factory=dict)
    _titles: tuple[tuple[int, int, str], dict[str, str]] = field(
        default=((-1, -1, ""), {}), repr=False, compare=False
    )

    def add_node(self, kind: str, name: str, **attrs) -> GNode:
        node = GNode(f"n{len(self.nodes)}", kind, name, **attrs)
        self.nodes[node.id] = node
        return node

    def add_edge(self, source: str, target: str, kind: str, slot: int = 0) -> GEdge:
        edge = GEdge(f"e{len(self.edges)}", source, target, kind, slot)
        self.edges[edge.id] = edge
        return edge

    def titles(self, lang: str | None = None) -> dict[str, str]:
        """Node id -> THE name of that node: in the picture, the player's panel, the step texts
        and the lessons. Names that several nodes share get `#k`: a backward node's k is its
        creation rank among the graph's backward nodes (0 = made first; the engine runs higher
        ranks first), another node's its place among the nodes of that name (1, 2, ...).
        AccumulateGrad is named after its leaf. Saved tensors keep `saved <name>`: each is drawn
        beside the node that saved it. Computed once per state of the graph (it only grows) and
        language (`lang`: how unnamed tensors and saved ones are called).
        """
        key = (len(self.nodes), len(self.edges), resolve(lang))
        if self._titles[0] != key:
            self._titles = (key, self._make_titles(key[2]))
        return self._titles[1]

    def _make_titles(self, lang: str) -> dict[str, str]:
        names: dict[str, str] = {}
        same: dict[str, list[str]] = defaultdict(list)
        for nid, node in self.nodes.items():
            if node.kind in ("tensor", "leaf", "constant"):
                same[node.title(lang)].append(nid)
            elif node.kind == "saved":
                names[nid] = node.title(lang)
        _numbered(same, names)
        backward = [n for n in self.nodes.values() if n.kind == "backward"]
        ranked = sorted(
            range(len(backward)),
            key=lambda i: (math.inf if backward[i].seq is None else backward[i].seq, i),
        )
        rank = {backward[i].id: r for r, i in enumerate(ranked)}
        shared = Counter(n.name for n in backward)
        for n in backward:
            names[n.id] = n.name if shared[n.name] == 1 else f"{n.name} #{rank[n.id]}"
        leaf_of = {e.source: e.target for e in self.edges.values() if e.kind == "accumulate"}
        same = defaultdict(list)
        for nid, node in self.nodes.items():
            if node.kind == "accumulate":
                leaf = leaf_of.get(nid)
                same[f"AccumulateGrad({names[leaf]})" if leaf else node.name].append(nid)
        _numbered(same, names)
        return {nid: names[nid] for nid in self.nodes}

    def counts(self) -> dict[str, int]:
        """Node counts by kind, in NODE_KINDS order, zero counts left out."""
        found = Counter(n.kind for n in self.nodes.values())
        return {kind: found[kind] for kind in NODE_KINDS if found[kind]}

    def summary(self, lang: str | None = None) -> str:
        """`9 nodes, 8 edges: 1 non-leaf tensor, 2 leaves requiring grad, ...` (deterministic);
        in Chinese `9 个节点，8 条边：1 个非叶子张量，2 个需要梯度的叶子……`."""
        lang = resolve(lang)
        english = lang == "en"

        def word(key: str, n: int) -> str:
            text = say(key, lang)
            if english:
                return _plural(text, n)
            return f" {text}" if text.isascii() else text  # 2 个 AccumulateGrad: spaced Latin

        parts = [
            say("graph.part", lang, n=n, word=word(f"kind.{k}", n))
            for k, n in self.counts().items()
        ]
        n_nodes, n_edges = len(self.nodes), len(self.edges)
        head = say(
            "graph.head",
            lang,
            nodes=n_nodes,
            nodes_word=_plural("node", n_nodes),
            edges=n_edges,
            edges_word=_plural("edge", n_edges),
        )
        sep = ", " if english else "，"
        return head + (say("graph.parts", lang, parts=sep.join(parts)) if parts else "")


def _numbered(same: dict[str, list[str]], names: dict[str, str]) -> None:
    """Name each group of ids sharing a title: alone as it is, else `title #1`, `title #2`..."""
    for title, ids in same.items():
        for k, nid in enumerate(ids, 1):
            names[nid] = title if len(ids) == 1 else f"{title} #{k}"


def _plural(word: str, n: int) -> str:
    if n == 1 or word == "AccumulateGrad":
        return word
    if word.startswith("leaf"):
        return "leaves" + word[4:]
    if word.startswith("constant leaf"):
        return "constant leaves"
    return word + "s"
