"""What a hover on a node says: its name, kind, shape and dtype, its values, what it saved.

One plain-text tooltip per drawn node (model id -> text, lines joined by newlines), written in
the player's language. The player sets it as the text of the node's SVG `<title>` (textContent:
no name can become markup) and adds what changes as it plays (the `.grad` written so far, a
forward-mode tangent).
"""

from __future__ import annotations

from collections import defaultdict

from .drawing import Drawing
from .labels import format_shape
from .model import GNode, Graph
from .texts import say


def shape_line(node: GNode, lang: str | None) -> str | None:
    """`shape [2, 3]`, `shape [] (a scalar)`, with the dtype when known; None without a shape."""
    if node.shape is None:
        return None
    key = "tip.scalar" if len(node.shape) == 0 else "tip.shape"
    line = say(key, lang, shape=format_shape(node.shape))
    if node.kind == "backward":
        line = say("tip.shape_backward", lang, shape=format_shape(node.shape))
    if node.dtype:
        line += say("tip.dtype", lang, dtype=node.dtype)
    return line


def node_tips(graph: Graph, drawing: Drawing, lang: str | None = None) -> dict[str, str]:
    """Model id -> hover text of every node drawn (boxes have their own tooltips)."""
    titles = drawing.titles
    saved_of: dict[str, list[str]] = defaultdict(list)  # backward node -> its saved tensors
    saver: dict[str, str] = {}  # saved tensor -> the node that saved it
    leaf_of: dict[str, str] = {}  # AccumulateGrad -> its leaf
    for edge in graph.edges.values():
        if edge.kind == "saved":
            saved_of[edge.target].append(graph.nodes[edge.source].name)
            saver[edge.source] = edge.target
        elif edge.kind == "accumulate":
            leaf_of[edge.source] = edge.target
    tips = {}
    for node in drawing.nodes:
        lines = [titles.get(node.id, node.name), say(f"kind.{node.kind}", lang)]
        shape = shape_line(node, lang)
        if shape:
            lines.append(shape)
        elif node.hooked:
            lines.append(say("tip.hooked", lang))
        if node.values is not None:
            lines.append(say("tip.values", lang, values=node.values))
        if node.grad is not None:
            lines.append(say("tip.grad", lang, grad=node.grad))
        if saved_of.get(node.id):
            lines.append(say("tip.saved", lang, names=", ".join(saved_of[node.id])))
        if node.id in saver:
            lines.append(say("tip.saved_by", lang, node=titles.get(saver[node.id], "?")))
        if node.id in leaf_of:
            lines.append(say("tip.writes", lang, leaf=titles.get(leaf_of[node.id], "?")))
        if node.freed:
            lines.append(say("tip.freed", lang))
        if node.module:
            lines.append(say("tip.module", lang, path=node.module))
        tips[node.id] = "\n".join(lines)
    return tips
