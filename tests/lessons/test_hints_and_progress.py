"""Hints come one at a time and only on request, then the solution if the learner asks twice;
progress (passes, solutions shown) is kept only in a learner's folder."""

from __future__ import annotations

import json

import pytest
from labkit import feedback, hints, language, solutions
from labkit import learner_progress as progress


@pytest.fixture(autouse=True)
def fresh_hints(monkeypatch):
    monkeypatch.setattr(hints, "HINTS", {})
    monkeypatch.setattr(hints, "LESSON_OF", {})
    monkeypatch.setattr(hints, "_shown", hints.Counter())
    monkeypatch.setattr(hints, "_last", [])
    monkeypatch.setattr(hints, "_asked", set())


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
    assert "(the last one: run `solution()` to see the instructors' solution)" in (
        capsys.readouterr().out
    )
    _fail("toy")
    out = capsys.readouterr().out
    assert "Stuck? Run `hint()`" not in out  # no hint left to offer: the solution is
    assert "Still stuck? Run `solution()` to see the instructors' solution." in out


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
    assert json.loads((tmp_path / progress.FILE).read_text()) == {
        "passed": {"toy": True},
        "solution_shown": [],
    }
    capsys.readouterr()
    progress.progress()
    out = capsys.readouterr().out
    assert "✓ toy" in out and "lesson 99" in out


@pytest.fixture
def toy_solution(monkeypatch):
    """An exercise with two hints and a stored solution (in both languages)."""
    hints.register("99", "toy", "one", "two", zh_title="玩具", zh=("一", "二"))
    code = {"en": "answer = 42  # the answer", "zh": "answer = 42  # 答案"}
    monkeypatch.setattr(solutions, "lookup", lambda exercise, lang: code[lang])
    return code


def test_solution_is_shown_on_the_second_request_after_the_last_hint(toy_solution, capsys):
    _fail("toy")
    hints.hint()
    hints.hint()
    capsys.readouterr()
    hints.solution()
    first = capsys.readouterr().out
    assert "Run `solution()` again to see the instructors' solution for toy (lesson 99)" in first
    assert "the choice is yours" in first and "answer = 42" not in first
    hints.solution()
    second = capsys.readouterr().out
    assert second.startswith("The instructors' solution for toy (lesson 99)")
    assert "answer = 42  # the answer" in second
    hints.solution("toy")  # chosen once: shown again at once
    assert "answer = 42" in capsys.readouterr().out


def test_solution_before_the_hints_are_used_up_says_so_and_still_lets_the_learner_choose(
    toy_solution, capsys
):
    _fail("toy")
    hints.hint()
    capsys.readouterr()
    hints.solution()
    first = capsys.readouterr().out
    assert "You have seen 1 of the 2 hints for toy" in first and "run `hint()`" in first
    assert "run `solution()` again" in first and "answer = 42" not in first
    hints.solution()
    assert "answer = 42  # the answer" in capsys.readouterr().out
    hints.register("99", "other", "one", "two", zh_title="另一个", zh=("一", "二"))
    hints.solution("other")
    first = capsys.readouterr().out
    assert first.startswith("other has 2 hints you have not seen yet; the first may be all you")


def test_solution_names_an_exercise_in_either_language_and_refuses_unknown_ones(
    toy_solution, capsys
):
    hints.solution()
    assert "Run an exercise's check first, or name it: solution('…')" in capsys.readouterr().out
    hints.solution("nope")
    assert "There is no exercise called 'nope'." in capsys.readouterr().out
    hints.solution("玩具")
    hints.solution("玩具")
    assert "answer = 42" in capsys.readouterr().out


def test_solution_speaks_chinese_and_shows_the_chinese_lessons_code(toy_solution, capsys):
    language.use("zh")
    try:
        _fail("toy")
        capsys.readouterr()
        hints.solution()
        first = capsys.readouterr().out
        assert "「玩具」有 2 条提示，你还一条都没看；第一条也许就够了" in first
        assert "再运行一次 `solution()`" in first
        hints.solution()
        second = capsys.readouterr().out
        assert second.startswith("「玩具」（第 99 课）的参考答案") and "# 答案" in second
        hints.hint()
        hints.hint()
        assert "（最后一条：想看参考答案，运行 `solution()`）" in capsys.readouterr().out
        _fail("toy")
        assert "还是卡住了？运行 `solution()` 可以看参考答案。" in capsys.readouterr().out
    finally:
        language.use("en")


def test_a_solution_shown_is_recorded_in_progress(toy_solution, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / progress.MARKER).write_text("{}")
    _fail("toy")
    hints.solution()
    saved = json.loads((tmp_path / progress.FILE).read_text())
    assert saved["solution_shown"] == []  # asking once shows nothing, records nothing
    hints.solution()
    saved = json.loads((tmp_path / progress.FILE).read_text())
    assert saved == {"passed": {"toy": False}, "solution_shown": ["toy"]}
    feedback.verdict("toy").done("right")
    capsys.readouterr()
    progress.progress()
    out = capsys.readouterr().out
    assert "the instructors' solution was shown for 1" in out
    assert "✓ toy (solution shown)" in out
    language.use("zh")
    try:
        progress.progress()
        out = capsys.readouterr().out
        assert "看过参考答案的有 1 个" in out and "✓ 玩具（看过答案）" in out
    finally:
        language.use("en")


def test_progress_reads_the_first_format(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / progress.MARKER).write_text("{}")
    (tmp_path / progress.FILE).write_text(json.dumps({"toy": True}))
    hints.register("99", "toy", "one", zh_title="玩具", zh=("一",))
    _fail("toy")  # a pass is never taken back, in the old format either
    assert json.loads((tmp_path / progress.FILE).read_text()) == {
        "passed": {"toy": True},
        "solution_shown": [],
    }
