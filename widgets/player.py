"""The live players: a recorded trace, drawn once, replayed in the browser (player.js).

The kernel sends the SVG and all frames once. The only messages afterwards are the frame number
when the user pauses or steps (so `player.frame` can be read from Python) and a module box
clicked open or closed, which needs a new layout.

A player displays as two outputs: its picture (an image, with "run the cell to replay"), then the
live widget. A notebook without the widget's model (opened fresh and untrusted, reopened after
its kernel is gone, exported by nbconvert) shows the picture; the live widget hides it, every
time: player.css hides a picture output followed by a live player, and player.js hides its own
(by key) at render, once it is in the page and whenever its output area changes (a notebook
reopened with its kernel alive attaches its widgets while its outputs are still being set). The
picture's trusted HTML also hides the "model not found" message of its widget output, with a
stylesheet rule that matches only a widget output with nothing rendered in it.
`save_html` writes the replay to one file that needs no kernel and no network (replay.py).
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets
from IPython.display import display

from .frames import FrameMaker
from .front_end import player_module
from .labels import escape_html
from .language import resolve
from .replay import replay_html
from .svg import LayoutError
from .texts import front_end, say
from .view import MAX_NODES, GraphView

if TYPE_CHECKING:  # a trace makes its player (`Trace.player`): trace.py imports this module
    from .trace import Trace

HERE = Path(__file__).parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# JupyterLab / Notebook 7: the widget output right after a player's picture is not shown while
# its renderer (a Lumino panel) holds only text: "Loading widget...", "Error displaying widget:
# model not found". A live player is an element inside it, and shows. (CSS allows no :has()
# inside :has(), so the output is hidden, not its whole row.)
HIDE_DEAD_WIDGET = (
    "<style>.jp-OutputArea-child:has(.mg-fallback) + .jp-OutputArea-child > "
    ".jp-OutputArea-output.lm-Panel:not(:has(*)) { display: none; }</style>"
)


class Player(anywidget.AnyWidget):
    """Shared by both players; `mode` tells the front end which panel to show."""

    _esm = player_module()  # player.js with its state module inlined (front_end.py)
    _css = HERE / "player.css"

    mode = traitlets.Unicode("backward").tag(sync=True)
    svg = traitlets.Unicode("").tag(sync=True)
    message = traitlets.Unicode("").tag(sync=True)  # shown instead of a picture
    summary = traitlets.Unicode("").tag(sync=True)
    # every frame, as one JSON text: ipywidgets would walk a list of 25,000 dicts looking for
    # binary buffers, and the server would decode and re-encode each one on its way (measured on a
    # 10,000-node player: 0.17 s in the kernel alone); one string passes through whole
    frames_json = traitlets.Unicode("[]").tag(sync=True)
    titles = traitlets.Dict().tag(sync=True)  # model id (and box id) -> THE display name
    tips = traitlets.Dict().tag(sync=True)  # model id -> what a hover on its node says (tips.py)
    alias = traitlets.Dict().tag(sync=True)  # model id -> element standing for it
    boxes = traitlets.Dict().tag(sync=True)  # box id -> the runnable model ids inside it
    legend = traitlets.Bool(True).tag(sync=True)  # whether the front end shows its legend
    timings = traitlets.Dict().tag(sync=True)  # kernel-side milliseconds, for the record
    frame = traitlets.Int(0).tag(sync=True)
    speed = traitlets.Float(1.0).tag(sync=True)
    key = traitlets.Unicode("").tag(sync=True)  # links the live view to its picture output
    lang = traitlets.Unicode("en")  # the kernel's words (the front end gets `texts`)
    texts = traitlets.Dict().tag(sync=True)  # the front end's words in `lang` (texts.py)
    # a backward pass's memory timeline (memory.py): its chart, and per-frame byte totals as
    # one JSON text of three short lists (saved, grads, buffers); empty: no memory panel
    memory_svg = traitlets.Unicode("").tag(sync=True)
    memory_json = traitlets.Unicode("").tag(sync=True)

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
        lang: str | None = None,
        memory: bool = False,
    ) -> None:
        """memory: show the pass's memory timeline under the drawing (a backward trace only;
        `trace.memory()` is the same chart on its own). Off by default: every player would
        grow by a chart, and a pass of thousands of steps takes a while to measure."""
        lang = resolve(lang)
        t0 = time.perf_counter()
        frames = FrameMaker(trace.builder, lang).run(trace.records)
        memory = self._memory(trace, lang) if memory else {}  # (its time counts in frames_ms)
        t1 = time.perf_counter()
        view = trace.draw(
            collapse=collapse, legend=legend, max_nodes=max_nodes, rankdir=rankdir, lang=lang
        )
        choose_ms = (time.perf_counter() - t1) * 1000  # which modules to collapse, for size
        picture = self._picture(view)
        timings = picture["timings"]
        timings["plan_ms"] = round(timings["plan_ms"] + choose_ms, 1)
        picture["timings"] = {"frames_ms": round((t1 - t0) * 1000, 1), **timings}
        # everything in the first message: the front end draws once, with all it needs
        super().__init__(
            frames_json=json.dumps(frames, ensure_ascii=False, separators=(",", ":")),
            legend=legend,
            speed=speed,
            frame=frame,
            key=uuid.uuid4().hex,
            lang=lang,
            texts=front_end(lang),
            **memory,
            **picture,
        )
        self.frames = frames
        self.trace = trace
        self.view = view
        self.add_class("mg-player-widget")
        self.on_msg(self._on_msg)

    @staticmethod
    def _memory(trace: Trace, lang: str) -> dict[str, str]:
        """The memory panel's traits, for a backward trace that measured its saved tensors."""
        if getattr(trace, "saved_sizes", None) is None:
            return {}
        timeline = trace.memory(lang)
        return {
            "memory_svg": timeline.svg(marker=True),
            "memory_json": json.dumps(timeline.compact(), separators=(",", ":")),
        }

    @staticmethod
    def _picture(view: GraphView) -> dict[str, Any]:
        """The traits that describe the drawing: SVG (or the reason there is none), alias,
        names, boxes. `plan_ms` is choosing what to draw, `layout_ms` writing DOT and laying it
        out (cached for a DOT text drawn before)."""
        t0 = time.perf_counter()
        drawing = view.drawing()
        t1 = time.perf_counter()
        try:
            svg, message = view.svg(), ""
        except LayoutError as err:
            svg, message = "", str(err)
        t2 = time.perf_counter()
        return {
            "svg": svg,
            "message": message,
            "alias": drawing.alias,
            "titles": drawing.titles,
            "tips": view.tips(),
            "boxes": drawing.box_members(view.graph),
            "summary": view.summary(),
            "timings": {
                "plan_ms": round((t1 - t0) * 1000, 1),
                "layout_ms": round((t2 - t1) * 1000, 1),
            },
        }

    def _on_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """A click on a module box or frame: open or close it, which needs a new layout."""
        if isinstance(content, dict) and isinstance(content.get("toggle"), str):
            t0 = time.perf_counter()
            self.view.toggle(content["toggle"])
            toggle_ms = (time.perf_counter() - t0) * 1000  # it may plan a drawing to check its size
            picture = self._picture(self.view)
            timings = picture["timings"]
            timings["plan_ms"] = round(timings["plan_ms"] + toggle_ms, 1)
            picture["timings"] = {**self.timings, **timings}
            with self.hold_sync():  # one update; the front end redraws on the new svg
                for name, value in picture.items():
                    setattr(self, name, value)

    def title(self, obj: Any) -> str:
        """THE name of a graph node, tensor or model id, as this player shows it."""
        return self.view.title(obj)

    def __repr__(self) -> str:
        passes = sum(1 for f in self.frames if f["kind"] == "backward_start")
        word = "pass" if passes == 1 else "passes"
        what = say("player.passes", self.lang, n=passes, word=word) if passes else ""
        return say(
            "player.caption",
            self.lang,
            cls=type(self).__name__,
            frames=len(self.frames),
            passes=what,
            summary=self.view.summary(),
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        data, meta = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)
        data["text/html"] = self.picture_html()  # for callers that skip _ipython_display_
        return data, meta

    def picture_html(self) -> str:
        """The output a notebook shows when the live widget cannot be: caption, note, picture."""
        return (
            f'<div class="mg-static mg-fallback" data-mg-player="{self.key}">{HIDE_DEAD_WIDGET}'
            f'<div class="mg-caption">{escape_html(repr(self))}</div>'
            f'<div class="mg-note">{escape_html(say("player.replay_note", self.lang))}</div>'
            f"{self.view.picture_html()}</div>"
        )

    def _ipython_display_(self) -> None:
        """The picture output, then the widget output (see the module docstring)."""
        display({"text/plain": repr(self), "text/html": self.picture_html()}, raw=True)
        data, meta = super()._repr_mimebundle_()
        display({WIDGET_VIEW: data[WIDGET_VIEW]}, metadata=meta, raw=True)

    def replay_state(self) -> dict[str, Any]:
        """Every synced trait of the player's own (what its front end reads), as JSON data."""
        base = set(anywidget.AnyWidget.class_trait_names())  # _esm and _css are not state
        own = [n for n in self.trait_names(sync=True) if n not in base and n[0] != "_"]
        state = {name: getattr(self, name) for name in sorted(own) if name != "frames_json"}
        return {**state, "frames": self.frames}

    def save_html(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        """Write one self-contained HTML file that replays this trace in any browser, offline.

        The file holds the picture, every frame, the player's script and style: no kernel, no
        network. Module boxes do not open there (that needs a new layout from the kernel).
        """
        path = Path(path)
        page = replay_html(self.replay_state(), title or repr(self), HERE, self.lang)
        path.write_text(page, encoding="utf-8")
        return path


class BackwardPlayer(Player):
    """Replays a `record_backward` trace: nodes run, gradients travel, .grad grows."""

    mode = traitlets.Unicode("backward").tag(sync=True)


class ForwardPlayer(Player):
    """Replays a `record_forward` trace: the graph grows op by op as the forward ran."""

    mode = traitlets.Unicode("forward").tag(sync=True)
