"""Lesson 08 in Chinese: every exercise's feedback, wrong answers and solutions."""

from __future__ import annotations

import pytest
from labkit import lesson08
from test_chinese_lessons import chinese_only

import minigrad as mg


def test_08_versions_solution_in_chinese(chinese, said):
    out = said(lesson08.check_versions, [1, 2, 3, 0])
    chinese_only(out)
    assert out.startswith("✓ 预测版本号：")


@pytest.mark.parametrize(
    "answer",
    [..., None, ["a"] * 4, [1, 2, 3], [1, 1, 2, 3], [2, 3, 4, 5], [0, 0, 0, 0]],
)
def test_08_versions_wrong_answers_in_chinese(chinese, said, answer):
    out = said(lesson08.check_versions, answer)
    chinese_only(out)
    assert out.startswith("✗ 预测版本号：还没对。")
    assert "hint()" in out


def _stub(x): ...


def _broken(x):
    s = x.sigmoid()
    s.mul_(x)
    return s


def _under_no_grad(x):
    with mg.no_grad():
        return x * x.sigmoid()


def _detached(x):
    return x * x.sigmoid().detach()


def _through_data(x):
    s = x.sigmoid()
    s.data.mul_(x.detach())
    return s


def _into_leaf(x):
    x.mul_(2)
    return x


@pytest.mark.parametrize(
    "fn",
    [
        _stub,
        3,
        _broken,
        _under_no_grad,
        _detached,
        _through_data,
        _into_leaf,
        lambda x: x.sigmoid(),
        lambda x: x.detach().numpy(),
        lambda x: x.detach() * x.detach().sigmoid(),
    ],
)
def test_08_swish_wrong_answers_in_chinese(chinese, said, fn):
    out = said(lesson08.check_swish, fn)
    chinese_only(out)
    assert out.startswith("✗ 修好 swish：还没对。")


def test_08_swish_solution_in_chinese(chinese, said):
    out = said(lesson08.check_swish, lambda x: x * x.sigmoid())
    chinese_only(out)
    assert out.startswith("✓ 修好 swish：")
