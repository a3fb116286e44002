"""Lesson 03 in Chinese: the feedback on the is_leaf predictions and on retain_grad."""

from __future__ import annotations

import pytest
from labkit import lesson03, witness
from test_chinese_lessons import chinese_only

import minigrad as mg


@pytest.fixture(autouse=True)
def _watching():
    with witness.watching():  # (a lesson's kernel watches from its first cell on)
        yield


RIGHT = {"w": True, "k": True, "p": True, "q": False, "r": True, "s": True}


def test_03_leaf_predictions_solution_in_chinese(chinese, said):
    out = said(lesson03.check_leaf_predictions, RIGHT)
    chinese_only(out)
    assert out.startswith("✓ 是不是叶子：")


@pytest.mark.parametrize(
    "answer",
    [
        ...,
        [True] * 6,
        {k: v for k, v in RIGHT.items() if k != "s"},
        {**RIGHT, "w": ...},
        {**RIGHT, "w": "yes"},
        *({**RIGHT, k: not v} for k, v in RIGHT.items()),
    ],
)
def test_03_wrong_leaf_predictions_in_chinese(chinese, said, answer):
    out = said(lesson03.check_leaf_predictions, answer)
    chinese_only(out)
    assert out.startswith("✗ 是不是叶子：还没对。")


def graph(retain: bool = True, passes: int = 1):
    x = mg.tensor([0.0, 0.5, 1.0], requires_grad=True)
    h = x.exp()
    if retain:
        h.retain_grad()
    y = (h * h).sum()
    for _ in range(passes):
        y.backward(retain_graph=True)
    return h, x


def test_03_hidden_grad_solution_in_chinese(chinese, said):
    h, x = graph()
    out = said(lesson03.check_hidden_grad, h.grad, h, x)
    chinese_only(out)
    assert out.startswith("✓ 非叶子张量的梯度：")


@pytest.mark.parametrize("wrong", ["unanswered", "none", "formula", "x.grad", "twice", "other"])
def test_03_wrong_hidden_grads_in_chinese(chinese, said, wrong):
    h, x = graph(passes=2 if wrong == "twice" else 1)
    answer = {
        "unanswered": ...,
        "none": None,
        "formula": 2 * h,
        "x.grad": x.grad,
        "twice": h.grad,
        "other": mg.tensor([1.0, 2.0, 3.0]),
    }[wrong]
    out = said(lesson03.check_hidden_grad, answer, h, x)
    chinese_only(out)
    assert out.startswith("✗ 非叶子张量的梯度：还没对。")
