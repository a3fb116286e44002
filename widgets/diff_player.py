"""The live diff: step through two passes' aligned steps, both pictures following (diff.js).

The kernel sends both drawings, the marks of their differing nodes and every aligned row once;
afterwards only the row number travels (so `player.frame` can be read from Python). Displayed
like the explorer's players (player.py): the static diff first (diff_view.py, an image output
that needs no JavaScript), then the live widget, which hides that picture while it lives.
`save_html` writes the same front end and data into one page that needs no kernel or network.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import traitlets
from IPython.display import display

from .diff_view import element_marks, status_text
from .labels import escape_html
from .player import HIDE_DEAD_WIDGET, WIDGET_VIEW
from .replay import BOOT, EXPORT_LINE, PAGE, _inline
from .svg import LayoutError
from .texts import TEXTS, front_end, say

if TYPE_CHECKING:
    from .diff import PassDiff, Side

HERE = Path(__file__).parent


def diff_texts(lang: str) -> dict[str, str]:
    """The front end's words: the player's controls (`first`, `play`, `step_of`...) and the
    diff's own `diff.ui.` entries, without that prefix."""
    own = {key[8:]: say(key, lang) for key in TEXTS if key.startswith("diff.ui.")}
    return {**front_end(lang), **own}


def _step(side: Side, k: int | None) -> dict | None:
    if k is None:
        return None
    step = side.steps[k]
    alias = side.view.drawing().alias
    element = None if step.element is None else alias.get(step.element, step.element)
    return {"k": k, "text": step.text, "el": element}


def _svg(side: Side) -> tuple[str, str]:
    """The drawing, or the reason there is none."""
    try:
        return side.view.svg(), ""
    except LayoutError as err:
        return "", str(err)


class DiffPlayer(anywidget.AnyWidget):
    """The live view of a PassDiff (see the module docstring)."""

    _esm = HERE / "diff.js"
    _css = HERE / "diff.css"

    svg_a = traitlets.Unicode("").tag(sync=True)
    svg_b = traitlets.Unicode("").tag(sync=True)
    message_a = traitlets.Unicode("").tag(sync=True)  # shown instead of a picture
    message_b = traitlets.Unicode("").tag(sync=True)
    marks_a = traitlets.Dict().tag(sync=True)  # element id -> "only" | "grad"
    marks_b = traitlets.Dict().tag(sync=True)
    labels = traitlets.List().tag(sync=True)  # what the two passes are called
    captions = traitlets.List().tag(sync=True)  # each pass's label and graph summary
    summary = traitlets.Unicode("").tag(sync=True)  # the diff's text/plain
    rows_json = traitlets.Unicode("[]").tag(sync=True)  # the aligned rows, one JSON text
    texts = traitlets.Dict().tag(sync=True)
    frame = traitlets.Int(0).tag(sync=True)
    key = traitlets.Unicode("").tag(sync=True)  # links the live view to its picture output

    def __init__(self, diff: PassDiff) -> None:
        rows = [
            {
                "a": _step(diff.a, r["a"]),
                "b": _step(diff.b, r["b"]),
                "status": r["status"],
                "say": status_text(diff, r),
            }
            for r in diff.rows
        ]
        (svg_a, message_a), (svg_b, message_b) = _svg(diff.a), _svg(diff.b)
        super().__init__(
            svg_a=svg_a,
            svg_b=svg_b,
            message_a=message_a,
            message_b=message_b,
            marks_a=element_marks(diff, diff.a),
            marks_b=element_marks(diff, diff.b),
            labels=list(diff.labels),
            captions=[
                say("diff.caption", diff.lang, label=s.label, summary=s.view.summary())
                for s in (diff.a, diff.b)
            ],
            summary=repr(diff),
            rows_json=json.dumps(rows, ensure_ascii=False, separators=(",", ":")),
            texts=diff_texts(diff.lang),
            key=uuid.uuid4().hex,
        )
        self.diff = diff
        self.add_class("mg-diff-widget")

    def __repr__(self) -> str:
        return repr(self.diff)

    def picture_html(self) -> str:
        """The output shown where the live widget cannot be: a note and the static diff."""
        note = escape_html(say("diff.replay_note", self.diff.lang))
        return (
            f'<div class="mg-static mg-fallback mg-diff-fallback" data-mg-diff="{self.key}">'
            f'{HIDE_DEAD_WIDGET}<div class="mg-note">{note}</div>{self.diff.html()}</div>'
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        data, meta = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = repr(self)
        data["text/html"] = self.picture_html()  # for callers that skip _ipython_display_
        return data, meta

    def _ipython_display_(self) -> None:
        """The picture output, then the widget output (as player.py does)."""
        display({"text/plain": repr(self), "text/html": self.picture_html()}, raw=True)
        data, meta = super()._repr_mimebundle_()
        display({WIDGET_VIEW: data[WIDGET_VIEW]}, metadata=meta, raw=True)

    def state(self) -> dict[str, Any]:
        """Every synced trait of its own, as the front end reads them (for save_html)."""
        base = set(anywidget.AnyWidget.class_trait_names())
        own = [n for n in self.trait_names(sync=True) if n not in base and n[0] != "_"]
        return {name: getattr(self, name) for name in sorted(own)}

    def save_html(self, path: str | os.PathLike[str], title: str | None = None) -> Path:
        """One self-contained page stepping through this diff offline (replay.py's page)."""
        js = (HERE / "diff.js").read_text(encoding="utf-8")
        if EXPORT_LINE not in js:
            raise ValueError(f"diff.js no longer ends with {EXPORT_LINE!r}")
        css = (HERE / "diff.css").read_text(encoding="utf-8")
        data = json.dumps(self.state(), ensure_ascii=False).replace("<", "\\u003c")
        lang = self.diff.lang
        page = PAGE.format(
            lang="zh-CN" if lang == "zh" else "en",
            title=escape_html(title or " / ".join(self.diff.labels)),
            css=_inline(css, "style"),
            state=data,
            js=_inline(js.replace(EXPORT_LINE, ""), "script"),
            boot=BOOT,
        )
        path = Path(path)
        path.write_text(page, encoding="utf-8")
        return path
