"""Checks for lesson 12 (inside the engine).

Answers are compared with what minigrad's own engine reports (`record_steps`), on a graph where
one tensor feeds three consumers, so a count that ignores shared inputs, or a walk that visits a
node twice, shows up as a specific wrong number rather than a vague mismatch.
"""

from __future__ import annotations

from typing import Any

import minigrad as mg
from minigrad.autograd import record_steps

from .feedback import Verdict, verdict


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _graph() -> tuple[mg.Tensor, mg.Tensor]:
    """loss and x, where `a = x * w` is used three times."""
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    w = mg.tensor([2.0, 3.0], requires_grad=True)
    a = x * w
    loss = (a.exp() + a * a).sum() + a.sum()
    return loss, x


def _engine_counts(loss: mg.Tensor) -> dict:
    with record_steps() as steps:
        loss.backward(retain_graph=True)
    start = next(r for r in steps.records if r["kind"] == "backward_start")
    counts = dict(start["dependencies"])
    counts[loss.grad_fn] -= 1  # the engine adds 1 for the root's seed gradient
    return counts


def _label(node: Any) -> str:
    return node.name().replace("torch::autograd::", "")


def check_count_dependencies(fn: Any) -> None:
    """`fn(root_node)` -> {node: number of edges pointing at it} for the graph behind root."""
    v = verdict("Dependency counts")
    if not v.answered(fn, "count_dependencies"):
        return _stop(v)
    loss, _ = _graph()
    try:
        got = fn(loss.grad_fn)
    except Exception as err:
        v.require(False, f"count_dependencies(loss.grad_fn) raised {type(err).__name__}: {err}")
        return _stop(v)
    if not v.require(
        isinstance(got, dict), f"return a dict {{node: count}}, got {type(got).__name__}."
    ):
        return _stop(v)
    want = _engine_counts(loss)
    missing = [n for n in want if n not in got and want[n] > 0]
    if not v.require(
        not missing,
        f"no count for {', '.join(_label(n) for n in missing)}: every "
        "node reachable through next_functions needs one (AccumulateGrad "
        "nodes included).",
    ):
        return _stop(v)
    if got.get(loss.grad_fn, 0) != 0:
        v.require(
            False,
            f"the root {_label(loss.grad_fn)} has count {got[loss.grad_fn]}, but no "
            "edge points at it (the engine seeds it separately): it should be 0 or "
            "absent.",
        )
    for node, count in want.items():
        if node is loss.grad_fn:
            continue
        have = got.get(node, 0)
        if have != count:
            if have == 1 and count > 1:
                v.require(
                    False,
                    f"{_label(node)} has {count} incoming edges but you counted 1: "
                    "count every edge, even when you reach a node you have already "
                    "visited (only the recursion into it should happen once).",
                )
            elif have > count:
                v.require(
                    False,
                    f"{_label(node)}: counted {have}, expected {count}. Did you walk "
                    "into an already visited node again and count its inputs twice?",
                )
            else:
                v.require(False, f"{_label(node)}: counted {have}, expected {count}.")
    v.done(
        "each node's count is the number of edges that point at it, so it becomes ready when "
        "its last gradient arrives."
    )


def check_topological_order(fn: Any) -> None:
    """`fn(root_node)` -> list of every node, each before all nodes it sends gradients to."""
    v = verdict("Topological order")
    if not v.answered(fn, "topological_order"):
        return _stop(v)
    loss, _ = _graph()
    try:
        order = list(fn(loss.grad_fn))
    except Exception as err:
        v.require(False, f"topological_order(loss.grad_fn) raised {type(err).__name__}: {err}")
        return _stop(v)
    want = set(_engine_counts(loss))
    dupes = {_label(n) for n in order if order.count(n) > 1}
    if not v.require(
        not dupes, f"{', '.join(sorted(dupes))} appear more than once: keep a set of visited nodes."
    ):
        return _stop(v)
    missing = [_label(n) for n in want if n not in order]
    if not v.require(not missing, f"missing nodes: {', '.join(missing)}."):
        return _stop(v)
    if not v.require(
        order[0] is loss.grad_fn,
        f"the root ({_label(loss.grad_fn)}) must come first; you start with {_label(order[0])}.",
    ):
        return _stop(v)
    position = {n: i for i, n in enumerate(order)}
    for node in order:
        for nxt, _ in node.next_functions:
            if nxt is not None and position.get(nxt, -1) < position[node]:
                v.require(
                    False,
                    f"{_label(nxt)} comes before {_label(node)}, but {_label(node)} "
                    f"sends it a gradient: it must run first. A plain pre-order "
                    "DFS is not enough; use a post-order DFS reversed, or Kahn's "
                    "algorithm with the dependency counts.",
                )
                return _stop(v)
    v.done("every node comes before the nodes it feeds, so its gradient is complete when it runs.")
