"""The graph model: what the explorer knows about a graph, as plain data with stable ids.

Ids come from walk order (`n0`, `n1`, ... for nodes, `e0`, ... for edges), never from `id()`, so
the same graph gives the same ids, the same DOT text and the same notebook outputs every run.
Everything else (drawing, frames, widgets) reads this model; nothing here knows about Graphviz.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

# kind -> how the summary line names it (in this order)
KIND_NAMES = {
    "tensor": "non-leaf tensor",
    "leaf": "leaf requiring grad",
    "constant": "constant leaf",
    "backward": "backward node",
    "accumulate": "AccumulateGrad",
    "saved": "saved tensor",
}

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
    module: str | None = None  # qualified module name that created it ("" = the root module)

    def title(self) -> str:
        """What the node is called in the picture and in the player's panel."""
        if self.kind == "saved":
            return f"saved {self.name}"
        if self.kind == "leaf" and not self.name:
            return "leaf"
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

    def add_node(self, kind: str, name: str, **attrs) -> GNode:
        node = GNode(f"n{len(self.nodes)}", kind, name, **attrs)
        self.nodes[node.id] = node
        return node

    def add_edge(self, source: str, target: str, kind: str, slot: int = 0) -> GEdge:
        edge = GEdge(f"e{len(self.edges)}", source, target, kind, slot)
        self.edges[edge.id] = edge
        return edge

    def counts(self) -> dict[str, int]:
        """Node counts by kind, in KIND_NAMES order, zero counts left out."""
        found = Counter(n.kind for n in self.nodes.values())
        return {kind: found[kind] for kind in KIND_NAMES if found[kind]}

    def summary(self) -> str:
        """`9 nodes, 8 edges: 1 non-leaf tensor, 2 leaves requiring grad, ...` (deterministic)."""
        parts = [f"{n} {_plural(KIND_NAMES[k], n)}" for k, n in self.counts().items()]
        head = (
            f"{len(self.nodes)} {_plural('node', len(self.nodes))}, "
            f"{len(self.edges)} {_plural('edge', len(self.edges))}"
        )
        return head + (": " + ", ".join(parts) if parts else "")


def _plural(word: str, n: int) -> str:
    if n == 1 or word == "AccumulateGrad":
        return word
    if word.startswith("leaf"):
        return "leaves" + word[4:]
    if word.startswith("constant leaf"):
        return "constant leaves"
    return word + "s"
