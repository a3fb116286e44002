"""DOT text -> SVG with the Graphviz that `pip install` brings: graphviz-pure, never a system `dot`.

graphviz-pure (PyPI) is Graphviz 16.1.0 ported to Rust and shipped as one program in a wheel for
Linux (x86-64, ARM64, musl), macOS and Windows; it writes the same bytes on every platform, and
the same bytes as Graphviz 16.1.0's own C code compiled to WebAssembly (@viz-js/viz 3.31.0, checked
on the explorer's drawings by tests/widgets/test_explorer_engine.py). A system `dot`, when there
is one, is never asked: its version would decide the picture. Every picture is laid out here, in
the kernel, once; notebook outputs, live players and saved replays all show that same SVG.
"""

from __future__ import annotations

import functools
import importlib.metadata
import re
import shutil
import subprocess
from pathlib import Path

ENGINE = "graphviz-pure"
ENGINE_MISSING = (
    "The graph layout program graphviz-pure was not found, so the graph cannot be drawn. It comes "
    "with the explorer's dependencies: pip install graphviz-pure  (or pip install -e '.[widgets]' "
    "in the Autograd Lab folder). No system Graphviz is needed."
)


class LayoutError(RuntimeError):
    """The layout program is missing or failed; the message says what to do."""


@functools.cache
def engine_path() -> str:
    """The graphviz-pure program installed with this Python.

    Found through its package record first, so a kernel started without the environment's `bin/`
    on its PATH (a common Jupyter set-up) still finds it; then on PATH.
    """
    try:
        dist = importlib.metadata.distribution(ENGINE)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    for file in (dist.files or []) if dist is not None else []:
        if file.name in (ENGINE, f"{ENGINE}.exe"):
            path = Path(dist.locate_file(file)).resolve()
            if path.is_file():
                return str(path)
    found = shutil.which(ENGINE)
    if found is None:
        raise LayoutError(ENGINE_MISSING)
    return found


@functools.lru_cache(maxsize=32)
def layout_svg(source: str) -> str:
    """Lay `source` out and return inline-ready SVG (no XML prolog or comments).

    Cached by DOT text: redrawing the same graph (a re-run cell, a second view) costs nothing.
    """
    try:
        done = subprocess.run(
            [engine_path(), "-Tsvg"],
            input=source.encode("utf-8"),
            capture_output=True,
            check=False,
            creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0),  # no console on Windows
        )
    except OSError as err:
        raise LayoutError(f"{ENGINE} could not be started ({err}). {ENGINE_MISSING}") from err
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace").strip()
        raise LayoutError(f"{ENGINE} failed to lay out the graph: {detail}")
    return clean_svg(done.stdout.decode("utf-8"))


_PROLOG = re.compile(r"^.*?(?=<svg\b)", re.S)
_COMMENT = re.compile(r"<!--.*?-->\n?", re.S)


def clean_svg(svg: str) -> str:
    """Drop what only a standalone .svg file needs (the prolog, comments naming the engine)."""
    return _COMMENT.sub("", _PROLOG.sub("", svg, count=1))
