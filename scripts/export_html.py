"""Export the lesson suite to static HTML from the stored outputs (no kernel, no JavaScript).

Every explorer output carries a `text/html` picture of the graph (an `<img>` whose SVG is a
base64 data URI, so the page fetches nothing), and a player is two outputs: that picture, then
the live widget. The exported pages thus show every graph even where no widget manager runs (an
email attachment, a course website, a browser with JavaScript off). Widget state and widget views
are dropped before export: with them, nbconvert would try to load the widget renderer from a CDN,
which fails offline and hides the picture behind an empty widget area, and an output holding
only a widget view has nothing a static page can show (nbconvert warns it is "not able to be
represented").

    python scripts/export_html.py                 # notebooks/*.ipynb -> artifacts/html/
    python scripts/export_html.py --out DIR NB..  # chosen notebooks, elsewhere
"""

from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path

import nbformat
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def widget_only(output: nbformat.NotebookNode) -> bool:
    """An output that is a widget view and nothing a page can show (its text/plain is a repr)."""
    data = output.get("data", {})
    return WIDGET_VIEW in data and set(data) <= {WIDGET_VIEW, "text/plain"}


def static_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy whose outputs render without JavaScript: no widget state, no widget views."""
    nb = nbformat.from_dict(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if "outputs" not in cell:
            continue
        cell.outputs = [out for out in cell.outputs if not widget_only(out)]
        for out in cell.outputs:
            out.get("data", {}).pop(WIDGET_VIEW, None)  # the picture is what a page can show
    return nb


def title_of(nb: nbformat.NotebookNode, fallback: str) -> str:
    """The first markdown heading, which is the lesson's title."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return fallback


def export(notebooks: list[Path], out: Path) -> Path:
    """Write one HTML page per notebook and an index.html linking them; returns the index."""
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="lab")
    entries = []
    for path in notebooks:
        nb = static_notebook(nbformat.read(path, as_version=4))
        if not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
            print(
                f"warning: {path.name} has no stored outputs; run `make notebooks` first",
                file=sys.stderr,
            )
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        page = out / f"{path.stem}.html"
        page.write_text(body, encoding="utf-8")
        entries.append((page.name, title_of(nb, path.stem)))
    items = "\n".join(
        f'  <li><a href="{html.escape(name)}">{html.escape(title)}</a></li>'
        for name, title in entries
    )
    index = out / "index.html"
    index.write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>Autograd Lab</title></head>\n<body>\n<h1>Autograd Lab</h1>\n"
        "<p>The lessons with their stored outputs. Every graph is a static picture here; open the "
        "notebooks in JupyterLab to run them and to play the animations.</p>\n"
        f"<ol>\n{items}\n</ol>\n</body></html>\n",
        encoding="utf-8",
    )
    return index


def default_notebooks() -> list[Path]:
    """The numbered lessons in order, then any other notebook (the explorer demo)."""
    lessons = sorted(NB_DIR.glob("[0-9][0-9]_*.ipynb"))
    others = sorted(p for p in NB_DIR.glob("*.ipynb") if p not in lessons)
    return lessons + others


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "html")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    notebooks = args.notebooks or default_notebooks()
    index = export(notebooks, args.out)
    print(f"exported {len(notebooks)} notebooks; open {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
