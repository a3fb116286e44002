"""Lesson 15's checks in Chinese: for each exercise, the solution and the usual slips."""

from __future__ import annotations

import pytest
from labkit import lesson15
from test_chinese_lessons import chinese_only
from test_lesson15 import (
    _assign_tensor,
    _broken,
    _carried_over,
    _counter,
    _eval_too,
    _frozen_copy,
    _kept,
    _nbytes,
    _new_parameters,
    _no_grad_forward,
    _params,
    _ran_backward,
    _reinitialised,
    _sizes_only,
    _stale,
    _too_much,
    _unbound,
    _unique,
    _zero_hooks,
)

import minigrad as mg

COUNT = lesson15.check_count_saved_bytes
FREEZE = lesson15.check_freeze_first_layer


def _solution(model, x):
    total = 0

    def pack(t):
        nonlocal total
        total += _nbytes(t)
        return t.detach()

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return out, total


WRONG_COUNTERS = {
    "ellipsis": (..., "还是 `...`"),
    "not callable": (3, "应该是一个函数"),
    "unbound total": (_unbound, "nonlocal total"),
    "element_size": (_counter(lambda t: t.numel() * t.element_size()), "t.dtype.itemsize"),
    "returns None": (lambda m, x: None, "返回了 None"),
    "only the output": (lambda m, x: m(x), "只返回了输出"),
    "wrong way round": (lambda m, x: (3, m(x)), "顺序反了"),
    "tensor total": (_counter(lambda t: _nbytes(t) * mg.tensor(1)), "Python 数"),
    "no hooks": (_counter(_nbytes, hooks=False), "没有经过你的钩子"),
    "parameters": (_params, "没有经过你的钩子"),
    "no grad": (_counter(_nbytes, grad=False), "no_grad"),
    "elements": (_counter(lambda t: t.numel()), "元素个数"),
    "tensor count": (_counter(lambda t: 1), "张量的个数"),
    "zero": (_counter(lambda t: 0), "total 为 0"),
    "twice": (_counter(lambda t: 2 * _nbytes(t)), "两倍"),
    "grad only": (_counter(lambda t: _nbytes(t) if t.requires_grad else 0), "输入 x"),
    "4 bytes": (_counter(lambda t: t.numel() * 4), "写死"),
    "unique": (_unique, "只算了一次"),
    "carried over": (_carried_over, "初始化为 0"),
    "sizes only": (_sizes_only, "不只是它的大小"),
    "wrong unpack": (_counter(_nbytes, unpack=lambda t: t * 2), "梯度不同"),
    "ran backward": (_ran_backward, "只应运行前向传播"),
    "keeps t": (_counter(_nbytes, keep=lambda t: t), "保存了张量本身"),
}


def test_16_counter_solution_in_chinese(chinese, said):
    out = said(COUNT, _solution)
    assert out.startswith("✓ 统计保存的字节数："), out
    chinese_only(out)


@pytest.mark.parametrize("slip", WRONG_COUNTERS)
def test_16_counter_slips_in_chinese(slip, chinese, said):
    _kept[0] = 0
    answer, words = WRONG_COUNTERS[slip]
    out = said(COUNT, answer)
    assert out.startswith("✗ 统计保存的字节数") and words in out, out
    chinese_only(out)


WRONG_FREEZES = {
    "ellipsis": (..., "还是 `...`"),
    "not callable": (3, "应该是一个函数"),
    "nothing": (lambda m: None, "还什么都没有冻结"),
    "no_grad": (_no_grad_forward, "requires_grad 仍为 True"),
    "zero gradients": (_zero_hooks, "零梯度也是梯度"),
    "eval": (lambda m: m[0].eval(), "eval() 什么也冻结不了"),
    "eval too": (_eval_too, "整个模型"),
    "weight only": (lambda m: m[0].weight.requires_grad_(False), "0.bias 仍然需要梯度"),
    "everything": (lambda m: m.requires_grad_(False), "所有参数都被冻结"),
    "wrong layer": (lambda m: m[2].requires_grad_(False), "2.weight 和 2.bias"),
    "too much": (_too_much, "也被冻结了"),
    "assign tensor": (_assign_tensor, "nn.Parameter"),
    "new parameters": (_new_parameters, "新的张量"),
    "computed tensor": (lambda m: m[0].weight.t().requires_grad_(False), "计算出来的张量"),
    "reinitialised": (_reinitialised, "改变了参数的值"),
    "frozen copy": (_frozen_copy, "另一个模型"),
    "stale grad": (_stale, "0.weight 有 .grad"),
    "raises": (_broken, "抛出了 KeyError"),
}


def test_16_freeze_solution_in_chinese(chinese, said):
    out = said(FREEZE, lambda m: m[0].requires_grad_(False))
    assert out.startswith("✓ 冻结第一层：") and "8 个减少到 5 个" in out, out
    chinese_only(out)


@pytest.mark.parametrize("slip", WRONG_FREEZES)
def test_16_freeze_slips_in_chinese(slip, chinese, said):
    answer, words = WRONG_FREEZES[slip]
    out = said(FREEZE, answer)
    assert out.startswith("✗ 冻结第一层") and words in out, out
    chinese_only(out)
