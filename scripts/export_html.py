"""Export the lessons to static HTML from the stored outputs: no kernel, no JavaScript, no network.

Every explorer output carries a `text/html` picture of the graph (an `<img>` whose SVG is a
base64 data URI, so the page fetches nothing), and a player is two outputs: that picture, then
the live widget. The exported pages thus show every graph even where no widget manager runs (an
email attachment, a course website, a browser with JavaScript off). Widget state and widget views
are dropped before export: with them, nbconvert would try to load the widget renderer from a CDN,
which fails offline and hides the picture behind an empty widget area, and an output holding
only a widget view has nothing a static page can show (nbconvert warns it is "not able to be
represented").

The pages read as static pages: each lesson opens with a note saying it is a still copy (the
code does not run, the ▶ of a player the text mentions is in the notebook), and each player's
picture says it is a still of the recorded pass instead of "run this cell to replay".

The pages work offline: the template (html_template/offline) drops require.js, MathJax and the
widget renderer, which JupyterLab's page loads from a CDN, and `$…$` math in markdown becomes
MathML, which browsers draw themselves. The index follows the course map (labkit/course.py) and
is exported like a lesson (one markdown cell through the same template: the same look, inline
code in titles rendered as code). Both languages are exported, the Chinese lessons
(notebooks/zh/) to `zh/` with an index in Chinese; each index links to the other.

    python scripts/export_html.py                 # the lessons -> artifacts/html/ (+ zh/)
    python scripts/export_html.py --lang zh       # only the Chinese ones
    python scripts/export_html.py --out DIR NB..  # chosen notebooks, elsewhere
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from pathlib import Path

import nbformat
from latex2mathml.converter import convert as to_mathml
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
TEMPLATES = Path(__file__).resolve().parent / "html_template"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.DOTALL)

sys.path.insert(0, str(NB_DIR))
sys.path.insert(0, str(ROOT))
from labkit.course import COURSE, LEVELS_ZH  # noqa: E402  (the course map lives with the lessons)

from widgets.texts import say  # noqa: E402  (the players' own words, in both languages)

# the note under a player's picture (widgets/player.py), which asks to run the cell
PLAYER_NOTE = re.compile(r'<div class="mg-note">.*?</div>', re.DOTALL)
STATIC_NOTE = {
    "en": (
        "> *A static copy of this lesson with its stored outputs: the code does not run here, "
        "and each graph player is a still picture of the pass it recorded. To run the code, try "
        "the exercises and play the animations (the ▶ buttons the text mentions), open the "
        "notebook in JupyterLab.*"
    ),
    "zh": (
        "> *这是本课连同已保存输出的静态副本：代码在这里不会运行，"
        "每个计算图播放器都只显示它所记录的那次传播的静态图。"
        "要运行代码、做练习、播放动画（正文提到的 ▶ 按钮），"
        "请在 JupyterLab 中打开这个 notebook。*"
    ),
}


def widget_only(output: nbformat.NotebookNode) -> bool:
    """An output that is a widget view and nothing a page can show (its text/plain is a repr)."""
    data = output.get("data", {})
    return WIDGET_VIEW in data and set(data) <= {WIDGET_VIEW, "text/plain"}


def mathml(markdown: str) -> str:
    """`$x^2$` and `$$…$$` as MathML, which needs no script to show."""

    def one(m: re.Match) -> str:
        block = m.group(1) is not None
        return to_mathml(
            (m.group(1) if block else m.group(2)).strip(), display="block" if block else "inline"
        )

    return MATH.sub(one, markdown)


def static_notebook(nb: nbformat.NotebookNode, lang: str = "en") -> nbformat.NotebookNode:
    """A copy whose outputs render without JavaScript and read as a static page: no widget state,
    no widget views, a note on top saying what the page is, each player's "run this cell" note
    replaced by one that says its picture is a still."""
    nb = nbformat.from_dict(nb)
    nb.metadata.pop("widgets", None)
    note = html.escape(say("player.export_note", lang))
    still = f'<div class="mg-note mg-export-note">{note}</div>'
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = mathml(cell.source)
        if "outputs" not in cell:
            continue
        cell.outputs = [out for out in cell.outputs if not widget_only(out)]
        for out in cell.outputs:
            data = out.get("data", {})
            data.pop(WIDGET_VIEW, None)  # the picture is what a page can show
            if "text/html" in data:
                page = "".join(data["text/html"])
                data["text/html"] = PLAYER_NOTE.sub(lambda _: still, page)
    if nb.cells:  # after the title, which the index and the page's <title> read
        nb.cells.insert(1, nbformat.v4.new_markdown_cell(STATIC_NOTE[lang]))
    return nb


def title_of(nb: nbformat.NotebookNode, fallback: str) -> str:
    """The first markdown heading, which is the lesson's title."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return fallback


