"""The live players: a recorded trace, drawn once, replayed in the browser (player.js).

The kernel sends the SVG and all frames once. The only messages afterwards are the frame number
when the user pauses or steps (so `player.frame` can be read from Python) and a module box
clicked open or closed, which needs a new layout. A notebook without a live kernel still shows
the static picture from the `text/html` part of the output.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets

from .frames import FrameMaker
from .svg import DotNotFoundError
from .view import MAX_NODES, GraphTooLargeError, GraphView

if TYPE_CHECKING:  # a trace makes its player (`Trace.player`): trace.py imports this module
    from .trace import Trace

HERE = Path(__file__).parent


class Player(anywidget.AnyWidget):
    """Shared by both players; `mode` tells the front end which panel to show."""

    _esm = HERE / "player.js"
    _css = HERE / "player.css"

    mode = traitlets.Unicode("backward").tag(sync=True)
    svg = traitlets.Unicode("").tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)  # shown instead of a picture
    summary = traitlets.Unicode("").tag(sync=True)
    frames = traitlets.List().tag(sync=True)
    titles = traitlets.Dict().tag(sync=True)  # model id -> display name
    alias = traitlets.Dict().tag(sync=True)  # model id -> element standing for it
    timings = traitlets.Dict().tag(sync=True)  # kernel-side milliseconds, for the record
    frame = traitlets.Int(0).tag(sync=True)
    speed = traitlets.Float(1.0).tag(sync=True)

    def __init__(
        self,
        trace: Trace,
        *,
        collapse: bool | Collection[str] | None = None,
        legend: bool = True,
        max_nodes: int = MAX_NODES,
        rankdir: str = "TB",
        speed: float = 1.0,
        frame: int = 0,
    ) -> None:
        t0 = time.perf_counter()
        maker = FrameMaker(trace.builder)
        frames = maker.run(trace.records)
        frames_ms = round((time.perf_counter() - t0) * 1000, 1)
        view = trace.draw(collapse=collapse, legend=legend, max_nodes=max_nodes, rankdir=rankdir)
        picture = self._picture(view)
        picture["timings"] = {"frames_ms": frames_ms, **picture["timings"]}
        # everything in the first message: the front end draws once, with all it needs
        super().__init__(frames=frames, titles=maker.title, speed=speed, frame=frame, **picture)
        self.trace = trace
        self.view = view
        self.add_class("mg-player-widget")
        self.on_msg(self._on_msg)

    @staticmethod
    def _picture(view: GraphView) -> dict[str, Any]:
        """The traits that describe the drawing: SVG (or the reason there is none), alias."""
        t0 = time.perf_counter()
        try:
            svg, message = view.svg(), ""
        except (GraphTooLargeError, DotNotFoundError) as err:
            svg, message = "", str(err)
        layout_ms = round((time.perf_counter() - t0) * 1000, 1)
        return {
            "svg": svg,
            "message": message,
            "alias": view.drawing().alias,
            "summary": view.summary(),
            "timings": {"layout_ms": layout_ms},
        }

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A click on a module box or frame: open or close it, which needs a new layout."""
        if isinstance(content, dict) and isinstance(content.get("toggle"), str):
            self.view.toggle(content["toggle"])
            picture = self._picture(self.view)
            picture["timings"] = {**self.timings, **picture["timings"]}
            with self.hold_sync():  # one update; the front end redraws on the new svg
                for name, value in picture.items():
                    setattr(self, name, value)

    def __repr__(self) -> str:
        passes = sum(1 for f in self.frames if f["kind"] == "backward_start")
        what = f", {passes} backward {'pass' if passes == 1 else 'passes'}" if passes else ""
        return (
            f"{type(self).__name__}({len(self.frames)} frames{what}; graph {self.view.summary()})"
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        data, meta = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)
        data["text/html"] = self.view.html(caption=repr(self))  # the picture without a kernel
        return data, meta


class BackwardPlayer(Player):
    """Replays a `record_backward` trace: nodes run, gradients travel, .grad grows."""

    mode = traitlets.Unicode("backward").tag(sync=True)


class ForwardPlayer(Player):
    """Replays a `record_forward` trace: the graph grows op by op as the forward ran."""

    mode = traitlets.Unicode("forward").tag(sync=True)
