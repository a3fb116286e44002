"""Text that ends up inside a drawing: escaped once, here, so no name can become markup.

Graph labels are Graphviz HTML-like labels (`<...>`) and tooltips are quoted strings. Graphviz
reads both twice: first as markup (entities, tags), then for its own backslash escapes (`\\N` is
the node's name, `\\G` the graph's, `\\l` a line break), and entities are decoded before that
second reading, so `&#92;` cannot hide a backslash. Doubling each backslash (in a label; four
in a quoted string, which is read once more) is what makes every name appear verbatim.
Values are formatted here too, so the static picture, the player's panel and the tests agree.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

VALUE_LIMIT = 8  # tensors with at most this many elements show their values


def escape_html(text: str) -> str:
    """Text safe inside HTML (and as the markup part of a Graphviz label)."""
    return html.escape(str(text), quote=True).replace("&#x27;", "&#39;")


def label_text(text: str) -> str:
    """Text for a Graphviz HTML-like label: markup escaped, then backslashes doubled."""
    return escape_html(text).replace("\\", "\\\\")


def quoted(text: str) -> str:
    """A DOT quoted string for a plain attribute (a tooltip) that Graphviz shows verbatim."""
    return '"' + escape_html(text).replace("\\", "\\\\\\\\") + '"'


def html_label(title: str, lines: Sequence[str] = (), *, bold: bool = True) -> str:
    """A Graphviz HTML-like label: a title line and smaller detail lines, all escaped."""
    head = f"<b>{label_text(title)}</b>" if bold else label_text(title)
    rest = "".join(f'<br/><font point-size="9">{label_text(line)}</font>' for line in lines)
    return f"<{head}{rest}>"


def format_shape(shape: Sequence[int] | None) -> str:
    """`[2, 3]`, `[]` for a scalar, `?` when unknown (torch constants, freed saved tensors)."""
    return "?" if shape is None else "[" + ", ".join(str(int(n)) for n in shape) + "]"


def format_values(values: np.ndarray | None, limit: int = VALUE_LIMIT) -> str | None:
    """Compact values for small arrays (`[1., 2.5]`), `None` for big ones or no array.

    Written out by hand rather than with `np.array2string`, which costs ~50 µs a call and is
    called for nearly every frame of a recorded backward.
    """
    if values is None:
        return None
    arr = np.asarray(values)
    if arr.size > limit:
        return None
    if arr.size == 0:
        return "[]"
    items = [_scalar(v) for v in arr.ravel().tolist()]
    for size in reversed(arr.shape):  # innermost axis first: group into nested brackets
        items = ["[" + ", ".join(items[i : i + size]) + "]" for i in range(0, len(items), size)]
    return items[0]


def _scalar(v: float | int | bool | complex) -> str:
    """`1.`, `0.3333`, `-2.5`, `nan`: numpy's look at 4 decimals, without its padding."""
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return str(v)
        text = f"{v + 0.0:.4f}".rstrip("0")  # + 0.0 turns -0.0 into 0.0
        return "0." if text in ("-0.", "0.") else text
    return str(v)


def format_array(values: np.ndarray | None, limit: int = 64) -> str:
    """Values for the player's panel: full for small arrays, shape and a few stats otherwise."""
    if values is None:
        return "None"
    arr = np.asarray(values)
    short = format_values(arr, limit)
    if short is not None:
        return short
    flat = arr.astype(np.float64).ravel()
    return (
        f"{format_shape(arr.shape)} min {flat.min():.4g} max {flat.max():.4g} "
        f"mean {flat.mean():.4g}"
    )
