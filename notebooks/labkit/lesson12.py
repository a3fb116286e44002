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
from .hints import register

register(
    "12",
    "Dependency counts",
    "Start from `{root: 0}` and a stack holding root. Pop a node and look at each "
    "`(next_node, _)` in `node.next_functions`; skip the `None` entries (inputs that need no "
    "gradient).",
    "Add 1 to a next node's count EVERY time an edge reaches it, even when you have seen that "
    "node before.",
    "Push a next node onto the stack only the first time you meet it (keep a set of explored "
    "nodes): counting edges and exploring nodes are two separate things.",
)
register(
    "12",
    "Topological order",
    "A node may run only after every node that sends it a gradient. The order in which a search "
    "first meets nodes (DFS pre-order, BFS) is not enough: a short path can reach a node before a "
    "longer path has delivered its gradient.",
    "Depth-first: visit all of a node's `next_functions` first (skipping None and nodes already "
    "done), THEN append the node; at the end reverse the list, so root comes first.",
    "Or Kahn's algorithm with your dependency counts: take root; each time you take a node, "
    "subtract 1 from the count of each next node, and take a node once its count reaches 0.",
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _graph() -> tuple[mg.Tensor, dict]:
    """loss and a name for each node: `a = x * w` feeds four edges, and the constant `c` leaves
    a None in next_functions. (Not the lesson's graph: its answers cannot be copied here.)"""
    x = mg.tensor([0.5, -1.0], requires_grad=True)
    w = mg.tensor([2.0, 3.0], requires_grad=True)
    c = mg.tensor([1.0, 2.0])
    a = x * w
    e = a.exp()
    ec = e * c
    aa = a * a
    both = ec + aa
    total = both.sum()
    plain = a.sum()
    loss = total + plain
    x_acc, w_acc = (n for n, _ in a.grad_fn.next_functions)
    names = {
        a.grad_fn: "MulBackward0 (a = x * w)",
        e.grad_fn: "ExpBackward0 (a.exp())",
        ec.grad_fn: "MulBackward0 (a.exp() * c)",
        aa.grad_fn: "MulBackward0 (a * a)",
        both.grad_fn: "AddBackward0 (a.exp() * c + a * a)",
        total.grad_fn: "SumBackward0 ((a.exp() * c + a * a).sum())",
        plain.grad_fn: "SumBackward0 (a.sum())",
        loss.grad_fn: "AddBackward0 (loss)",
        x_acc: "AccumulateGrad (x)",
        w_acc: "AccumulateGrad (w)",
    }
    return loss, names


def _engine_counts(loss: mg.Tensor) -> dict:
    with record_steps() as steps:
        loss.backward(retain_graph=True)
    start = next(r for r in steps.records if r["kind"] == "backward_start")
    counts = dict(start["dependencies"])
    counts[loss.grad_fn] -= 1  # the engine adds 1 for the root's seed gradient
    return counts


def _name(names: dict, node: Any) -> str:
    """The check's name for a node of its graph; anything else as Python shows it."""
    try:
        return names.get(node, repr(node))
    except TypeError:  # unhashable: not a node at all
        return repr(node)


def _used_names(fn: Any) -> set[str]:
    """Every global and attribute name `fn`'s code mentions, nested functions included."""
    code = getattr(fn, "__code__", None)
    used, stack = set(), [code] if code is not None else []
    while stack:
        c = stack.pop()
        used.update(c.co_names)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
    return used


def _borrowed(fn: Any, names: tuple[str, ...]) -> list[str]:
    """The lesson's helpers among `names` that `fn` calls (defined in another cell than fn).

    Each notebook cell compiles to its own file name, so a helper the learner wrote in the same
    cell as `fn` is theirs; one from an earlier cell is the lesson's ready-made answer.
    """
    used = _used_names(fn)
    home = getattr(getattr(fn, "__code__", None), "co_filename", None)
    found = []
    for name in names:
        helper = getattr(fn, "__globals__", {}).get(name)
        where = getattr(getattr(helper, "__code__", None), "co_filename", None)
        if name in used and where != home:
            found.append(name)
    return found


def _call(v: Verdict, fn: Any, what: str, root: Any) -> Any:
    """`fn(root)`, or None after saying precisely what went wrong."""
    try:
        result = fn(root)
    except AttributeError as err:
        if "NoneType" in str(err):
            v.require(
                False,
                f"{what} raised AttributeError ({err}): `next_functions` holds `(None, 0)` for "
                "an input that needs no gradient (here the constant c in `a.exp() * c`). Skip "
                "the None entries.",
            )
        else:
            v.require(False, f"{what} raised AttributeError: {err}")
        return None
    except RecursionError:
        v.require(False, f"{what} never stopped (RecursionError): keep a set of visited nodes.")
        return None
    except Exception as err:  # the learner's code: say what it raised
        v.require(False, f"{what} raised {type(err).__name__}: {err}")
        return None
    if result is None:
        v.require(
            False,
            f"{what} returned None: is its body still `...`, or is the `return` missing?",
        )
    return result


def check_count_dependencies(fn: Any) -> None:
    """`fn(root_node)` -> {node: number of edges pointing at it} for the graph behind root."""
    v = verdict("Dependency counts")
    if not v.answered(fn, "count_dependencies"):
        return _stop(v)
    if getattr(fn, "__name__", "") == "dependencies" or _borrowed(fn, ("dependencies", "walk")):
        v.require(
            False,
            "your function uses the lesson's `dependencies`/`walk` from section 2, which is "
            "the answer already written. Write the walk yourself: a stack, a set of explored "
            "nodes, and a count per edge.",
        )
        return _stop(v)
    loss, names = _graph()
    got = _call(v, fn, "count_dependencies(loss.grad_fn)", loss.grad_fn)
    if got is None:
        return _stop(v)
    if not v.require(
        isinstance(got, dict), f"return a dict {{node: count}}, got {type(got).__name__}."
    ):
        return _stop(v)
    if got and all(isinstance(k, str) for k in got):
        v.require(
            False,
            "the keys are strings; use the node objects themselves as keys (two nodes can "
            "have the same name).",
        )
        return _stop(v)
    want = _engine_counts(loss)
    missing = [n for n in want if n not in got and want[n] > 0]
    if not v.require(
        not missing,
        f"no count for {', '.join(_name(names, n) for n in missing)}: every "
        "node reachable through next_functions needs one (AccumulateGrad "
        "nodes included).",
    ):
        return _stop(v)
    if got.get(loss.grad_fn, 0) != 0:
        v.require(
            False,
            f"the root {_name(names, loss.grad_fn)} has count {got[loss.grad_fn]}, but no "
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
                    f"{_name(names, node)} has {count} incoming edges but you counted 1: "
                    "count every edge, even when you reach a node you have already "
                    "visited (only the recursion into it should happen once).",
                )
            elif have > count:
                v.require(
                    False,
                    f"{_name(names, node)}: counted {have}, expected {count}. Did you walk "
                    "into an already visited node again and count its inputs twice?",
                )
            else:
                v.require(False, f"{_name(names, node)}: counted {have}, expected {count}.")
    v.done(
        "each node's count is the number of edges that point at it, so it becomes ready when "
        "its last gradient arrives."
    )


def check_topological_order(fn: Any) -> None:
    """`fn(root_node)` -> list of every node, each before all nodes it sends gradients to."""
    v = verdict("Topological order")
    if not v.answered(fn, "topological_order"):
        return _stop(v)
    borrowed = _borrowed(fn, ("seq", "tiny_backward", "record_steps", "labels_for"))
    if borrowed or "_sequence_nr" in _used_names(fn):
        v.require(
            False,
            "your function orders the nodes by their sequence numbers (or runs an engine). "
            "Sequence numbers record creation order, which happens to fit here; the exercise "
            "is to derive the order from the edges alone (`next_functions`).",
        )
        return _stop(v)
    loss, names = _graph()
    result = _call(v, fn, "topological_order(loss.grad_fn)", loss.grad_fn)
    if result is None:
        return _stop(v)
    try:
        order = list(result)
    except TypeError:
        v.require(False, f"return a list of nodes, got {type(result).__name__}.")
        return _stop(v)
    if order and all(isinstance(n, str) for n in order):
        v.require(False, "the list holds strings; return the node objects themselves.")
        return _stop(v)
    want = set(_engine_counts(loss))
    dupes = {_name(names, n) for n in order if order.count(n) > 1}
    if not v.require(
        not dupes, f"{', '.join(sorted(dupes))} appear more than once: keep a set of visited nodes."
    ):
        return _stop(v)
    missing = [_name(names, n) for n in want if n not in order]
    if not v.require(not missing, f"missing nodes: {', '.join(missing)}."):
        return _stop(v)
    extra = [_name(names, n) for n in order if n not in want]
    if not v.require(not extra, f"{', '.join(extra)} are not nodes of this graph."):
        return _stop(v)
    root = _name(names, loss.grad_fn)
    if not v.require(
        order[0] is loss.grad_fn,
        f"the root ({root}) must come first; you start with {_name(names, order[0])}.",
    ):
        return _stop(v)
    position = {n: i for i, n in enumerate(order)}
    for node in order:
        for nxt, _ in node.next_functions:
            if nxt is not None and position[nxt] < position[node]:
                sender, receiver = _name(names, node), _name(names, nxt)
                v.require(
                    False,
                    f"{receiver} comes before {sender}, but {sender} sends it a gradient: it "
                    "must run first. The order in which a search first meets the nodes (a "
                    "plain pre-order DFS, or BFS) is not enough; use a post-order DFS reversed, "
                    "or Kahn's algorithm with the dependency counts.",
                )
                return _stop(v)
    v.done("every node comes before the nodes it feeds, so its gradient is complete when it runs.")
