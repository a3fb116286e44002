"""DOT text -> SVG through Graphviz's `dot`, once per distinct graph, with a clear message when
`dot` is missing (the Python `graphviz` package is only a front end to that program)."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess

import graphviz

DOT_MISSING = (
    "Graphviz's `dot` program was not found, so the graph cannot be drawn. Get it one of these "
    "ways:\n"
    "  - Debian/Ubuntu: sudo apt-get install graphviz\n"
    "  - conda / Binder: conda install -c conda-forge graphviz (environment.yml already has it)\n"
    "  - pip only: pip install graphviz-pure, then put a link to its `graphviz-pure` program named "
    "`dot` on your PATH"
)


class DotNotFoundError(RuntimeError):
    """Raised instead of graphviz's bare ExecutableNotFound, with the ways to install `dot`."""


def _use_graphviz_pure_if_dot_missing() -> None:
    """The pip-only route: point the graphviz package at `graphviz-pure` when `dot` is absent."""
    dot_command = graphviz.backend.dot_command
    if shutil.which(str(dot_command.DOT_BINARY)) is None:
        pure = shutil.which("graphviz-pure")
        if pure is not None:
            dot_command.DOT_BINARY = pure


@functools.lru_cache(maxsize=32)
def layout_svg(source: str) -> str:
    """Lay `source` out with dot and return inline-ready SVG (no XML prolog or comments).

    Cached by DOT text: redrawing the same graph (a re-run cell, a second view) costs nothing.
    """
    _use_graphviz_pure_if_dot_missing()
    try:
        raw = graphviz.pipe("dot", "svg", source.encode("utf-8"))
    except graphviz.ExecutableNotFound as err:
        raise DotNotFoundError(DOT_MISSING) from err
    except subprocess.CalledProcessError as err:
        detail = (err.stderr or b"").decode("utf-8", "replace").strip()
        raise RuntimeError(f"dot failed to lay out the graph: {detail}") from err
    return clean_svg(raw.decode("utf-8"))


_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_COMMENT = re.compile(r"<!--.*?-->\n?", re.S)


def clean_svg(svg: str) -> str:
    """Drop what only a standalone .svg file needs, and let the picture shrink to its container."""
    svg = _COMMENT.sub("", _PROLOG.sub("", svg, count=1))
    return svg.replace("<svg ", '<svg class="mg-svg" style="max-width:100%;height:auto" ', 1)
