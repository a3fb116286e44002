"""The Chinese course (notebooks/zh/) kept in step with the English one.

- every lesson exists in both languages;
- code cells are the English ones apart from string literals and comments (same cells, same tags,
  same code once every literal is blanked and f-strings are reduced to the expressions they hold);
- the Chinese prose is Chinese: no English sentence outside code, maths and links;
- labkit speaks Chinese there: every text it prints is written `say(English, 中文)`, every exercise
  has a Chinese title and as many Chinese hints as English ones, and every stored verdict in a
  Chinese lesson is in Chinese.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from pathlib import Path

import nbformat
import pytest
from IPython.core.inputtransformer2 import TransformerManager
from labkit import hints

NB_DIR = Path(__file__).resolve().parents[2] / "notebooks"
ZH_DIR = NB_DIR / "zh"
LABKIT = NB_DIR / "labkit"
PAIRS = sorted(p.name for p in NB_DIR.glob("*.ipynb"))
CJK = re.compile(r"[\u4e00-\u9fff]")
# Three or more Latin words in a row: an English phrase, not a term (PyTorch, autograd, leaf node)
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ ,;:]+[A-Za-z][A-Za-z'’-]*){3,}")
# what minigrad or Python said, quoted in Chinese feedback: it stays as the library wrote it
LIBRARY_WORDS = re.compile(r"“[^”]*”|\w+Error[（：][^）\n]*|抛出了 \w+（[^）]*）")


def chinese_only(out: str, *quoted: str) -> None:
    """A check's output is Chinese throughout, apart from what the library itself said (quoted
    “…”, after `SomeError：`, in `抛出了 SomeError（…）`, or given in `quoted`)."""
    for text in quoted:
        out = out.replace(text, "…")
    assert CJK.search(out), out
    for line in LIBRARY_WORDS.sub("…", out).splitlines():
        assert not ENGLISH_RUN.search(line), f"English left in: {line!r}"


def _read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def test_every_lesson_exists_in_both_languages() -> None:
    english = {p.name for p in NB_DIR.glob("*.ipynb")}
    chinese = {p.name for p in ZH_DIR.glob("*.ipynb")}
    assert english - chinese == set(), "lessons with no Chinese version"
    assert chinese - english == set(), "Chinese lessons with no English version"


class _BlankLiterals(ast.NodeTransformer):
    """Blank what a translation may change: string literals; f-strings keep their expressions."""

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        return ast.Constant("") if isinstance(node.value, str) else node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        parts = [self.visit(v.value) for v in node.values if isinstance(v, ast.FormattedValue)]
        return ast.Tuple(sorted(parts, key=ast.dump), ast.Load())


def _code_shape(source: str) -> str:
    python = TransformerManager().transform_cell(source)  # %magics and !commands as Python
    return ast.dump(_BlankLiterals().visit(ast.parse(python)))


def _code_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


@pytest.mark.parametrize("name", PAIRS)
def test_code_cells_match_the_english_apart_from_literals_and_comments(name: str) -> None:
    english, chinese = _code_cells(_read(NB_DIR / name)), _code_cells(_read(ZH_DIR / name))
    assert len(chinese) == len(english), f"{len(english)} code cells in English, {len(chinese)}"
    for k, (en, zh) in enumerate(zip(english, chinese)):
        where = f"code cell {k + 1}:\n--- English\n{en.source}\n--- Chinese\n{zh.source}"
        assert en.metadata.get("tags", []) == zh.metadata.get("tags", []), where
        assert _code_shape(en.source) == _code_shape(zh.source), where


LESSONS = [name for name in PAIRS if re.match(r"\d\d_", name)]


@pytest.mark.parametrize("name", LESSONS)
def test_chinese_lesson_structure_mirrors_the_english(name: str) -> None:
    """本课内容 first, 小结 last, ending with 下一课： and the next lesson on the course map."""
    from labkit.course import COURSE

    cells = _read(ZH_DIR / name).cells
    assert cells[0].cell_type == "markdown" and "本课内容" in cells[0].source
    last = [c.source for c in cells if c.cell_type == "markdown"][-1]
    assert "小结" in last.splitlines()[0], "the last markdown cell must be a 小结 (summary)"
    files = [lesson.file for lesson in COURSE]
    if files.index(name) + 1 < len(files):
        following = COURSE[files.index(name) + 1]
        assert "下一课：" in last and f"{following.number} ·" in last
        assert f"]({following.file})" in last, "link the next Chinese lesson (same file name)"


def _prose(markdown: str) -> str:
    """Markdown without what stays English in a Chinese text: code, maths, links, HTML tags."""
    for pattern in (
        r"```.*?```",
        r"`[^`]*`",
        r"\$\$.*?\$\$",
        r"\$[^$]*\$",
        r"\]\([^)]*\)",
        r"<[^>]+>",
        r"https?://\S+",
    ):
        markdown = re.sub(pattern, " ", markdown, flags=re.S)
    return markdown


@pytest.mark.parametrize("name", PAIRS)
def test_chinese_prose_has_no_english_sentences(name: str) -> None:
    for cell in _read(ZH_DIR / name).cells:
        if cell.cell_type != "markdown":
            continue
        prose = _prose(cell.source)
        assert not ENGLISH_RUN.search(prose), f"English left in:\n{cell.source}"
        if re.search(r"[A-Za-z]{4,}", prose):
            assert CJK.search(prose), f"a markdown cell with words but no Chinese:\n{cell.source}"


# a source line ending in Chinese and the next one going on in Chinese: Markdown joins them with
# a space, which Chinese text does not have (你好 世界)
CJK_LINE_BREAK = re.compile(r"[\u4e00-\u9fff，。、；：？！）」”]\n[ \t]*(?=[\u4e00-\u9fff（「“])")


@pytest.mark.parametrize("name", PAIRS)
def test_chinese_paragraphs_are_not_broken_between_characters(name: str) -> None:
    for cell in _read(ZH_DIR / name).cells:
        if cell.cell_type == "markdown":
            text = re.sub(r"```.*?```", "", cell.source, flags=re.S)  # code blocks aside
            found = CJK_LINE_BREAK.search(text)
            assert not found, (
                f"a line break inside a Chinese sentence (shows as a space):\n{cell.source}"
            )


VERDICT_LINE = re.compile(r"^\s*(✓|✗|- )")


@pytest.mark.parametrize("name", PAIRS)
def test_stored_verdicts_in_chinese_lessons_are_chinese(name: str) -> None:
    for cell in _code_cells(_read(ZH_DIR / name)):
        for out in cell.get("outputs", []):
            for line in out.get("text", "").splitlines():
                if VERDICT_LINE.match(line) and ENGLISH_RUN.search(line):
                    assert CJK.search(line), f"an English verdict in a Chinese lesson: {line!r}"


def _all_lesson_modules() -> None:
    for info in pkgutil.iter_modules([str(LABKIT)]):
        if info.name.startswith("lesson"):
            importlib.import_module(f"labkit.{info.name}")


def test_every_exercise_has_a_chinese_title_and_as_many_chinese_hints() -> None:
    _all_lesson_modules()
    for exercise, by_language in hints.HINTS.items():
        assert CJK.search(hints.TITLES_ZH.get(exercise, "")), f"{exercise!r}: no Chinese title"
        assert len(by_language["zh"]) == len(by_language["en"]), f"{exercise!r}: Chinese hints"
        assert all(CJK.search(h) for h in by_language["zh"]), f"{exercise!r}: hints not Chinese"


def _text(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


NOT_SHOWN_CALLS = {
    "verdict",
    "verdict_or_demo",
    "register",
    "Lesson",
    "search",
    "match",
    "fullmatch",
    "sub",
}
NOT_SHOWN_CALLS |= {"findall", "compile", "startswith", "endswith", "split", "replace"}
NAMES = {"Noto Sans CJK SC", "WenQuanYi Micro Hei"}  # font families (chinese_fonts.py), not prose


def _english_outside_say(tree: ast.Module) -> list[tuple[int, str]]:
    """English phrases a learner could read that are not the first half of a `say`.

    Not shown to a learner: docstrings, exercise keys (`verdict("…")`, `register(…)`), patterns
    matched against minigrad's English error messages, and exceptions raised for developers.
    """
    exempt: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            exempt.add(id(body[0].value))  # a docstring
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
            if name == "say" and node.args:
                exempt.add(id(node.args[0]))
            elif name in NOT_SHOWN_CALLS:
                exempt.update(id(a) for a in node.args)
        if isinstance(node, ast.Compare):
            exempt.update(id(a) for a in (node.left, *node.comparators))
        if isinstance(node, ast.Raise):
            exempt.add(id(node))
    for node in list(ast.walk(tree)):
        if id(node) in exempt:
            exempt.update(id(d) for d in ast.walk(node))
    parts_of_fstrings = {
        id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values
    }
    found = []
    for node in ast.walk(tree):
        text = _text(node)
        if (
            text
            and text not in NAMES
            and id(node) not in exempt
            and id(node) not in parts_of_fstrings
        ):
            if ENGLISH_RUN.search(text) or re.fullmatch(r"[A-Za-z ,.]+[.!?:]", text.strip()):
                found.append((node.lineno, text))
    return found


@pytest.mark.parametrize("module", sorted(p.name for p in LABKIT.glob("*.py")))
def test_labkit_writes_every_learner_facing_text_in_both_languages(module: str) -> None:
    tree = ast.parse((LABKIT / module).read_text(encoding="utf-8"))
    left = _english_outside_say(tree)
    assert not left, "\n".join(f"{module}:{line}: {text[:80]!r}" for line, text in left)


def test_every_exercise_hints_in_chinese_to_the_last_one(capsys, monkeypatch):
    """`hint()` in a Chinese lesson: every hint of every exercise Chinese, the last one marked."""
    from collections import Counter

    from labkit import hint, language

    _all_lesson_modules()
    monkeypatch.setattr(hints, "_shown", Counter())  # leave the other tests' hint counts alone
    language.use("zh")
    try:
        for exercise, texts in hints.HINTS.items():
            for _ in texts["zh"]:
                hint(exercise)
            out = capsys.readouterr().out
            chinese_only(out)
            assert out.startswith(f"「{hints.title(exercise)}」的提示 1/"), out
            assert "（最后一条：想看参考答案，运行 `solution()`）" in out, out
    finally:
        language.use("en")
