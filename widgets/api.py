"""`draw_graph`: the one call that draws any minigrad or torch tensor's graph."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from .trace import builder_for, record_forward
from .view import MAX_NODES, GraphView


def draw_graph(
    *tensors: Any,
    names: Mapping[str, Any] | None = None,
    module: Any = None,
    forward: record_forward | None = None,
    collapse: bool | Collection[str] | None = None,
    saved: bool = True,
    legend: bool = True,
    max_nodes: int = MAX_NODES,
    rankdir: str = "TB",
    lang: str | None = None,
) -> GraphView:
    """Draw the backward graph behind `tensors` (several tensors share one picture).

    names:   `{"x": x, "h": h}` labels leaves and shows named intermediate tensors.
    module:  an `nn.Module` (minigrad or torch) whose parameter names label its leaves.
    forward: a `record_forward` trace of the same graph: module boxes (`collapse=True` or a list of
             module names) and the values of constant inputs.
    saved:   draw the tensors each node saved for backward.
    legend:  show the legend of node kinds below the picture.
    max_nodes: the most elements drawn; a bigger graph has its modules collapsed automatically
             (given `forward=`) and whatever is still too much stands in one "+N more" box.
    lang:    the language of the legend and summary: "en" or "zh" (default: set_language's).
    """
    if not tensors:
        raise TypeError("draw_graph needs at least one tensor")
    builder = builder_for(forward, module, names, saved)
    return GraphView(
        builder.add_roots(tensors),
        classes=builder.modules.classes,
        collapse=collapse,
        legend=legend,
        max_nodes=max_nodes,
        rankdir=rankdir,
        builder=builder,
        lang=lang,
    )
