"""Lesson 02 (computation graphs): checking the learner's graph walker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .feedback import verdict
from .hints import register
from .language import say

register(
    "02",
    "node_names",
    "Keep a list of nodes still to visit, starting with t.grad_fn. Take one off, note its "
    "name(), and add the nodes in its next_functions to the list.",
    "next_functions holds (node, input_number) pairs whose node is None for constants: skip "
    "the Nones. A tensor made without grad has grad_fn None: return [] for it.",
    "A node reached along two paths must count once: keep a set of the node objects you have "
    "visited (not of their names: different nodes can share a name) and skip those already in it.",
    zh_title="遍历计算图（node_names）",
    zh=(
        "维护一个待访问节点的列表，从 t.grad_fn 开始。每次取出一个节点，记下它的 name()，"
        "再把它的 next_functions 里的节点加进列表。",
        "next_functions 里是 (节点, 输入序号) 对，常量对应的节点是 None：跳过这些 None。"
        "不需要梯度就创建的张量，其 grad_fn 是 None：对它返回 []。",
        "沿两条路径都能到达的节点只能算一次：用一个集合记下已经访问过的节点对象"
        "（不是它们的名字：不同的节点可以同名），遇到集合里已有的就跳过。",
    ),
)


def reference_node_names(tensor: Any) -> list[str]:
    """Every backward node reachable from `tensor.grad_fn`, each node object once, names sorted."""
    seen: set[int] = set()
    names: list[str] = []
    stack = [tensor.grad_fn] if tensor.grad_fn is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return sorted(names)


def _cases() -> list[tuple[str, Any]]:
    """Graphs chosen so each typical mistake shows: a shared node, constants, no graph at all."""
    import minigrad as mg

    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([0.5, -1.0], requires_grad=True)
    h = x * 2
    return [
        ("(x * w).sum()", (x * w).sum()),
        (
            say(
                "h = x * 2; (h * h + h).sum()  (h is used three times)",
                "h = x * 2; (h * h + h).sum()（h 被用了三次）",
            ),
            (h * h + h).sum(),
        ),
        (
            say(
                "(x + 1).exp().sum()  (the 1 is a constant)",
                "(x + 1).exp().sum()（其中的 1 是常量）",
            ),
            (x + 1).exp().sum(),
        ),
        (
            say(
                "mg.tensor([1.0]) * 3  (nothing requires grad)",
                "mg.tensor([1.0]) * 3（没有任何张量需要梯度）",
            ),
            mg.tensor([1.0]) * 3,
        ),
    ]


def check_node_names(node_names: Callable[[Any], Any]) -> None:
    """Run the learner's `node_names` on graphs that each catch one typical mistake."""
    v = verdict("node_names")
    if not v.answered(node_names, "`node_names`"):
        v.done("")
        return
    for label, tensor in _cases():
        expected = reference_node_names(tensor)
        try:
            got = node_names(tensor)
        except Exception as err:  # report the learner's error as feedback, not a traceback
            v.require(
                False,
                say(
                    f"on {label} your function raised {type(err).__name__}: {err}. ",
                    f"在 {label} 上，你的函数抛出了 {type(err).__name__}: {err}。",
                )
                + _hint_for_error(err),
            )
            continue
        if got is None or got is Ellipsis:
            v.require(
                False,
                say(
                    f"on {label} your function returned {got!r}: return the list of "
                    "names (a function body of `...` returns None).",
                    f"在 {label} 上，你的函数返回了 {got!r}：应当返回名字列表"
                    "（函数体只有 `...` 时返回的是 None）。",
                ),
            )
            break
        if isinstance(got, str) or not hasattr(got, "__iter__"):
            v.require(
                False,
                say(
                    f"on {label} you returned {got!r}: return a list of names, one per node.",
                    f"在 {label} 上，你返回了 {got!r}：应当返回一个名字列表，每个节点一个名字。",
                ),
            )
            break
        got = list(got)
        if not all(isinstance(name, str) for name in got):
            v.require(
                False,
                say(
                    f"on {label} you returned {got!r}: return node *names* (strings, "
                    "from node.name()), not node objects.",
                    f"在 {label} 上，你返回了 {got!r}：应当返回节点的 *名字*（字符串，"
                    "来自 node.name()），而不是节点对象。",
                ),
            )
            break
        got = sorted(got)
        if got == expected:
            continue
        v.require(
            False,
            say(
                f"on {label} expected {expected} but got {got}. ",
                f"在 {label} 上，期望得到 {expected}，实际得到 {got}。",
            )
            + _diagnose(got, expected),
        )
    v.done(
        say(
            "your walker finds every node once, through shared nodes and constants.",
            "你的遍历函数把每个节点都恰好找到一次，共享节点和常量也都处理对了。",
        )
    )


def _hint_for_error(err: Exception) -> str:
    if isinstance(err, AttributeError) and "NoneType" in str(err):
        return say(
            "next_functions holds (None, 0) for inputs that need no gradient (constants), "
            "and a tensor made without grad has grad_fn None: skip the Nones.",
            "对于不需要梯度的输入（常量），next_functions 里存的是 (None, 0)；"
            "不需要梯度就创建的张量，其 grad_fn 是 None：请跳过这些 None。",
        )
    return ""


def _diagnose(got: list[str], expected: list[str]) -> str:
    if not expected:
        return say(
            "This tensor has no grad_fn at all (nothing required grad): return [].",
            "这个张量根本没有 grad_fn（没有任何张量需要梯度）：应当返回 []。",
        )
    if set(got) == set(expected) and len(got) < len(expected):
        shared = next(name for name in expected if expected.count(name) > got.count(name))
        return say(
            f"Every kind of node is there, but {shared} should appear "
            f"{expected.count(shared)} times: different nodes can share a name. Remember the "
            "visited node objects, not their names.",
            f"每种节点都找到了，但 {shared} 应当出现 {expected.count(shared)} 次："
            "不同的节点可以同名。请记住访问过的节点对象，而不是它们的名字。",
        )
    if set(got) == set(expected) and len(got) > len(expected):
        return say(
            "Some node appears too often: a node reached along two paths must be counted "
            "once. Remember the nodes you visited (in a set) and skip them the second time.",
            "有的节点出现次数太多了：沿两条路径到达的节点只能算一次。"
            "把访问过的节点记在一个集合里，第二次遇到时跳过。",
        )

    def has_acc(names: list[str]) -> bool:
        return any("AccumulateGrad" in n for n in names)

    if has_acc(expected) and not has_acc(got):
        return say(
            "The AccumulateGrad nodes are missing: they are in next_functions like any "
            "other node (they are where the walk ends).",
            "缺少 AccumulateGrad 节点：它们和其他节点一样出现在 next_functions 里"
            "（遍历正是在它们那里结束的）。",
        )
    if len(got) < len(expected):
        return say(
            "Some nodes are missing: follow next_functions from every node you visit, not "
            "only the first one.",
            "缺少一些节点：要从访问到的每个节点出发沿 next_functions 继续走，而不只是第一个节点。",
        )
    return say(
        "Compare your walk with the drawn graph above.",
        "把你的遍历结果和上面画出的计算图对照一下。",
    )
