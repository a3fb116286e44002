"""Lesson 06 in Chinese: the feedback on the learner's second derivative."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from labkit import lesson06
from test_checks_lessons_01_07 import _first, through_grad, without_create_graph
from test_chinese_lessons import chinese_only

import minigrad as mg

TITLE = "二阶导数"


def second(f, x):
    return mg.autograd.grad(_first(f, x).sum(), x)[0]


def through_backward(f, x):
    f(x).sum().backward(create_graph=True)
    d1, x.grad = x.grad, None
    d1.sum().backward()
    return x.grad


def formula_after_a_pass(f, x):  # one plain backward pass, then f'' of x·sin(x) by hand
    f(x).sum().backward()
    return 2 * mg.cos(x) - x * mg.sin(x)


def numpy_formula(f, x):
    x = x.detach().numpy()
    return 2 * np.cos(x) - x * np.sin(x)


def test_06_solution_in_chinese(chinese, said):
    out = said(lesson06.check_second_derivative, second)
    chinese_only(out)
    assert out.startswith(f"✓ {TITLE}：")


def test_06_backward_with_a_reset_passes_in_chinese(chinese, said):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True)'s reference-cycle warning
        out = said(lesson06.check_second_derivative, through_backward)
    chinese_only(out)
    assert out.startswith(f"✓ {TITLE}：")


@pytest.mark.parametrize(
    ("answer", "expect"),
    [
        (..., "还是 `...`"),
        (2.0, "应该是一个函数"),
        (lambda f, x: None, "返回了 None"),
        (lambda f, x: object(), "应该返回 f''(x) 的张量"),
        (numpy_formula, "一次反向传播都没有运行"),
        (lambda f, x: 2 * mg.cos(x) - x * mg.sin(x), "用公式算出的"),
        (lambda f, x: np.cos(x.numpy()), "numpy 不会求导"),
        (_first, "这是一阶导数"),
        (without_create_graph, "计算它时传入 create_graph=True"),
        (through_grad, "f' + f''"),
        (lambda f, x: second(f, x) * 2, "两倍"),
        (lambda f, x: mg.autograd.grad(f(x), x, create_graph=True)[0], "请对标量求导"),
        (lambda f, x: second(f, x)[:2], "形状 (4,)"),
        (lambda f, x: second(f, x) + 1, "应该是 ["),
        (formula_after_a_pass, "数值是对的"),
    ],
)
def test_06_wrong_second_derivatives_in_chinese(chinese, said, answer, expect):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = said(lesson06.check_second_derivative, answer)
    chinese_only(out)
    assert out.startswith(f"✗ {TITLE}：还没对。") and expect in out, out


def test_06_the_function_is_named_in_chinese(chinese, said):
    out = said(lesson06.check_second_derivative, _first)
    assert "在 f(x) = x·sin(x)（x = [1.1, 0.93, -1.89, -0.26]）上，这是一阶导数" in out
