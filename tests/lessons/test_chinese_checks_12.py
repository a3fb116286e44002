"""Lesson 12 in Chinese: both exercises' feedback, for the solution and for typical mistakes."""

from __future__ import annotations

import pytest
from labkit import lesson12
from test_chinese_lessons import CJK, ENGLISH_RUN


def chinese_only(out: str) -> None:
    assert CJK.search(out), out
    for line in out.splitlines():
        assert not ENGLISH_RUN.search(line), f"English left in: {line!r}"


# --- Exercise 1: count_dependencies ---------------------------------------------------------


def counts(root, count_revisits=True, skip_none=True):
    found, explored, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None and skip_none:
                continue
            if nxt not in explored:
                found[nxt] = found.get(nxt, 0) + 1
                explored.add(nxt)
                stack.append(nxt)
            elif count_revisits:
                found[nxt] += 1
    return found


def test_12_count_dependencies_solution_in_chinese(chinese, said):
    out = said(lesson12.check_count_dependencies, counts)
    chinese_only(out)
    assert out.startswith("✓ 依赖计数：")


def seeded(root):
    found = counts(root)
    found[root] = 1
    return found


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
    return counts(root, skip_none=False)


def stub(root): ...


def recurses_forever(root):
    return recurses_forever(root)


COUNT_WRONG = {
    "stub": (..., "还是 `...`"),
    "body left empty": (stub, "返回了 None"),
    "a list": (lambda r: [r], "请返回一个字典"),
    "string keys": (lambda r: {n.name(): 1 for n, _ in r.next_functions}, "键是字符串"),
    "one count per node": (lambda r: counts(r, count_revisits=False), "每条边都要计数"),
    "root seeded": (seeded, "没有任何边指向它"),
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


def topo(root):
    post, done = [], set()

    def visit(node):
        done.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in done:
                visit(nxt)
        post.append(node)

    visit(root)
    return post[::-1]


def preorder(root):
    order, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return order


def test_12_topological_order_solution_in_chinese(chinese, said):
    out = said(lesson12.check_topological_order, topo)
    chinese_only(out)
    assert out.startswith("✓ 拓扑排序：")


TOPO_WRONG = {
    "stub": (..., "还是 `...`"),
    "pre-order": (preorder, "DFS 先序"),
    "twice": (lambda r: topo(r) + [r], "出现了不止一次"),
    "reversed": (lambda r: topo(r)[::-1], "必须排在最前面"),
    "strings": (lambda r: [r.name()], "字符串"),
    "not a list": (lambda r: 3, "由节点组成的列表"),
    "missing nodes": (lambda r: topo(r)[:-1], "缺少节点"),
    "foreign nodes": (lambda r: topo(r) + [object()], "不是这个计算图里的节点"),
    "raises": (lambda r: 1 / 0, "ZeroDivisionError"),
}


@pytest.mark.parametrize("case", sorted(TOPO_WRONG))
def test_12_topological_order_wrong_answers_in_chinese(chinese, said, case):
    fn, expected = TOPO_WRONG[case]
    out = said(lesson12.check_topological_order, fn)
    chinese_only(out)
    assert out.startswith("✗ 拓扑排序：还没对。") and expected in out


def test_12_hints_in_chinese(chinese, capsys, monkeypatch):
    from collections import Counter

    from labkit import hint, hints

    monkeypatch.setattr(hints, "_shown", Counter())  # leave the other tests' hint counts alone
    for exercise in ("Dependency counts", "Topological order"):
        for _ in hints.HINTS[exercise]["zh"]:
            hint(exercise)
        out = capsys.readouterr().out
        chinese_only(out)
        assert "（最后一条：接下来就是答案了）" in out
