"""Lesson 12 in Chinese: both exercises' feedback, for the solution and for typical mistakes."""

from __future__ import annotations

import pytest
from labkit import lesson12
from test_chinese_lessons import chinese_only
from test_labkit_lessons_08_14 import _counts, _preorder, _seeded, _topo

# --- Exercise 1: count_dependencies ---------------------------------------------------------


def test_12_count_dependencies_solution_in_chinese(chinese, said):
    out = said(lesson12.check_count_dependencies, _counts)
    chinese_only(out)
    assert out.startswith("✓ 依赖计数：")


def explores_twice(root):  # walks into every node again each time it is reached
    found, stack = {root: 0}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is not None:
                found[nxt] = found.get(nxt, 0) + 1
                stack.append(nxt)
    return found


def no_none_check(root):
    return _counts(root, skip_none=False)


def stub(root): ...


def recurses_forever(root):
    return recurses_forever(root)


COUNT_WRONG = {
    "stub": (..., "还是 `...`"),
    "body left empty": (stub, "返回了 None"),
    "a list": (lambda r: [r], "请返回一个字典"),
    "string keys": (lambda r: {n.name(): 1 for n, _ in r.next_functions}, "键是字符串"),
    "one count per node": (lambda r: _counts(r, count_revisits=False), "每条边都要计数"),
    "root seeded": (_seeded, "没有任何边指向它"),
    "explored twice": (explores_twice, "数了两遍"),
    "root only": (lambda r: {r: 0}, "没有计数"),
    "None edges": (no_none_check, "跳过这些 None"),
    "recursion": (recurses_forever, "停不下来"),
}


@pytest.mark.parametrize("case", sorted(COUNT_WRONG))
def test_12_count_dependencies_wrong_answers_in_chinese(chinese, said, case):
    fn, expected = COUNT_WRONG[case]
    out = said(lesson12.check_count_dependencies, fn)
    if case == "None edges":  # quotes Python's own message
        out = out.replace("'NoneType' object has no attribute 'next_functions'", "")
    chinese_only(out)
    assert out.startswith("✗ 依赖计数：还没对。") and expected in out
    assert "hint()" in out


# --- Exercise 2: topological_order ----------------------------------------------------------


def test_12_topological_order_solution_in_chinese(chinese, said):
    out = said(lesson12.check_topological_order, _topo)
    chinese_only(out)
    assert out.startswith("✓ 拓扑排序：")


TOPO_WRONG = {
    "stub": (..., "还是 `...`"),
    "pre-order": (_preorder, "DFS 先序"),
    "twice": (lambda r: _topo(r) + [r], "出现了不止一次"),
    "reversed": (lambda r: _topo(r)[::-1], "必须排在最前面"),
    "strings": (lambda r: [r.name()], "字符串"),
    "not a list": (lambda r: 3, "由节点组成的列表"),
    "missing nodes": (lambda r: _topo(r)[:-1], "缺少节点"),
    "foreign nodes": (lambda r: _topo(r) + [object()], "不是这个计算图里的节点"),
    "raises": (lambda r: 1 / 0, "ZeroDivisionError"),
}


@pytest.mark.parametrize("case", sorted(TOPO_WRONG))
def test_12_topological_order_wrong_answers_in_chinese(chinese, said, case):
    fn, expected = TOPO_WRONG[case]
    out = said(lesson12.check_topological_order, fn)
    chinese_only(out)
    assert out.startswith("✗ 拓扑排序：还没对。") and expected in out
