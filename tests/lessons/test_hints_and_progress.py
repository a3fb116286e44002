"""Hints come one at a time and only on request; progress is kept only in a learner's folder."""

from __future__ import annotations

import json

import pytest
from labkit import feedback, hints
from labkit import learner_progress as progress


@pytest.fixture(autouse=True)
def fresh_hints(monkeypatch):
    monkeypatch.setattr(hints, "HINTS", {})
    monkeypatch.setattr(hints, "LESSON_OF", {})
    monkeypatch.setattr(hints, "_shown", hints.Counter())
    monkeypatch.setattr(hints, "_last", [])


def _fail(exercise: str) -> None:
    v = feedback.verdict(exercise)
    v.require(False, "wrong")
    v.done("")


def test_a_failed_check_offers_the_next_hint_and_hint_shows_one_at_a_time(capsys, tmp_path):
    hints.register(
        "99",
        "toy",
        "look at the shapes",
        "sum over the batch",
        zh_title="玩具",
        zh=("看形状", "在批次上求和"),
    )
    _fail("toy")
    assert "Stuck? Run `hint()` for hint 1 of 2." in capsys.readouterr().out
    hints.hint()
    first = capsys.readouterr().out
    assert first.startswith("Hint 1 of 2 for toy:") and "look at the shapes" in first
    assert "sum over the batch" not in first
    _fail("toy")
    assert "hint 2 of 2" in capsys.readouterr().out
    hints.hint()
    assert "(the last one: the solution is next)" in capsys.readouterr().out
    _fail("toy")
    assert "Stuck?" not in capsys.readouterr().out  # nothing left to offer


def test_hint_without_a_checked_exercise_and_for_unknown_ones(capsys):
    hints.register("99", "toy", "one", zh_title="玩具", zh=("一",))
    hints.hint()
    assert "Run an exercise's check first" in capsys.readouterr().out
    hints.hint("nope")
    assert "No hints for 'nope'." in capsys.readouterr().out


def test_register_takes_one_to_three_hints_and_as_many_in_chinese():
    with pytest.raises(ValueError, match="one to three"):
        hints.register("99", "toy", zh_title="玩具", zh=())
    with pytest.raises(ValueError, match="one to three"):
        hints.register(
            "99", "toy", "a", "b", "c", "d", zh_title="玩具", zh=("甲", "乙", "丙", "丁")
        )
    with pytest.raises(ValueError, match="in Chinese"):
        hints.register("99", "toy", "a", "b", zh_title="玩具", zh=("甲",))
    with pytest.raises(ValueError, match="Chinese title"):
        hints.register("99", "toy", "a", zh_title="", zh=("甲",))


def test_progress_is_written_only_beside_learner_copies(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    hints.register("99", "toy", "one", zh_title="玩具", zh=("一",))
    _fail("toy")
    assert not (tmp_path / progress.FILE).exists()  # the solution notebooks: nothing written
    (tmp_path / progress.MARKER).write_text("{}")
    _fail("toy")
    v = feedback.verdict("toy")
    v.done("right")
    _fail("toy")  # a pass is never taken back
    assert json.loads((tmp_path / progress.FILE).read_text()) == {"toy": True}
    capsys.readouterr()
    progress.progress()
    out = capsys.readouterr().out
    assert "✓ toy" in out and "lesson 99" in out
