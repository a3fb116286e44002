"""Lesson 13 runs every claim of shared/seed-facts.md, each quoted verbatim from its article.

`ROWS` pairs each row of seed-facts.md (in file order, both tables) with the lesson's claim number
and a phrase that both the row's claim and the lesson's claim cell contain. The lesson's own shape
is always checked; the checks against seed-facts.md and the articles need `../shared` beside the
checkout (every developer and CI machine has it) and are skipped in a bare clone.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from labkit import hints, lesson13

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "notebooks" / "13_myths_and_facts.ipynb"
SHARED = ROOT.parent / "shared"
QUOTE = re.compile(r"^> 文章 (\d{3})：(.+)$", re.M)
CLAIM = re.compile(r"^### Claim (\d+) · ")

ROWS = [  # (article, phrase in the seed-facts claim and in the lesson's claim cell, claim number)
    ("000", "a leaf is a tensor", 1),
    ("000", "x.grad = 0", 4),
    ("000", "zero_grad()", 5),
    ("000", "clip_grad_norm_(p, 1.0)", 6),
    ("000", "problem 1", 2),
    ("000", "non-leaf", 3),
    ("001", "input.clamp(min=0)", 11),
    ("001", "mark_non_differentiable(input)", 12),
    ("001", "x.add_(1)", 8),
    ("001", "x._version", 9),
    ("001", "z.backward()", 17),
    ("001", "a second backward", 18),
    ("001", "graph traversal", 26),
    ("002", "a.data.sigmoid_()", 10),
    ("002", "eps", 14),
    ("002", "volatile", 19),
    ("003", "only scalars", 15),
    ("003", "CustomReLU", 13),
    ("004", "autograd.grad()", 7),
    ("000", "in the optimizer", 16),
    ("001", "topological_nr", 22),
    ("001", "smallest topological number", 23),
    ("001", "GraphTask.execute()", 24),
    ("001", "avoid Python control flow", 25),
    ("003", "20–30%", 27),
    ("003", "torch.cuda.amp.GradScaler()", 21),
    ("002", "torch.autograd.backward(..., grad_variables=...)", 20),
    ("000", "nodes are tensors", 28),
    ("000", "reversed(topological_order)", 29),
    ("001", "python_anomaly_mode.cpp", 30),
    ("001", "several successor nodes", 31),
    ("001", "micro-batch", 32),
    ("001", "model(inputs).detach()", 33),
]
CLAIMS = len(ROWS)  # every row of seed-facts.md is one claim of the lesson

needs_shared = pytest.mark.skipif(
    not (SHARED / "seed-facts.md").exists(), reason="../shared (seed facts, articles) not beside"
)


def plain(text: str) -> str:
    """Markdown without code and emphasis marks, so phrases compare as words."""
    return text.replace("`", "").replace("*", "")


def lesson_cells() -> list:
    return nbformat.read(LESSON, as_version=4).cells


def claim_sections() -> dict[int, list]:
    """Claim number -> its cells: the claim's markdown cell and every cell up to the next one."""
    sections: dict[int, list] = {}
    current = None
    for cell in lesson_cells():
        found = CLAIM.match(cell.source) if cell.cell_type == "markdown" else None
        if found:
            current = int(found.group(1))
            assert current not in sections, f"claim {current} appears twice"
            sections[current] = [cell]
        elif cell.cell_type == "markdown" and cell.source.startswith("## "):
            current = None  # a new part (or the exercise) ends the claim before it
        elif current is not None:
            sections[current].append(cell)
    return sections


def quotes() -> list[tuple[int, str, str]]:
    """(claim number, article, quote) for every quote line of the lesson."""
    return [
        (number, article, quote)
        for number, cells in claim_sections().items()
        for article, quote in QUOTE.findall(cells[0].source)
    ]


def seed_rows() -> list[tuple[str, str]]:
    """(article, claim) for every row of the tables in seed-facts.md (an article may name its
    section too: `001 §3.3`)."""
    rows = []
    for line in (SHARED / "seed-facts.md").read_text(encoding="utf-8").splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(r"\d{3}( §[\d.]+)?", cols[0]):
            rows.append((cols[0][:3], cols[1]))
    return rows


