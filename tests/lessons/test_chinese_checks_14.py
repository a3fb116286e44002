"""Lesson 14's checks in Chinese: for each exercise, the solution and the usual slips."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
import torch
from labkit import lesson14
from test_chinese_lessons import chinese_only
from test_lesson14 import (
    _averaged,
    _flat_predict,
    _raises,
    _relu_predict,
    _reshaped_bias,
    _three_numbers,
    _variant,
    aligns_from_the_left,
    averages,
    calls_torch,
    drops_size_one_dims,
    keeps_leading_dims,
    notebook_model,
    reshapes,
    returns_numpy,
    right,
    sums_empty_dims,
    uses_the_builtin,
    zeroes_its_argument,
)

import minigrad as mg

ZH_LESSON = (
    Path(__file__).resolve().parents[2] / "notebooks" / "zh" / "14_broadcasting_and_gradients.ipynb"
)
SUM = lesson14.check_sum_to_shape
FIXED = lesson14.check_fixed_model


def passed(out: str, title: str) -> bool:
    return out.startswith(f"✓ {title}：")


def failed(out: str, title: str, *words: str) -> bool:
    return out.startswith(f"✗ {title}：还没对。") and all(w in out for w in words)


# --- exercise 1: sum_to_shape ------------------------------------------------------------------


def nothing_summed(grad, shape):
    return grad


def changes_dtype(grad, shape):
    return right(grad, shape).double()


def test_15_sum_to_shape_solution_in_chinese(chinese, said):
    out = said(SUM, right)
    chinese_only(out)
    assert passed(out, "求和回原形状") and "40 组新随机生成" in out, out


def test_15_sum_to_shape_notebook_solution_in_chinese(chinese, said):
    (source,) = [c.source for c in _cells() if "def sum_to_shape(" in c.source]
    namespace = {"mg": mg}
    exec(compile(source, str(ZH_LESSON), "exec"), namespace)
    out = said(SUM, namespace["sum_to_shape"])
    chinese_only(out)
    assert passed(out, "求和回原形状"), out


@pytest.mark.parametrize(
    "answer, words",
    [
        (keeps_leading_dims, ["前导维度还以 1 的形式留着"]),
        (drops_size_one_dims, ["大小为 1 的维度被丢掉了", "keepdim=True"]),
        (sums_empty_dims, ["所有维度都被求和了", "空元组"]),
        (averages, ["你求的是平均", "相加"]),
        (uses_the_builtin, ["答案是对的", "sum_to_size"]),
        (aligns_from_the_left, ["从右边对齐"]),
        (zeroes_its_argument, ["原地修改了 `grad`"]),
        (returns_numpy, ["numpy.ndarray", "minigrad 张量"]),
        (calls_torch, ["真正的 PyTorch 函数", "minigrad"]),
        (reshapes, ["抛出了 RuntimeError"]),
        (nothing_summed, ["什么都没有求和"]),
        (changes_dtype, ["dtype"]),
        (lambda grad, shape: None, ["函数体是不是还是 `...`"]),
        ("not a function", ["应该是一个以 (grad, shape) 为参数的函数"]),
    ],
    ids=lambda a: getattr(a, "__name__", None),
)
def test_15_sum_to_shape_wrong_answers_in_chinese(chinese, said, answer, words):
    out = said(SUM, answer)
    chinese_only(out)
    assert failed(out, "求和回原形状", *words), out


# --- exercise 2: the silent bias --------------------------------------------------------------


def _cells() -> list:
    return nbformat.read(ZH_LESSON, as_version=4).cells


@pytest.fixture(scope="module")
def model() -> dict:
    """The Chinese lesson's buggy model (init_params, predict) and its solution."""
    return notebook_model(_cells(), ZH_LESSON)


def test_15_fixed_model_solution_in_chinese(chinese, said, model):
    out = said(FIXED, model["init_params_fixed"], model["predict"])
    chinese_only(out)
    assert passed(out, "修好悄无声息的偏置"), out


def _unfinished(seed): ...


WRONG_MODELS = {
    "the bug": (lambda m: m["init_params"], lambda m: m["predict"], ["这正是 bug 所在", "(3, 3)"]),
    "bug hidden in predict": (lambda m: m["init_params"], _averaged, ["求和或求平均"]),
    "predict works around b": (
        lambda m: m["init_params"],
        lambda m: _flat_predict,
        ["请在 bug 产生的地方修复它"],
    ),
    "a reshaped bias": (_reshaped_bias, lambda m: m["predict"], ["不是叶子张量", "ViewBackward0"]),
    "other draws": (
        lambda m: _variant(m, b=lambda p: mg.zeros(3, requires_grad=True)),
        lambda m: m["predict"],
        ["改动的不只是 b 的形状", "mg.manual_seed(seed)"],
    ),
    "a row bias": (
        lambda m: _variant(m, b=lambda p: p["b"].detach().reshape(1, 3).requires_grad_()),
        lambda m: m["predict"],
        ["b 的形状是 (1, 3)"],
    ),
    "no grad": (
        lambda m: _variant(m, W=lambda p: p["W"].detach()),
        lambda m: m["predict"],
        ["不需要梯度"],
    ),
    "a torch tensor": (
        lambda m: _variant(m, v=lambda p: torch.zeros(3, requires_grad=True)),
        lambda m: m["predict"],
        ["torch.Tensor", "minigrad 张量"],
    ),
    "a different predict": (
        lambda m: m["init_params_fixed"],
        lambda m: _relu_predict,
        ["正确模型", "predict 被改过吗"],
    ),
    "predict raises": (
        lambda m: m["init_params_fixed"],
        lambda m: _raises,
        ["抛出了 RuntimeError"],
    ),
    "three numbers": (
        lambda m: m["init_params_fixed"],
        lambda m: _three_numbers,
        ["返回了 (3,)", "0 维"],
    ),
    "a list": (lambda m: lambda seed: [1, 2], lambda m: m["predict"], ["应该像 init_params"]),
    "init raises": (
        lambda m: lambda seed: 1 / 0,
        lambda m: m["predict"],
        ["抛出了 ZeroDivisionError"],
    ),
    "unfinished": (lambda m: _unfinished, lambda m: m["predict"], ["函数体是不是还是 `...`"]),
    "not functions": (lambda m: "init", lambda m: "predict", ["请传入两个函数"]),
}


@pytest.mark.parametrize("case", sorted(WRONG_MODELS))
def test_15_fixed_model_wrong_answers_in_chinese(chinese, said, model, case):
    init, predict, words = WRONG_MODELS[case]
    out = said(FIXED, init(model), predict(model))
    chinese_only(out)
    assert failed(out, "修好悄无声息的偏置", *words), out


def test_15_hints_in_chinese(chinese, said, model, capsys, monkeypatch):
    from labkit import hint, hints

    monkeypatch.setattr(hints, "_shown", hints.Counter())
    monkeypatch.setattr(hints, "_last", [])
    said(FIXED, model["init_params"], model["predict"])
    hint()
    out = capsys.readouterr().out
    chinese_only(out)
    assert out.startswith("「修好悄无声息的偏置」的提示 1/3"), out
