"""Text that ends up inside a drawing: escaped once, here, so no name can become markup.

Graph labels are Graphviz HTML-like labels (`<...>`) and tooltips are quoted strings. Graphviz
reads both twice: first as markup (entities, tags), then for its own backslash escapes (`\\N` is
the node's name, `\\G` the graph's, `\\l` a line break), and entities are decoded before that
second reading, so `&#92;` cannot hide a backslash. Doubling each backslash (in a label; four
in a quoted string, which is read once more) is what makes every name appear verbatim.
Values are formatted here too, so the static picture, the player's panel and the tests agree:
small arrays whole, big ones as one-line summaries (`summarize`), with the whole value beside
them for hover and click (`full_text`) and a short form for the active edge (`edge_text`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np

from .texts import say

VALUE_LIMIT = 8  # arrays with at most this many elements are printed whole
SUMMARY_HEAD = 3  # a summary's first values
FULL_LIMIT = 10_000  # elements written out in full (hover/click)
EDGE_LABEL_WIDTH = 40  # characters of the text drawn on the active edge


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


def summarize(values: np.ndarray | None, lang: str | None = None) -> str:
    """An array in one short line: whole up to VALUE_LIMIT elements, else shape, dtype, the
    first values and statistics (`[4, 16] float32 [0.1, -0.2, 0.3, …] min -1.2 max 0.9 mean 0.01`).

    NaN and ±inf are counted, and the statistics cover the finite values only; empty, 0-d, int,
    bool and complex arrays each get a line that fits them.
    """
    if values is None:
        return "None"
    arr = np.asarray(values)
    whole = format_values(arr)
    if whole is not None:
        if arr.size or arr.shape == (0,):
            return whole
        return say("array.empty_shape", lang, shape=format_shape(arr.shape))
    head = ", ".join(_scalar(v) for v in arr.ravel()[:SUMMARY_HEAD].tolist())
    return f"{format_shape(arr.shape)} {arr.dtype} [{head}, …] {_statistics(arr, lang)}".rstrip()


def _statistics(arr: np.ndarray, lang: str | None) -> str:
    """`min … max … mean …` of a big array (see summarize)."""
    kind = arr.dtype.kind
    if kind == "b":
        true = int(np.count_nonzero(arr))
        return f"{true} True, {arr.size - true} False"
    if kind in "iu":
        return f"min {arr.min()} max {arr.max()} mean {_number(arr.mean(dtype=np.float64))}"
    if kind == "c":
        return f"max |x| {_number(np.abs(arr).max())} mean {arr.mean()}"
    if kind != "f":
        return ""
    finite = np.isfinite(arr)
    if finite.all():
        return (
            f"min {_number(arr.min())} max {_number(arr.max())} "
            f"mean {_number(arr.mean(dtype=np.float64))}"
        )
    nan = int(np.isnan(arr).sum())
    posinf = int(np.isposinf(arr).sum())
    special = [(nan, "nan"), (posinf, "inf"), (arr.size - nan - posinf - int(finite.sum()), "-inf")]
    counts = ", ".join(f"{n} {name}" for n, name in special if n)
    kept = arr[finite]
    if not kept.size:
        return counts
    stats = (
        f"min {_number(kept.min())} max {_number(kept.max())} "
        f"mean {_number(kept.mean(dtype=np.float64))}"
    )
    return say("array.finite", lang, counts=counts, n=kept.size, stats=stats)


def _number(x: float) -> str:
    """4 significant digits, without `-0`."""
    return f"{float(x) + 0.0:.4g}"


def summarize_many(arrays: Sequence[np.ndarray | None], lang: str | None = None) -> str:
    """Several arrays (a node's gradients): one summary alone, more in parentheses."""
    if len(arrays) == 1:
        return summarize(arrays[0], lang)
    return "(" + ", ".join(summarize(a, lang) for a in arrays) + ")"


def full_text(values: np.ndarray | None, lang: str | None = None) -> str | None:
    """The whole array for the hover/click view, or None when `summarize` already shows it all.

    Written out by hand (6 significant digits, one line per row of the last axis) like
    `format_values`: `np.array2string` takes ~0.2 ms for 64 values and 9 ms for 4,096, and a
    big graph's frames carry tens of thousands of arrays. Past FULL_LIMIT elements, the first
    FULL_LIMIT values in row-major order and a note.
    """
    if values is None:
        return None
    arr = np.asarray(values)
    if arr.size <= VALUE_LIMIT:
        return None
    flat = arr.ravel()
    if arr.size > FULL_LIMIT:
        items = ", ".join(_full_scalar(v) for v in flat[:FULL_LIMIT].tolist())
        head = f"{format_shape(arr.shape)} {arr.dtype}"
        first = say("array.first_values", lang, head=head, k=FULL_LIMIT, n=arr.size)
        return f"{first}\n[{items}, …]"
    items = [_full_scalar(v) for v in flat.tolist()]
    for depth, size in enumerate(reversed(arr.shape)):
        sep = ", " if depth == 0 else "," + "\n" * depth  # a blank line between blocks
        items = ["[" + sep.join(items[i : i + size]) + "]" for i in range(0, len(items), size)]
    return f"{format_shape(arr.shape)} {arr.dtype}\n{items[0]}"


def _full_scalar(v: float | int | bool | complex) -> str:
    if isinstance(v, float):
        return f"{v + 0.0:.6g}"
    return str(v)


def edge_text(values: np.ndarray | None, lang: str | None = None) -> str:
    """What an edge carries, short enough to draw on it (at most EDGE_LABEL_WIDTH characters):
    the values when they fit, else the shape and the mean (or what is special about them)."""
    if values is None:
        return "None"
    arr = np.asarray(values)
    whole = format_values(arr)
    if whole is not None and len(whole) <= EDGE_LABEL_WIDTH and (arr.size or arr.ndim == 1):
        return whole
    shape = format_shape(arr.shape)
    kind = arr.dtype.kind
    if not arr.size:
        return say("array.empty", lang, shape=shape)
    if kind == "b":
        return f"{shape} {int(np.count_nonzero(arr))} True"
    if kind == "f" and not np.isfinite(arr).all():
        nan = int(np.isnan(arr).sum())
        inf = int(np.isinf(arr).sum())
        return f"{shape} " + ", ".join(f"{n} {w}" for n, w in ((nan, "nan"), (inf, "inf")) if n)
    if kind in "fiu":
        return f"{shape} mean {_number(arr.mean(dtype=np.float64))}"
    return shape
