"""Which node of one recorded pass is which node of another, and how two steps' gradients compare.

Ranks in titles (`AddmmBackward0 #4`) shift as soon as one pass has an extra node, so nodes are
paired by these rules, in order, each on the nodes still unpaired:
  1. the same live object (two passes over one graph: retain_graph=True, hooks added between);
  2. the same kind, name, shape and path from the root (each node on the way by kind, name and the
     input slot it was reached through, as the explorer's walk first reached it), in walk order;
  3. the same kind, name and shape, in walk order (the k-th unpaired `AddmmBackward0 [4, 2]` of one
     pass with the k-th of the other).
A saved tensor is matched without its shape: torch no longer knows it once backward freed it.
What is left is in one pass only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .model import Graph

if TYPE_CHECKING:
    from .trace import record_backward


def _paths(graph: Graph) -> dict[str, tuple]:
    """Node id -> its path from a root, as the walk first reached it (rule 2 above)."""
    parent: dict[str, tuple[str, int]] = {}
    for e in graph.edges.values():
        src, dst = (e.target, e.source) if e.kind == "saved" else (e.source, e.target)
        if dst not in parent and dst != src:
            parent[dst] = (src, e.slot)
    paths: dict[str, tuple] = {}
    for nid in graph.nodes:
        chain, seen, cur = [], set(), nid
        while cur not in paths and cur not in seen:  # iterative: no recursion on deep graphs
            seen.add(cur)
            chain.append(cur)
            if cur not in parent:
                break
            cur = parent[cur][0]
        base = paths.get(cur, ())
        for n in reversed(chain):
            node = graph.nodes[n]
            slot = parent[n][1] if n in parent else 0
            base = paths[n] = (*base, (node.kind, node.name, slot))
    return paths


def _shape_key(graph: Graph, nid: str) -> tuple:
    """Kind, name and shape; a saved tensor without its shape (torch forgets it once freed)."""
    node = graph.nodes[nid]
    return (node.kind, node.name, None if node.kind == "saved" else node.shape)


def _objects(trace: record_backward) -> dict[Any, str]:
    """Live object -> model id, for rule 1 (nodes, tensors, saved tensors by (node, name))."""
    b = trace.builder
    return {**b.node_id, **b.tensor_id, **b.saved_id}


def match_nodes(a: record_backward, b: record_backward) -> dict[str, str]:
    """Model ids of `a`'s graph -> ids of the same nodes in `b`'s (the module docstring's rules)."""
    pairs: dict[str, str] = {}
    in_b = _objects(b)
    for obj, aid in _objects(a).items():
        bid = in_b.get(obj)
        if bid is not None:
            pairs[aid] = bid
    pa, pb = _paths(a.graph), _paths(b.graph)
    rules = (
        lambda g, p, n: (*_shape_key(g, n), p[n]),
        lambda g, p, n: _shape_key(g, n),
    )
    for rule in rules:
        taken = set(pairs.values())
        waiting: dict[tuple, list[str]] = defaultdict(list)
        for bid in b.graph.nodes:
            if bid not in taken:
                waiting[rule(b.graph, pb, bid)].append(bid)
        for aid in a.graph.nodes:
            queue = waiting.get(rule(a.graph, pa, aid)) if aid not in pairs else None
            if queue:
                pairs[aid] = queue.pop(0)
    return pairs


def gradients(rec: dict) -> list[Any]:
    """The gradients a record carries (what two aligned steps compare)."""
    kind = rec["kind"]
    if kind in ("edge", "capture"):
        return [rec.get("grad")]
    if kind in ("buffer_sum", "accumulate"):
        return [rec.get("after")]
    if kind == "node_start":
        return list(rec.get("grad_outputs") or [])
    if kind == "node_run":
        return list(rec.get("grad_inputs") or [])
    if kind == "hook":
        found = []
        for value in (rec.get("grad"), rec.get("returned")):
            found.extend(value if isinstance(value, list) else [value])
        return found
    if kind == "backward_end":
        return list(rec.get("results") or [])
    return []


def compare(ga: Sequence[Any], gb: Sequence[Any]) -> str:
    """`same` (bit for bit), `close` (np.allclose, not bit-identical) or `differs`."""
    if len(ga) != len(gb):
        return "differs"
    verdict = "same"
    for x, y in zip(ga, gb, strict=True):
        if x is None or y is None or isinstance(x, bool) or isinstance(y, bool):
            if x is not y and x != y:
                return "differs"
            continue
        x, y = np.asarray(x), np.asarray(y)
        if x.shape != y.shape:
            return "differs"
        if np.array_equal(x, y, equal_nan=True):
            continue
        if not np.allclose(x, y, equal_nan=True):
            return "differs"
        verdict = "close"
    return verdict
