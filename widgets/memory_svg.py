"""The memory timeline as an SVG chart: bytes held (y) over the pass's steps (x), stacked bands.

Saved tensors at the bottom, gradients above, input buffers on top; one band per node (its
hover title names it as the explorer does), the peak marked with a dashed line. Colours are
written as attributes (an `<img>` of it, untrusted or in nbconvert HTML, looks right on white
paper); the live player, which puts the same SVG inline, restyles paper, text and axes by the
classes below in JupyterLab's theme colours (player.css). `marker=True` adds the line the player
moves to its frame: frame k is at x = data-x0 + (k + 0.5) * data-w / data-steps. Steps are
numbered from 1 on the axis (frame k is step k + 1), as the player's counter numbers them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .labels import escape_html
from .texts import say

RECOMPUTED = "recomputed"  # the band of nodes outside the drawn graph
OTHER = "other"  # the band of a category's smaller nodes, when there are many


def format_bytes(n: int) -> str:
    """`1,234 B`: exact, as the player's readout writes it."""
    return f"{n:,} B"


@dataclass
class Band:
    """One stacked band: a node's bytes of one category, per chart column."""

    category: str
    key: str  # model id, RECOMPUTED or OTHER
    title: str
    values: list[int]

    @property
    def peak(self) -> int:
        return max(self.values, default=0)


@dataclass
class Chart:
    """What chart_svg draws: `columns[j]` is the step column j shows, over `steps` steps."""

    steps: int
    per: int  # steps per column
    columns: list[int]
    bands: list[Band]
    peak_step: int
    peak_bytes: int
    lang: str


WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 84, 16, 42, 30  # margins: tick labels, legend, step axis
# every fill is a mid tone, at least 3:1 in contrast with both white paper and JupyterLab's
# dark paper (#111): a band never fades into the paper and so never looks like a gap. Three
# shades per category (light, dark, between): a band takes one that no band it sits on has
# (_shades), and the bands' outlines (paper-coloured) separate the stacked bands. What nodes
# recomputed in backward saved has a colour (and a legend entry) of its own.
COLOURS = {
    "saved": ("#5b8fc7", "#3d6a99", "#4a7cb0"),
    "grads": ("#45a055", "#2a7a3c", "#37904a"),
    "buffers": ("#d27a1c", "#a85a0a", "#bd6b14"),
}
RECOMPUTED_COLOUR = "#a56cc1"
PAPERS = {"light": "#ffffff", "dark": "#111111"}  # what the bands are drawn on
INK, AXIS, PAPER, PEAK = "#333333", "#888888", PAPERS["light"], "#c62828"


def _nice_step(top: int) -> int:
    """A tick step of 1, 2 or 5 times a power of ten giving at most 5 ticks up to `top`."""
    step = 1
    while True:
        for m in (1, 2, 5):
            if top / (step * m) <= 5:
                return step * m
        step *= 10


def _fmt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _stepped(xs: list[float], ys: list[float]) -> str:
    """Path commands tracing a stepped line from (xs[0], ys[0]): y[j] over [xs[j], xs[j+1]],
    one H (and a V where the level changes) per run of equal values."""
    out, j = [], 0
    while j < len(ys):
        k = j
        while k + 1 < len(ys) and ys[k + 1] == ys[j]:
            k += 1
        out.append(f"V{_fmt(ys[j])}H{_fmt(xs[k + 1])}")
        j = k + 1
    return "".join(out)


def _band_path(xs: list[float], low: list[float], high: list[float]) -> str:
    """A stepped area between `low` and `high` (y per column), columns between edges `xs`:
    one closed shape per run of columns where the band holds bytes (none where it is empty,
    so its outline never runs along its neighbours' edge)."""
    out, j = [], 0
    while j < len(low):
        if low[j] == high[j]:
            j += 1
            continue
        k = j
        while k + 1 < len(low) and low[k + 1] != high[k + 1]:
            k += 1
        top = _stepped(xs[j : k + 2], high[j : k + 1])
        bottom = _stepped(xs[j : k + 2][::-1], low[j : k + 1][::-1])
        out.append(f"M{_fmt(xs[j])},{_fmt(low[j])}{top}{bottom}Z")
        j = k + 1
    return "".join(out)


def _shades(bands: list[Band]) -> list[str]:
    """Each band's fill, bottom to top: the first shade of its category that differs from those
    of the bands it sits on (in some column) so that touching bands of one colour never merge."""
    below: list[int | None] = [None] * len(bands[0].values) if bands else []
    fills: list[str] = []
    for i, band in enumerate(bands):
        if band.key == RECOMPUTED and band.category == "saved":
            fills.append(RECOMPUTED_COLOUR)
        else:
            shades = COLOURS[band.category]
            taken = {fills[k] for j, k in enumerate(below) if k is not None and band.values[j]}
            fills.append(next((c for c in shades if c not in taken), shades[0]))
        below = [i if v else k for k, v in zip(below, band.values, strict=True)]
    return fills