def test_the_lesson_has_33_claims_in_order_each_quoted_paraphrased_run_and_judged():
    sections = claim_sections()
    assert list(sections) == list(range(1, CLAIMS + 1)) and CLAIMS == 33
    for number, cells in sections.items():
        head = cells[0].source
        assert len(QUOTE.findall(head)) == 1, f"claim {number}: one quote line '> 文章 NNN：…'"
        assert "**Claim:**" in head, f"claim {number}: an English paraphrase"
        assert any(c.cell_type == "code" for c in cells[1:]), f"claim {number}: a cell that runs it"
        verdicts = [c for c in cells[1:] if re.search(r"^\*\*Verdict: ", c.source, re.M)]
        assert len(verdicts) == 1, f"claim {number}: one verdict"
        # behind a "check your prediction" fold, so it is not read before the cell runs
        assert verdicts[0].source.startswith("<details><summary><b>Verdict</b>"), number
        assert verdicts[0].source.rstrip().endswith("</details>"), number


def test_each_row_has_its_claim_with_the_article_number_and_its_key_phrase():
    sections = claim_sections()
    assert sorted(number for _, _, number in ROWS) == list(range(1, CLAIMS + 1))
    for article, phrase, number in ROWS:
        head = sections[number][0].source
        assert QUOTE.search(head).group(1) == article, f"claim {number} quotes article {article}"
        assert phrase in plain(head), f"claim {number} names {phrase!r}"


def test_quotes_are_short():
    for number, _, quote in quotes():
        assert len(quote) <= 100, f"claim {number}: quote only the claim sentence"


@needs_shared
def test_rows_match_seed_facts():
    rows = seed_rows()
    assert len(rows) == len(ROWS) == 33
    for (article, claim), (want_article, phrase, number) in zip(rows, ROWS):
        assert article == want_article, f"claim {number}: row order of seed-facts.md changed"
        assert phrase in plain(claim), f"claim {number}: {phrase!r} not in {claim!r}"


@needs_shared
def test_every_quote_is_verbatim_from_its_article():
    for number, article, quote in quotes():
        (path,) = (SHARED / "seeds").glob(f"{article}_*.txt")
        text = path.read_text(encoding="utf-8")
        for fragment in quote.split(" … "):
            fragment = fragment.strip().strip("`")
            assert fragment and fragment in text, f"claim {number}: {fragment!r} not in {path.name}"


def test_timing_outputs_are_not_compared():
    for cell in lesson_cells():
        if cell.cell_type == "code" and re.search(r"perf_counter|cpu_time_total", cell.source):
            assert "nbval-ignore-output" in cell.metadata.get("tags", []), cell.source[:60]


def test_imports_hint_registers_hints_and_ends_with_next():
    cells = lesson_cells()
    assert any(
        "from labkit import hint, lesson13" in c.source for c in cells if c.cell_type == "code"
    )
    assert 1 <= len(hints.HINTS["Raise or run?"]) <= 3
    assert "hint()" in next(c.source for c in cells if c.source.startswith("## Exercise"))
    assert "Next: lesson 14" in cells[-1].source


RIGHT = {"a": False, "b": True, "c": True, "d": False, "e": True}


def test_13_keys_that_are_no_snippet_are_named(said):
    out = said(lesson13.check_predictions, {k.upper(): v for k, v in RIGHT.items()})
    assert "there is no snippet 'A', 'B'" in out and "lower case" in out
    assert "no snippet 'f'" in said(lesson13.check_predictions, {**RIGHT, "f": True})


def test_13_a_wrong_answer_offers_a_hint(said):
    out = said(lesson13.check_predictions, {**RIGHT, "b": False})
    assert "Stuck? Run `hint()`" in out
    assert "should be a dict" in said(lesson13.check_predictions, [True] * 5)
