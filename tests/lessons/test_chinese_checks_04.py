"""Lesson 04 in Chinese: the feedback on the learner's Jacobian (and jacobians.slip, in Chinese)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from labkit import jacobians, lesson04
from test_chinese_lessons import CJK, ENGLISH_RUN

import minigrad as mg

TITLE = "用反向传播求雅可比矩阵"
QUOTED = re.compile(r"“[^”]*”")  # minigrad's own error message, quoted as it is


def chinese_only(out: str) -> None:
    assert CJK.search(out), out
    for line in QUOTED.sub("“…”", out).splitlines():
        assert not ENGLISH_RUN.search(line), f"English left in: {line!r}"


def rows(f, x, reset=True, retain=True, transpose=False, total=False):
    y = f(x)
    found = []
    for i in range(len(y)):
        if reset:
            x.grad = None
        y.backward(mg.eye(len(y))[i], retain_graph=retain)
        found.append(x.grad.clone())
    jac = mg.stack(found)
    if total:
        return jac.sum(0)
    return jac.T if transpose else jac


def three_outputs(f, x):
    y = f(x)
    return mg.stack([mg.autograd.grad(y, x, mg.eye(3)[i], retain_graph=True)[0] for i in range(3)])


def new_x(f, x):
    x = mg.tensor(x.tolist())
    return mg.autograd.grad(f(x), x, mg.ones(len(f(x))))


def finite_differences(f, x):
    base, eps, cols = f(x).detach().numpy(), 1e-3, []
    for j in range(len(x)):
        moved = x.detach().clone()
        moved[j] += eps
        cols.append((f(moved).detach().numpy() - base) / eps)
    return np.stack(cols, 1)


def test_04_solution_in_chinese(chinese, said):
    out = said(lesson04.check_jacobian, rows)
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
        (lambda f, x: rows(f, x, transpose=True), "转置"),
        (lambda f, x: rows(f, x, total=True), "向量-雅可比积"),
        (lambda f, x: rows(f, x, reset=False), "累积"),
        (lambda f, x: rows(f, x)[:, :1], "形状"),
        (lambda f, x: rows(f, x) * 1.5, "个元素不对"),
        (lambda f, x: rows(f, x, retain=False), "retain_graph=True"),
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