def chart_svg(chart: Chart, marker: bool = False) -> str:
    """The chart's SVG text (every label escaped)."""
    lang = chart.lang
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    steps = max(chart.steps, 1)
    tick = _nice_step(max(chart.peak_bytes, 1))
    top = max(tick * -(-max(chart.peak_bytes, 1) // tick), 1)

    def x_of(step: float) -> float:
        return LEFT + step / steps * plot_w

    def y_of(n: float) -> float:
        return TOP + plot_h - n / top * plot_h

    xs = [x_of(min(j * chart.per, steps)) for j in range(len(chart.columns) + 1)]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="mg-mem-chart" width="{WIDTH}" '
        f'height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" '
        f'font-size="11" data-x0="{LEFT}" data-w="{plot_w}" data-steps="{steps}">',
        f'<rect class="mg-mem-paper" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" '
        f'fill="{PAPER}"/>',
    ]
    low = [0.0] * len(chart.columns)
    for band, fill in zip(chart.bands, _shades(chart.bands), strict=True):
        high = [a + b for a, b in zip(low, band.values, strict=True)]
        tip = say(
            "memory.band_tip",
            lang,
            node=band.title,
            category=say(f"memory.{band.category}", lang),
            bytes=format_bytes(band.peak),
        )
        out.append(
            f'<path class="mg-mem-band mg-mem-{band.category}" data-node="{escape_html(band.key)}"'
            f' d="{_band_path(xs, [y_of(v) for v in low], [y_of(v) for v in high])}" '
            f'fill="{fill}" stroke="{PAPER}" stroke-width="0.75">'
            f"<title>{escape_html(tip)}</title></path>"
        )
        low = high
    out += _axes(chart, tick, top, x_of, y_of)
    out += _legend(chart)
    if chart.steps:
        px = x_of(chart.peak_step + 0.5)
        label = say("memory.peak_label", lang, bytes=format_bytes(chart.peak_bytes))
        anchor = "end" if px > LEFT + plot_w * 0.6 else "start"
        dx = -4 if anchor == "end" else 4
        out.append(
            f'<line class="mg-mem-peak" x1="{_fmt(px)}" x2="{_fmt(px)}" y1="{TOP - 16}" '
            f'y2="{TOP + plot_h}" stroke="{PEAK}" stroke-dasharray="4 3"/>'
            f'<text class="mg-mem-peak-label" x="{_fmt(px + dx)}" y="{TOP - 6}" '
            f'text-anchor="{anchor}" fill="{PEAK}">{escape_html(label)}</text>'
        )
    if marker:
        x = _fmt(x_of(0.5))
        out.append(
            f'<line class="mg-mem-marker" x1="{x}" x2="{x}" y1="{TOP - 4}" y2="{TOP + plot_h}" '
            f'stroke="{INK}" stroke-width="2"/>'
        )
    out.append("</svg>")
    return "".join(out)


def _axes(chart: Chart, tick: int, top: int, x_of, y_of) -> list[str]:
    """Byte ticks on the left, step numbers below, both axes' lines."""
    bottom = y_of(0)
    out = [
        f'<line class="mg-mem-axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{_fmt(bottom)}" '
        f'stroke="{AXIS}"/>',
        f'<line class="mg-mem-axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{_fmt(bottom)}" '
        f'y2="{_fmt(bottom)}" stroke="{AXIS}"/>',
    ]
    for n in range(0, top + 1, tick):
        y = _fmt(y_of(n))
        out.append(
            f'<text class="mg-mem-text" x="{LEFT - 4}" y="{y}" dy="3.5" text-anchor="end" '
            f'fill="{INK}">{escape_html(format_bytes(n))}</text>'
        )
    last = max(chart.steps - 1, 0)
    for k in sorted({0, last // 2, last}):  # numbered from 1, as the player's counter
        out.append(
            f'<text class="mg-mem-text" x="{_fmt(x_of(k + 0.5))}" y="{_fmt(bottom + 13)}" '
            f'text-anchor="middle" fill="{INK}">{k + 1}</text>'
        )
    word = escape_html(say("memory.axis_step", chart.lang))
    out.append(
        f'<text class="mg-mem-text" x="{WIDTH - RIGHT}" y="{_fmt(bottom + 26)}" '
        f'text-anchor="end" fill="{INK}">{word}</text>'
    )
    return out


def _legend(chart: Chart) -> list[str]:
    """A swatch and a name per category drawn (and the recomputed nodes' saved tensors), along
    the top, in stacking order."""
    drawn = {
        RECOMPUTED if b.key == RECOMPUTED and b.category == "saved" else b.category
        for b in chart.bands
    }
    out, x = [], LEFT
    for what in ("saved", RECOMPUTED, "grads", "buffers"):
        if what not in drawn:
            continue
        colour = RECOMPUTED_COLOUR if what == RECOMPUTED else COLOURS[what][0]
        name = say(f"memory.{what}", chart.lang)
        out.append(
            f'<rect x="{x}" y="8" width="10" height="10" fill="{colour}"/>'
            f'<text class="mg-mem-text" x="{x + 14}" y="17" fill="{INK}">'
            f"{escape_html(name)}</text>"
        )
        x += 24 + sum(11 if ord(c) > 0x2E80 else 6.5 for c in name)  # (CJK: wider)
    return out
