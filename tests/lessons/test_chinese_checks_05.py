"""Lesson 05 in Chinese: the feedback on the learner's micro-batch accumulation."""

from __future__ import annotations

import pytest
from labkit import hints, lesson05
from test_checks_lessons_01_07 import _mse
from test_chinese_lessons import CJK, chinese_only
from test_labkit_lessons_01_07 import _micro

TITLE = "微批次梯度累积"


def test_05_solution_in_chinese(chinese, said):
    out = said(lesson05.check_accumulated_grads, _micro(divide=True, zero=True))
    chinese_only(out)
    assert out.startswith(f"✓ {TITLE}：各微批次的梯度加起来")


def _whole_batch(model, X, Y, n_micro):
    model.zero_grad()
    _mse(model, X, Y).backward()


def _whole_batch_n_times(model, X, Y, n_micro):
    model.zero_grad()
    for _ in range(n_micro):
        (_mse(model, X, Y) / n_micro).backward()


def _one_graph_many_passes(model, X, Y, n_micro):
    model.zero_grad()
    loss = _mse(model, X, Y) / n_micro
    for _ in range(n_micro):
        loss.backward()


def _two_passes_each(model, X, Y, n_micro):
    model.zero_grad()
    for xb, yb in zip(X.chunk(n_micro), Y.chunk(n_micro)):
        half = _mse(model, xb, yb) / (2 * n_micro)
        half.backward(retain_graph=True)
        half.backward()


def _stub(model, X, Y, n_micro): ...


@pytest.mark.parametrize(
    ("answer", "expect"),
    [
        (..., "还是 `...`"),
        (3, "应该是一个函数"),
        (_stub, "函数体还是 `...` 吗"),
        (_micro(divide=False, zero=True), "梯度大了 3 倍"),
        (_micro(divide=True, zero=False), "旧梯度（处处为 5.0）"),
        (_micro(divide=True, zero=True, zero_inside=True), "在循环里面清零了梯度"),
        (_whole_batch, "分成 3 个各 4 行的微批次"),
        (_whole_batch_n_times, "[12, 12, 12]"),
        (_two_passes_each, "运行了 6 次反向传播"),
        (_one_graph_many_passes, "一张计算图只能用一次"),
        (lambda model, X, Y, n: model(X).backward(), "（标量）损失"),
    ],
)
def test_05_wrong_answers_in_chinese(chinese, said, answer, expect):
    out = said(lesson05.check_accumulated_grads, answer)
    chinese_only(out)
    assert out.startswith(f"✗ {TITLE}：还没对。") and expect in out, out


def test_05_hints_in_chinese(chinese):
    assert hints.TITLES_ZH["micro-batch accumulation"] == TITLE
    zh = hints.HINTS["micro-batch accumulation"]["zh"]
    assert len(zh) == 3 and all(CJK.search(h) for h in zh)
