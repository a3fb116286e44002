"""The static view of a PassDiff: both pictures with their differing nodes framed, and the steps
aligned in a table whose differing rows are marked (by colour and in words).

Like view.py, the pictures are `<img>` SVG data URIs in plain HTML with inline styles, so the view
shows in an untrusted notebook and in nbconvert's HTML. Nodes are framed by a `<style>` put into
each picture's own SVG document, selecting the nodes by their element ids (dot.py gives every
node its model id): the drawing itself is not changed, and an image's style stays inside it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from .beside import ITEM, ROW
from .labels import escape_html
from .svg import LayoutError
from .texts import say
from .view import STATIC_BOX, svg_image

if TYPE_CHECKING:
    from .diff import PassDiff, Side

# the frame of a node only one pass has, and of a node where a gradient differs (a dash tells
# them apart without colour)
MARK_STYLE = {
    "only": "stroke:#e8590c;stroke-width:4px;stroke-dasharray:none",
    "grad": "stroke:#9c36b5;stroke-width:3px;stroke-dasharray:6,3",
}
ROW_STYLE = {
    "moved": "background:rgba(25,118,210,0.10)",
    "only_a": "background:rgba(232,89,12,0.16)",
    "only_b": "background:rgba(232,89,12,0.16)",
    "differs": "background:rgba(156,54,181,0.18)",
    "close": "background:rgba(156,54,181,0.08)",
    "same": "",
}
SUMMARY = "white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;margin:0 0 8px"
CONTEXT = 2  # identical steps kept in the table on each side of a difference
ELEMENT_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
CELL = "padding:2px 6px;vertical-align:top;border-top:1px solid rgba(128,128,128,0.3)"
TEXT_CELL = (
    f"{CELL};font-family:monospace;font-size:11px;white-space:pre-wrap;word-break:break-word"
)


def element_marks(diff: PassDiff, side: Side) -> dict[str, str]:
    """Drawn element id -> mark (`only`, `grad`): a model id, or the box standing for it."""
    alias = side.view.drawing().alias
    return {alias.get(nid, nid): mark for nid, mark in diff.node_marks(side).items()}


def marked_svg(svg: str, marks: Mapping[str, str]) -> str:
    """`svg` with a style rule framing each marked element's shape (ids are our own words)."""
    rules = []
    for mark, style in MARK_STYLE.items():
        ids = sorted(e for e, m in marks.items() if m == mark)
        for e in ids:
            if not ELEMENT_ID.match(e):
                raise ValueError(f"not an element id of ours: {e!r}")
        if ids:
            shapes = ", ".join(f"#{e} > {s}" for e in ids for s in ("polygon", "path", "ellipse"))
            rules.append(f"{shapes} {{ {style} }}")
    if not rules:
        return svg
    start = svg.index("<svg")
    end = svg.index(">", start) + 1
    return f"{svg[:end]}\n<style>{' '.join(rules)}</style>{svg[end:]}"


def swatch(style: str, text: str) -> str:
    box = f"display:inline-block;width:14px;height:10px;margin:0 4px 0 10px;{style}"
    return f'<span style="{box}"></span>{escape_html(text)}'


def legend(lang: str) -> str:
    """What the two frames mean (border styles as in MARK_STYLE, in CSS)."""
    return (
        '<div class="mg-diff-legend" style="font-size:12px;margin:6px 0">'
        + swatch("border:3px solid #e8590c", say("diff.ui.legend.only", lang))
        + swatch("border:2px dashed #9c36b5", say("diff.ui.legend.grad", lang))
        + "</div>"
    )


def picture(diff: PassDiff, side: Side) -> str:
    """One pass's picture, its differing nodes framed, under its caption."""
    caption = say("diff.caption", diff.lang, label=side.label, summary=side.view.summary())
    try:
        svg = marked_svg(side.view.svg(), element_marks(diff, side))
        body = svg_image(svg, alt=caption)
    except LayoutError as err:
        body = f'<pre class="mg-message">{escape_html(str(err))}</pre>'
    return (
        f'<div class="mg-side-item" style="{ITEM}"><div class="mg-static" style="{STATIC_BOX}">'
        f'<div class="mg-caption">{escape_html(caption)}</div>{body}</div></div>'
    )


def status_text(diff: PassDiff, row: Mapping) -> str:
    """A row's difference in words (the table and the player say the same)."""
    status = row["status"]
    if status in ("only_a", "only_b"):
        label = diff.labels[0 if status == "only_a" else 1]
        return say("diff.ui.status.only", diff.lang, label=label)
    text = say(f"diff.ui.status.{status}", diff.lang)
    if status == "moved" and row["grads"] != "same":
        text += say("list.sep", diff.lang) + say(f"diff.ui.status.{row['grads']}", diff.lang)
    return text


def shown_rows(rows: list[dict]) -> list[int | tuple[int, int]]:
    """Row indices to show: every differing row with CONTEXT rows around it; a run of hidden
    identical rows becomes `(first, count)`."""
    keep = set()
    for k, r in enumerate(rows):
        if r["status"] != "same":
            keep.update(range(max(0, k - CONTEXT), min(len(rows), k + CONTEXT + 1)))
    shown: list[int | tuple[int, int]] = []
    k = 0
    while k < len(rows):
        if k in keep:
            shown.append(k)
            k += 1
            continue
        start = k
        while k < len(rows) and k not in keep:
            k += 1
        shown.append((start, k - start))
    return shown


def table(diff: PassDiff) -> str:
    """The aligned steps; differing rows coloured and named, long identical runs folded."""
    la, lb = (escape_html(label) for label in diff.labels)
    head = "".join(
        f'<th style="{CELL};text-align:left">{h}</th>'
        for h in ("#", la, "#", lb, escape_html(say("diff.ui.status", diff.lang)))
    )
    body = []
    for item in shown_rows(diff.rows):
        if isinstance(item, tuple):
            text = escape_html(say("diff.hidden", diff.lang, n=item[1]))
            body.append(f'<tr><td colspan="5" style="{CELL};opacity:0.7">{text}</td></tr>')
            continue
        row = diff.rows[item]
        cells = []
        for side, column in ((diff.a, "a"), (diff.b, "b")):
            k = row[column]
            text = "" if k is None else side.steps[k].text
            cells.append(f'<td style="{CELL}">{"" if k is None else k}</td>')
            cells.append(f'<td style="{TEXT_CELL}">{escape_html(text)}</td>')
        status = escape_html(status_text(diff, row))
        cells.append(f'<td style="{CELL}">{status}</td>')
        body.append(
            f'<tr class="mg-diff-{row["status"]}" style="{ROW_STYLE[row["status"]]}">'
            f"{''.join(cells)}</tr>"
        )
    return (
        '<div style="overflow:auto;max-height:600px;max-width:100%">'
        '<table class="mg-diff-table" style="border-collapse:collapse;width:100%;font-size:12px">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def diff_html(diff: PassDiff) -> str:
    """The whole static view: summary, pictures side by side, legend, step table."""
    summary = escape_html(repr(diff))
    pictures = "".join(picture(diff, side) for side in (diff.a, diff.b))
    return (
        '<div class="mg-diff-static">'
        f'<pre class="mg-diff-summary" style="{SUMMARY}">{summary}</pre>'
        f'<div class="mg-side-by-side" style="{ROW}">{pictures}</div>'
        f"{legend(diff.lang)}{table(diff)}</div>"
    )