INDEX = {
    "en": {
        "lang": "en",
        "title": "Autograd Lab",
        "intro": "The lessons with their stored outputs, in the course's order, each with its "
        "time, level and the lessons to do first. Every graph is a static picture here and "
        "nothing is fetched from the network; open the notebooks in JupyterLab to run them and "
        "to play the animations.",
        "other": '<a href="zh/index.html" lang="zh-CN">中文版</a>',
    },
    "zh": {
        "lang": "zh-CN",
        "title": "Autograd Lab 中文版",
        "intro": "按课程顺序排列的各课及其保存的输出，并注明每课的时长、难度和先修课程。"
        "这里的计算图都是静态图片，页面不会从网络加载任何内容；"
        "要运行代码、播放动画，请在 JupyterLab 中打开这些 notebook。",
        "other": '<a href="../index.html" lang="en">English</a>',
    },
}


def export(notebooks: list[Path], out: Path, lang: str = "en") -> Path:
    """Write one HTML page per notebook and an index.html linking them; returns the index."""
    out.mkdir(parents=True, exist_ok=True)
    exporter = HTMLExporter(template_name="offline", extra_template_basedirs=[str(TEMPLATES)])
    exporter.language_code = INDEX[lang]["lang"]  # <html lang=…>: zh-CN pages pick CJK fonts
    entries = []
    for path in notebooks:
        nb = static_notebook(nbformat.read(path, as_version=4), lang)
        if not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
            print(
                f"warning: {path.name} has no stored outputs; run `make notebooks` first",
                file=sys.stderr,
            )
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": path.stem}})
        page = out / f"{path.stem}.html"
        page.write_text(body, encoding="utf-8")
        entries.append((page.name, title_of(nb, path.stem), MAP.get(path.name)))
    words = INDEX[lang]
    items = "\n".join(
        f"1. [{markdown_text(title)}]({name}){_about(lesson, lang)}"
        for name, title, lesson in entries
    )
    source = f"# {words['title']}\n\n{words['intro']}\n\n{words['other']}\n\n{items}\n"
    index_nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(source)])
    index_nb.metadata["language_info"] = {"name": "python"}
    resources = {"metadata": {"name": words["title"]}}
    body, _ = exporter.from_notebook_node(index_nb, resources=resources)
    index = out / "index.html"
    index.write_text(body, encoding="utf-8")
    return index


MARKDOWN_SPECIAL = re.compile(r"([\\*_\[\]<>&#!|])")


def markdown_text(title: str) -> str:
    """A title as markdown link text: `code` spans kept (rendered as code), every other
    character that markdown or HTML would read escaped."""
    parts = re.split(r"(`[^`]+`)", title)
    return "".join(
        part if part.startswith("`") else MARKDOWN_SPECIAL.sub(r"\\\1", part) for part in parts
    )


MAP = {lesson.file: lesson for lesson in COURSE}


def _about(lesson, lang: str) -> str:
    """The course map's line for a lesson: time, level, what to do first."""
    if lesson is None:
        return ""
    first = ", ".join(lesson.after)
    if lang == "zh":
        level = LEVELS_ZH[lesson.level]
        return html.escape(f"（{lesson.minutes} 分钟，{level}；先修：{first or '无'}）")
    return html.escape(f" ({lesson.minutes} min, {lesson.level}; after {first or 'nothing'})")


def default_notebooks(lang: str = "en") -> list[Path]:
    """The lessons, in the course map's order (never scratch notebooks lying in notebooks/)."""
    folder = NB_DIR / "zh" if lang == "zh" else NB_DIR
    return [folder / lesson.file for lesson in COURSE]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "artifacts" / "html")
    parser.add_argument("--lang", choices=("en", "zh", "both"), default="both")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    languages = ("en", "zh") if args.lang == "both" else (args.lang,)
    for lang in languages:
        notebooks = args.notebooks or default_notebooks(lang)
        index = export(notebooks, args.out / "zh" if lang == "zh" else args.out, lang)
        print(f"exported {len(notebooks)} notebooks; open {index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
