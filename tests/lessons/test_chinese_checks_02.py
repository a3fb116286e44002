"""Lesson 02 in Chinese: the feedback on the learner's graph walker."""

from __future__ import annotations

import pytest
from labkit import lesson02
from test_chinese_lessons import chinese_only


def walk(t, *, seen_by=id, skip_none=True, leaves=True):
    seen, names = set(), []
    stack = [t.grad_fn] if t.grad_fn is not None or not skip_none else []
    while stack:
        node = stack.pop()
        if seen_by is not None and seen_by(node) in seen:
            continue
        if seen_by is not None:
            seen.add(seen_by(node))
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions if n is not None or not skip_none)
    return [n for n in names if leaves or "AccumulateGrad" not in n]


def test_02_solution_in_chinese(chinese, said):
    out = said(lesson02.check_node_names, walk)
    chinese_only(out)
    assert out.startswith("✓ 遍历计算图（node_names）：")


@pytest.mark.parametrize(
    ("walker", "expect"),
    [
        (..., "还是 `...`"),
        (lambda t: None, "返回了 None"),
        (lambda t: 5, "名字列表"),
        (lambda t: [t.grad_fn], "而不是节点对象"),
        (lambda t: walk(t, seen_by=None), "只能算一次"),
        (lambda t: walk(t, seen_by=lambda n: n.name()), "不同的节点可以同名"),
        (lambda t: walk(t, leaves=False), "缺少 AccumulateGrad 节点"),
        (lambda t: sorted(walk(t))[1:], "缺少一些节点"),
        (lambda t: ["MulBackward0"], "应当返回 []"),
    ],
)
def test_02_wrong_walkers_in_chinese(chinese, said, walker, expect):
    out = said(lesson02.check_node_names, walker)
    chinese_only(out)
    assert out.startswith("✗ 遍历计算图（node_names）：还没对。") and expect in out


def test_02_a_walker_that_raises_in_chinese(chinese, said):
    out = said(lesson02.check_node_names, lambda t: walk(t, skip_none=False))
    chinese_only(out, "'NoneType' object has no attribute 'name'")
    assert "你的函数抛出了 AttributeError" in out and "请跳过这些 None" in out
