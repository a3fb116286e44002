"""Autograd Lab's graph explorer: draw any minigrad or torch graph and replay its passes.

    from widgets import draw_graph, record_forward, record_backward
    draw_graph(loss, module=model)                 # static picture, works without JavaScript
    with record_forward(model) as fwd: loss = model(x).sum()
    fwd.player()                                   # watch the graph grow, op by op
    with record_backward(loss, forward=fwd) as bwd: loss.backward()
    bwd.player()                                   # watch the engine run, edge by edge
    forward_and_reverse(f, [x], [v])               # forward mode (tangents) and reverse mode
    side_by_side({"minigrad": g1, "PyTorch": g2})  # pictures in a row that wraps to fit

widgets reads minigrad (and torch, when handed torch objects); nothing here is imported by minigrad.
"""

from .api import draw_graph
from .beside import SideBySide, side_by_side
from .language import set_language
from .model import GEdge, GNode, Graph
from .modes import ModesView, forward_and_reverse
from .player import BackwardPlayer, ForwardPlayer
from .svg import LayoutError
from .trace import record_backward, record_forward
from .view import GraphView
from .walk import GraphBuilder

__all__ = [
    "BackwardPlayer",
    "ForwardPlayer",
    "GEdge",
    "GNode",
    "Graph",
    "GraphBuilder",
    "GraphView",
    "LayoutError",
    "ModesView",
    "SideBySide",
    "draw_graph",
    "forward_and_reverse",
    "record_backward",
    "record_forward",
    "set_language",
    "side_by_side",
]
