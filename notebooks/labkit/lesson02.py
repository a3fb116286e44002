"""Lesson 02 (computation graphs): checking the learner's graph walker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .feedback import verdict
from .hints import register

register(
    "02",
    "node_names",
    "Keep a list of nodes still to visit, starting with t.grad_fn. Take one off, note its "
    "name(), and add the nodes in its next_functions to the list.",
    "next_functions holds (node, input_number) pairs whose node is None for constants: skip "
    "the Nones. A tensor made without grad has grad_fn None: return [] for it.",
    "A node reached along two paths must count once: keep a set of the node objects you have "
    "visited (not of their names: different nodes can share a name) and skip those already in it.",
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
        ("h = x * 2; (h * h + h).sum()  (h is used three times)", (h * h + h).sum()),
        ("(x + 1).exp().sum()  (the 1 is a constant)", (x + 1).exp().sum()),
        ("mg.tensor([1.0]) * 3  (nothing requires grad)", mg.tensor([1.0]) * 3),
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
                f"on {label} your function raised {type(err).__name__}: {err}. "
                + _hint_for_error(err),
            )
            continue
        if got is None or got is Ellipsis:
            v.require(
                False,
                f"on {label} your function returned {got!r}: return the list of "
                "names (a function body of `...` returns None).",
            )
            break
        if isinstance(got, str) or not hasattr(got, "__iter__"):
            v.require(
                False, f"on {label} you returned {got!r}: return a list of names, one per node."
            )
            break
        got = list(got)
        if not all(isinstance(name, str) for name in got):
            v.require(
                False,
                f"on {label} you returned {got!r}: return node *names* (strings, "
                "from node.name()), not node objects.",
            )
            break
        got = sorted(got)
        if got == expected:
            continue
        v.require(
            False, f"on {label} expected {expected} but got {got}. " + _diagnose(got, expected)
        )
    v.done("your walker finds every node once, through shared nodes and constants.")


def _hint_for_error(err: Exception) -> str:
    if isinstance(err, AttributeError) and "NoneType" in str(err):
        return (
            "next_functions holds (None, 0) for inputs that need no gradient (constants), "
            "and a tensor made without grad has grad_fn None: skip the Nones."
        )
    return ""


def _diagnose(got: list[str], expected: list[str]) -> str:
    if not expected:
        return "This tensor has no grad_fn at all (nothing required grad): return []."
    if set(got) == set(expected) and len(got) < len(expected):
        shared = next(name for name in expected if expected.count(name) > got.count(name))
        return (
            f"Every kind of node is there, but {shared} should appear "
            f"{expected.count(shared)} times: different nodes can share a name. Remember the "
            "visited node objects, not their names."
        )
    if set(got) == set(expected) and len(got) > len(expected):
        return (
            "Some node appears too often: a node reached along two paths must be counted "
            "once. Remember the nodes you visited (in a set) and skip them the second time."
        )

    def has_acc(names: list[str]) -> bool:
        return any("AccumulateGrad" in n for n in names)

    if has_acc(expected) and not has_acc(got):
        return (
            "The AccumulateGrad nodes are missing: they are in next_functions like any "
            "other node (they are where the walk ends)."
        )
    if len(got) < len(expected):
        return (
            "Some nodes are missing: follow next_functions from every node you visit, not "
            "only the first one."
        )
    return "Compare your walk with the drawn graph above."
