"""`side_by_side`: explorer pictures in one row that fits the column (minigrad beside PyTorch).

Pictures sit side by side while they fit together in the notebook's column; a row too wide wraps,
so they stand one under the other, and a picture wider than the column on its own scrolls inside
its box at its readable size. Plain HTML with inline styles (a flex row that wraps): it shows the
same in a trusted or untrusted notebook, in nbconvert's HTML and in the HTML export.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .view import GraphView

ROW = "display:flex;flex-wrap:wrap;gap:16px 32px;align-items:flex-start;max-width:100%"
# as wide as its picture (its caption wraps), at least 320 px, never wider than the column
ITEM = "flex:0 1 auto;width:min-content;min-width:min(320px,100%);max-width:100%"


class SideBySide:
    """Several GraphViews under their captions, in a row that wraps (see the module docstring)."""

    def __init__(self, views: Sequence[tuple[str, GraphView]]) -> None:
        self.views = list(views)

    def html(self) -> str:
        items = "".join(
            f'<div class="mg-side-item" style="{ITEM}">{view.html(caption)}</div>'
            for caption, view in self.views
        )
        return f'<div class="mg-side-by-side" style="{ROW}">{items}</div>'

    def __repr__(self) -> str:
        return "\n".join(f"{caption or 'graph'}: {view.summary()}" for caption, view in self.views)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        return {"text/plain": repr(self), "text/html": self.html()}


def side_by_side(views: Mapping[str, GraphView] | Sequence[GraphView]) -> SideBySide:
    """Show explorer pictures side by side, each under its caption, wrapping to fit the column.

    views: `{"minigrad": draw_graph(...), "PyTorch": draw_graph(...)}` (caption -> picture), or a
           list of pictures (each captioned by its summary line).
    """
    if isinstance(views, Mapping):
        pairs = [(str(caption), view) for caption, view in views.items()]
    else:
        pairs = [("", view) for view in views]
    for _, view in pairs:
        if not isinstance(view, GraphView):
            raise TypeError(f"side_by_side shows draw_graph pictures, not {type(view).__name__}")
    return SideBySide(pairs)
