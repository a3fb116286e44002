"""Autograd Lab's graph explorer: draw any minigrad or torch graph and replay its passes.

    from widgets import draw_graph, record_forward, record_backward
    draw_graph(loss, module=model)                 # static picture, works without JavaScript
    with record_forward(model) as fwd: loss = model(x).sum()
    fwd.player()                                   # watch the graph grow, op by op
    with record_backward(loss, forward=fwd) as bwd: loss.backward()
    bwd.player()                                   # watch the engine run, edge by edge
    bwd.memory()                                   # the bytes it held, step by step
    bwd.player(memory=True)                        # the same chart under the replay
    forward_and_reverse(f, [x], [v])               # forward mode (tangents) and reverse mode
    side_by_side({"minigrad": g1, "PyTorch": g2})  # pictures in a row that wraps to fit
    draw_own(loss); record_own_backward(loss)      # a learner's own engine (own_engine.py)
    diff_passes(bwd1, bwd2, labels=("plain", "checkpoint"))  # two passes compared, step by step

widgets reads minigrad (and torch, when handed torch objects); nothing here is imported by minigrad.
"""

from .api import draw_graph
from .beside import SideBySide, side_by_side
from .diff import PassDiff, diff_passes
from .language import set_language
from .memory import MemoryTimeline
from .model import GEdge, GNode, Graph
from .modes import ModesView, forward_and_reverse
from .own_engine import draw_own, record_own_backward
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
    "MemoryTimeline",
    "ModesView",
    "PassDiff",
    "SideBySide",
    "diff_passes",
    "draw_graph",
    "draw_own",
    "forward_and_reverse",
    "record_backward",
    "record_forward",
    "record_own_backward",
    "set_language",
    "side_by_side",
]
