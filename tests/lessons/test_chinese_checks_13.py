"""Lesson 13 in Chinese: the check's feedback, and the Chinese lesson's quotes of the articles.

The Chinese lesson quotes each claim in its article's own words: a blockquote that starts with
`文章 NNN：` (the article, named as the English lesson names it) followed by the original text,
prose or a fenced code block, with `……` where a passage is left out. Every quoted passage must be
found verbatim in that article (../shared/seeds/NNN_*.txt), in order, once whitespace is
normalised; the Markdown around it (the `> ` marks, code fences, backticks) is not part of it.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from labkit import lesson13
from test_chinese_lessons import chinese_only

ROOT = Path(__file__).resolve().parents[2]
ZH_LESSON = ROOT / "notebooks" / "zh" / "13_myths_and_facts.ipynb"
EN_LESSON = ROOT / "notebooks" / "13_myths_and_facts.ipynb"
SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
LABEL = re.compile(r"文章 (\d{3})：")
CLAIM_ZH = re.compile(r"^### 说法 (\d+) · ", re.M)
RIGHT = {"a": False, "b": True, "c": True, "d": False, "e": True}


def test_13_solution_in_chinese(chinese, said):
    out = said(lesson13.check_predictions, RIGHT)
    chinese_only(out)
    assert out.startswith("✓ 报错还是运行？：")


@pytest.mark.parametrize("key", sorted(RIGHT))
def test_13_each_wrong_prediction_is_explained_in_chinese(chinese, said, key):
    out = said(lesson13.check_predictions, {**RIGHT, key: not RIGHT[key]})
    chinese_only(out)
    assert out.startswith("✗ 报错还是运行？：还没对。") and f"  - {key}：" in out
    assert "hint()" in out


@pytest.mark.parametrize(
    "answer",
    [
        ...,
        [True] * 5,
        {k.upper(): v for k, v in RIGHT.items()},
        {k: v for k, v in RIGHT.items() if k != "e"},
        {**RIGHT, "b": "yes"},
    ],
)
def test_13_malformed_answers_in_chinese(chinese, said, answer):
    out = said(lesson13.check_predictions, answer)
    chinese_only(out)
    assert out.startswith("✗ ")


def blockquotes(markdown: str) -> list[str]:
    """Each blockquote of a markdown cell (a run of `>` lines), without its `>` marks."""
    quotes, current = [], None
    for line in markdown.splitlines():
        if line.startswith(">"):
            text = line[1:].removeprefix(" ")
            current = text if current is None else f"{current}\n{text}"
        elif current is not None:
            quotes.append(current)
            current = None
    if current is not None:
        quotes.append(current)
    return quotes


def quotes(path: Path) -> list[tuple[str, str]]:
    """(article, quoted text) for every blockquote of a lesson, in order."""
    found = []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            for quote in blockquotes(cell.source):
                label = LABEL.match(quote)
                assert label, f"a blockquote that names no article (文章 NNN：):\n{quote}"
                found.append((label.group(1), quote[label.end() :]))
    return found


def normalise(text: str) -> str:
    return " ".join(text.split())


def passages(quote: str) -> list[str]:
    """The quoted passages: Markdown marks dropped, split where `……` leaves text out."""
    lines = [line for line in quote.splitlines() if not line.lstrip().startswith("```")]
    text = "\n".join(lines).replace("`", "")
    return [normalise(p) for p in re.split(r"…+", text) if normalise(p)]


def test_blockquote_parsing_and_passages():
    markdown = "intro\n> 文章 001：a\n> ```python\n> x  = 1\n> ```\n> ……b `c`\n\n> 文章 002：d"
    assert blockquotes(markdown) == ["文章 001：a\n```python\nx  = 1\n```\n……b `c`", "文章 002：d"]
    assert passages("a\n```python\nx  = 1\n```\n……b `c`") == ["a x = 1", "b c"]


def test_the_chinese_lesson_quotes_the_same_articles_in_the_same_order_one_per_claim():
    zh = quotes(ZH_LESSON)
    assert [article for article, _ in zh] == [article for article, _ in quotes(EN_LESSON)]
    assert len(zh) == 33
    cells = nbformat.read(ZH_LESSON, as_version=4).cells
    heads = [c.source for c in cells if c.cell_type == "markdown" and CLAIM_ZH.match(c.source)]
    assert [int(CLAIM_ZH.match(h).group(1)) for h in heads] == list(range(1, 34))
    for head in heads:
        assert len(blockquotes(head)) == 1, f"one quote of the article per claim:\n{head}"


@pytest.mark.skipif(not SEEDS.is_dir(), reason="../shared/seeds (the articles) absent")
def test_every_chinese_quote_is_verbatim_from_its_article():
    for article, quote in quotes(ZH_LESSON):
        (path,) = SEEDS.glob(f"{article}_*.txt")
        text = normalise(path.read_text(encoding="utf-8"))
        parts = passages(quote)
        assert sum(map(len, parts)) >= 10, f"too little quoted from {path.name}: {quote!r}"
        start = 0
        for part in parts:
            at = text.find(part, start)
            assert at >= 0, f"not in {path.name} (after what the quote gives before it): {part!r}"
            start = at + len(part)
