"""Lesson 04 in Chinese: the feedback on the learner's Jacobian (and jacobians.slip, in Chinese)."""

from __future__ import annotations

import numpy as np
import pytest
from labkit import jacobians, lesson04
from test_checks_lessons_01_07 import _rows, finite_differences, new_x, three_outputs
from test_chinese_lessons import CJK, ENGLISH_RUN, chinese_only

TITLE = "用反向传播求雅可比矩阵"


def test_04_solution_in_chinese(chinese, said):
    out = said(lesson04.check_jacobian, _rows)
    chinese_only(out)
    assert out.startswith(f"✓ {TITLE}：")


@pytest.mark.parametrize(
    ("answer", "expect"),
    [
        (..., "还是 `...`"),
        (3, "应当是一个函数"),
        (lambda f, x: None, "应当返回雅可比矩阵"),
        (lambda f, x: {"rows": 3}, "嵌套列表"),
        (lambda f, x: lesson04.TABLE.tolist(), "本课里的那张表"),
        (finite_differences, "没有运行任何反向传播"),
        (lambda f, x: _rows(f, x, transpose=True), "转置"),
        (lambda f, x: _rows(f, x, total=True), "向量-雅可比积"),
        (lambda f, x: _rows(f, x, reset=False), "累积"),
        (lambda f, x: _rows(f, x)[:, :1], "形状"),
        (lambda f, x: _rows(f, x) * 1.5, "个元素不对"),
        (lambda f, x: _rows(f, x, retain=False), "retain_graph=True"),
        (lambda f, x: f(x).backward(), "梯度向量"),
        (three_outputs, "要从 y 读出来"),
        (new_x, "不要再新建一个"),
    ],
)
def test_04_wrong_jacobians_in_chinese(chinese, said, answer, expect):
    out = said(lesson04.check_jacobian, answer)
    chinese_only(out)
    assert out.startswith(f"✗ {TITLE}：还没对。") and expect in out


def test_04_the_second_function_is_named_in_chinese(chinese, said):
    out = said(lesson04.check_jacobian, three_outputs)
    assert "函数 f(x) = [x0·x1·x2, exp(x2) − x0]（2 个输出，3 个输入；x = " in out


def test_jacobians_slip_speaks_the_lesson_language(chinese):
    want = np.array([[1.0, 2.0], [3.0, 4.0]])
    for got in (want.sum(0), np.cumsum(want, 0), want[:, :1], want + 1):
        text = jacobians.slip(got, want)
        assert CJK.search(text) and not ENGLISH_RUN.search(text), text
