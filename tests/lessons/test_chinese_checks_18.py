"""Lesson 18's checks in Chinese: each solution passes with its Chinese title, and each wrong way
is named in Chinese (what minigrad, numpy or Python said stays as they wrote it)."""

from __future__ import annotations

import warnings

import pytest
from labkit import lesson18
from test_chinese_lessons import chinese_only
from test_lesson18 import (
    _finite_differences,
    _torch_inside,
    _upstream_ignored,
    add_with,
    breadth_first,
    ce_with,
    closure,
    leading_only,
    ln_with,
    make_var,
    no_visited_set,
    recursive,
)

CHECKS = {
    "反向传播引擎": lesson18.check_backward,
    "矩阵乘法的反向": lesson18.check_matmul,
    "广播加法": lesson18.check_add,
    "softmax 交叉熵": lesson18.check_cross_entropy,
    "层归一化": lesson18.check_layer_norm,
}


def _in_chinese(said, check, answer) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = said(check, answer)
    chinese_only(out, "softmax", "one_hot", "log-sum-exp", "out.grad", "RecursionError")
    return out


@pytest.mark.parametrize("title", sorted(CHECKS))
def test_18_solutions_pass_in_chinese(chinese, said, title):
    out = _in_chinese(said, CHECKS[title], make_var())
    assert out.startswith(f"✓ {title}："), out


@pytest.mark.parametrize(
    "title, answer, words",
    [
        ("反向传播引擎", make_var(backward=recursive), "递归深度上限"),
        ("反向传播引擎", make_var(backward=breadth_first), "要向它发送梯度"),
        ("反向传播引擎", make_var(backward=no_visited_set), "访问过的节点"),
        ("矩阵乘法的反向", make_var(__matmul__=closure(_upstream_ignored)), "忽略了上游梯度"),
        ("矩阵乘法的反向", make_var(__matmul__=closure(_finite_differences)), "有限差分"),
        ("矩阵乘法的反向", make_var(__matmul__=closure(_torch_inside)), "PyTorch 的 autograd"),
        ("广播加法", make_var(__add__=add_with(leading_only)), "大小为 1 的维度"),
        ("softmax 交叉熵", make_var(cross_entropy=ce_with(forward="naive")), "exp 溢出了"),
        ("softmax 交叉熵", make_var(cross_entropy=ce_with(fused=False)), "融合节点"),
        ("层归一化", make_var(layer_norm=ln_with("constants")), "当成了常数"),
    ],
)
def test_18_wrong_ways_are_named_in_chinese(chinese, said, title, answer, words):
    out = _in_chinese(said, CHECKS[title], answer)
    assert out.startswith(f"✗ {title}：") and words in out and "Traceback" not in out, out
