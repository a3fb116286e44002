"""Lesson 01 in Chinese: the setup check and the first exercise's feedback."""

from __future__ import annotations

import pytest
from labkit import lesson01, witness
from test_chinese_lessons import chinese_only

import minigrad as mg


def test_01_setup_check_in_chinese(chinese, said):
    out = said(lesson01.setup_check)
    chinese_only(out)
    assert "✗" not in out and out.rstrip().endswith("一切就绪：开始上课吧！")


@pytest.fixture(autouse=True)
def _watching():
    with witness.watching():  # (a lesson's kernel watches from its first cell on)
        yield


def test_01_solution_in_chinese(chinese, said):
    x = mg.tensor(2.0, requires_grad=True)
    (3 * x**2 + 2 * x).backward()
    out = said(lesson01.check_first_gradient, x.grad)
    chinese_only(out)
    assert out.startswith("✓ 第一个梯度：")


@pytest.mark.parametrize(
    "answer",
    [..., None, [14.0], mg.tensor(16.0), mg.tensor([1.0, 2.0]), mg.tensor(2.0), 28.0, 5.0],
)
def test_01_wrong_answers_in_chinese(chinese, said, answer):
    out = said(lesson01.check_first_gradient, answer)
    chinese_only(out)
    assert out.startswith("✗ 第一个梯度：还没对。")
