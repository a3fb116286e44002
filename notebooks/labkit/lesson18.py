"""Checks for lesson 18 (build your own autograd): the learner's engine and its backward formulas.

`check_backward(Var)` runs the learner's `backward()` on graphs it never saw (new shapes and
values per call, a node used four times, a short and a long path into the same node, a 5,000-node
chain) with every node's `_backward` wrapped, so it sees the ORDER the engine calls them in: each
node must run exactly once, after every node it receives gradient from; the leaves' gradients
must match minigrad's and PyTorch's; a recursion that hits Python's limit is named as such. The
order minigrad's engine used on the same graph is compared in the verdict (both are valid; ties
may be broken differently). The op exercises are in lesson18_ops.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from . import feedback
from .calls import calls_where
from .demo import verdict_or_demo
from .hints import register
from .language import say
from .lesson18_bench import (
    Step,
    diamond,
    engine_reference,
    graph_nodes,
    long_and_short,
    run_program,
    watched,
)
from .lesson18_ops import check_add, check_cross_entropy, check_layer_norm, check_matmul
from .lesson18_probe import close, handed_over, raised, stop

__all__ = [
    "check_add",
    "check_backward",
    "check_cross_entropy",
    "check_layer_norm",
    "check_matmul",
    "needs",
]

# the exercises by their number in the lesson, for `needs`
_PARTS = {
    1: "Backward pass",
    2: "Matmul backward",
    3: "Broadcasting add",
    4: "Softmax cross-entropy",
    5: "Layer norm",
}


def needs(*parts: int) -> None:
    """Stop a cell that uses the answers to these exercises until their checks have passed (in a
    learner's copy, before then, the cell would fail inside the unfinished code)."""
    feedback.needs(*(_PARTS[p] for p in parts))


CHAIN = 5000  # nodes in the chain: deeper than the recursion limit (1000; 3000 in Jupyter)

register(
    "18",
    "Backward pass",
    "Two phases: first a topological order of every node reachable from self (each node once, "
    "a node before the nodes it was computed from, once reversed), then seed `self.grad` with "
    "ones and call each node's `_backward()` in that order.",
    "No recursion: a stack of `(node, parents_done)` pairs. Pop a pair; if parents_done, append "
    "the node to the order; otherwise (if not yet visited) mark it visited, push "
    "`(node, True)`, then push `(parent, False)` for each parent.",
    "The list you built has every node after its parents (post-order): reverse it, so self "
    "comes first and each node runs only after every node that uses it.",
    zh_title="反向传播引擎",
    zh=(
        "分两步：先求出从 self 出发能到达的所有节点的拓扑序（每个节点只出现一次，反转之后，"
        "每个节点都排在算出它的那些节点前面），再给 `self.grad` 填上 1，按这个顺序调用每个节点的 "
        "`_backward()`。",
        "不用递归：用一个装着 `(node, parents_done)` 的栈。弹出一对；如果 parents_done 为真，"
        "就把节点追加到顺序里；否则（如果还没访问过）把它标记为已访问，压入 `(node, True)`，"
        "再为每个父节点压入 `(parent, False)`。",
        "这样得到的列表里，每个节点都排在它的父节点之后（后序）：把它反转，self 就排在最前，"
        "每个节点都要等所有用到它的节点运行完才运行。",
    ),
)


class _Run:
    """One backward pass of the learner's engine on a program, with what the check saw."""

    def __init__(self, calls: list[str], grads: dict[str, np.ndarray], real: list[str]) -> None:
        self.calls, self.grads, self.real = calls, grads, real  # real: minigrad's op order


def _engine_run(v: Any, cls: type, program: Any, rng: np.random.Generator) -> Any:
    """Run `program` in the learner's engine with each `_backward` logged; None after a problem."""
    leaf_names, steps = program()
    shape = tuple(int(s) for s in rng.integers(2, 5, size=2))
    arrays = {n: rng.normal(size=shape) * 0.7 for n in leaf_names}
    want_mg, want_torch, real_order = engine_reference(leaf_names, steps, arrays)
    leaves = {n: cls(arrays[n].copy()) for n in leaf_names}
    try:
        values = run_program(leaves, steps)
    except Exception as err:  # noqa: BLE001 - the learner's ops: say what they raised
        raised(v, say("building the check's graph", "构建检查用的计算图"), err)
        return None
    names = {id(val): name for name, val in values.items()}
    calls: list[str] = []
    for node in graph_nodes(values["loss"]):
        _log_calls(node, names.get(id(node), "?"), calls)
    with watched() as seen, calls_where(_sorter) as sorters:
        ran = _run_backward(v, values["loss"], "loss.backward()")
    if not ran or not v.require(handed_over(seen) is None, handed_over(seen) or ""):
        return None
    sorting = [n for n in sorters if "sort" in n.lower() or "topolog" in n.lower()]
    if not v.require(not sorters, _sorter_message((sorting or sorters or [""])[0])):
        return None
    grads = {n: np.asarray(leaves[n].grad, dtype=float) for n in leaf_names}
    run = _Run(calls, grads, [name for name in real_order if name not in leaf_names])
    if not _order_holds(v, run, steps, leaf_names):
        return None
    for n in leaf_names:
        if not (close(grads[n], want_mg[n]) and close(grads[n], want_torch[n])):
            v.require(
                False,
                say(
                    f"every node ran once, in a valid order, but {n}.grad differs from minigrad's "
                    "and PyTorch's. Does backward seed `self.grad` with ones (not zeros), and "
                    "leave the gradients the closures add untouched?",
                    f"每个节点都只运行了一次，顺序也合法，但 {n}.grad 与 minigrad 和 PyTorch 的"
                    "结果不同。backward 有没有给 `self.grad` 填上 1（而不是 0），并且不去改动"
                    "闭包累加进来的梯度？",
                ),
            )
            return None
    return run


def _log_calls(node: Any, name: str, calls: list[str]) -> None:
    """Wrap the node's closure so that each call is noted (a leaf's too: it may have one)."""
    original = getattr(node, "_backward", None)
    if not callable(original):
        return

    def logged() -> Any:
        calls.append(name)
        return original()

    try:
        node._backward = logged
    except AttributeError:  # a closure the class will not let us replace: nothing to note
        pass


def _run_backward(v: Any, root: Any, what: str) -> bool:
    """`root.backward()`, or False after saying what went wrong. A backward that raises Python's
    recursion limit is refused (and the limit put back): that only moves the wall."""
    limit = sys.getrecursionlimit()
    try:
        root.backward()
    except RecursionError:
        return v.require(False, _recursion_message())
    except Exception as err:  # noqa: BLE001 - the learner's engine: say what it raised
        return raised(v, what, err)
    finally:
        raised_limit = sys.getrecursionlimit() != limit
        sys.setrecursionlimit(limit)
    return v.require(
        not raised_limit,
        say(
            "your backward raises Python's recursion limit: that only moves the wall (a deep "
            "network's graph is deeper still, and past the C stack the kernel crashes). Sort "
            "with an explicit stack.",
            "你的 backward 调高了 Python 的递归上限：这只是把墙往后挪了挪（深层网络的计算图更深，"
            "超过 C 栈时内核会直接崩溃）。请用一个显式的栈来排序。",
        ),
    )


def _sorter(code: Any) -> str | None:
    """Graph-sorting libraries, by the file their code comes from (graphlib, networkx)."""
    file = code.co_filename.replace("\\", "/")
    if code.co_qualname.startswith("<"):  # a module being imported, a comprehension
        return None
    if file.endswith("/graphlib.py"):
        return ".".join(("graphlib", code.co_qualname.split(".")[0]))
    if "/networkx/" in file:
        return ".".join(("networkx", code.co_qualname.split(".")[0]))
    return None


def _sorter_message(name: str) -> str:
    return say(
        f"your backward lets a library sort the graph ({name}): the order is the engine's one "
        "real idea, and the exercise is to write it. A depth-first post-order with an explicit "
        "stack, reversed, is about ten lines.",
        f"你的 backward 让一个库替你给计算图排了序（{name}）：顺序正是引擎唯一真正的想法，"
        "这个练习就是要你亲手写出它。用显式的栈做深度优先后序，再反转，也就十来行。",
    )


def _recursion_message() -> str:
    return say(
        "your backward hit Python's recursion limit (RecursionError): a recursive "
        "depth-first search needs one call per node along the deepest path, and real graphs are "
        "deeper than the limit (a 5,000-step chain here). Sort with an explicit stack.",
        "你的 backward 撞上了 Python 的递归深度上限（RecursionError）：递归的深度优先搜索，"
        "最深的那条路径上每个节点都要占一层调用，而真实的计算图比这个上限深得多（这里是一条 "
        "5000 步的链）。请用一个显式的栈来排序。",
    )


def _order_holds(v: Any, run: _Run, steps: list[Step], leaf_names: list[str]) -> bool:
    """Each op node called once, after every node that uses it."""
    ops = [name for name, *_ in steps]
    text = {name: t for name, t, *_ in steps}
    ran = [c for c in run.calls if c not in leaf_names]
    if not v.require(
        bool(ran) or any(np.any(g) for g in run.grads.values()),
        say(
            "loss.backward() called no node's _backward and left every gradient at zero: is "
            "backward still `...`?",
            "loss.backward() 一个节点的 _backward 都没调用，所有梯度仍然是 0：backward 是不是"
            "还是 `...`？",
        ),
    ):
        return False
    twice = [n for n in ops if ran.count(n) > 1]
    if twice:
        name, times = text[twice[0]], ran.count(twice[0])
        return v.require(
            False,
            say(
                f"`{name}` ran its _backward {times} times: a node reached along several paths "
                "must be sorted (and run) once, or its gradient is passed on more than once. "
                "Keep a set of visited nodes.",
                f"`{name}` 的 _backward 运行了 {times} 次：沿好几条路径都能到达的节点只能排一次"
                "（也只能运行一次），否则它的梯度会被往下传好几遍。请用一个集合记下访问过的节点。",
            ),
        )
    missing = [n for n in ops if n not in ran]
    if not v.require(
        not missing,
        say(
            f"`{text[missing[0]] if missing else ''}` never ran: the order must hold every node "
            "reachable from the root through the parents.",
            f"`{text[missing[0]] if missing else ''}` 从来没有运行：顺序里必须包含从根节点沿着"
            "父节点能到达的每一个节点。",
        ),
    ):
        return False
    position = {n: i for i, n in enumerate(ran)}
    for name, _, _, inputs in steps:
        for source in inputs:
            if source in position and position[source] < position[name]:
                return v.require(
                    False,
                    say(
                        f"`{text[source]}` ran before `{text[name]}`, which sends it a gradient: "
                        f"{source}.grad was not complete yet. A node may run only after every "
                        "node that uses it; the order a search first meets nodes is not enough. "
                        "Reverse a post-order.",
                        f"`{text[source]}` 在 `{text[name]}` 之前就运行了，而后者要向它发送梯度："
                        f"那时 {source}.grad 还不完整。一个节点只能在所有用到它的节点之后运行；"
                        "搜索第一次遇到节点的顺序是不够的。请反转后序。",
                    ),
                )
    return True


def _chain(v: Any, cls: type, rng: np.random.Generator) -> bool:
    """x * s * s * ... * s (CHAIN times), summed: deep, and `s` is used CHAIN times."""
    x, s = rng.uniform(0.5, 1.5, size=3), 1 + rng.uniform(-1e-4, 1e-4, size=3)
    xs, ss = cls(x.copy()), cls(s.copy())
    h = xs
    try:
        for _ in range(CHAIN):
            h = h * ss
        loss = h.sum()
    except Exception as err:  # noqa: BLE001 - the learner's ops
        return raised(v, say("building a long chain", "构建一条长链"), err)
    if not _run_backward(
        v, loss, say("backward on a 5,000-node chain", "在 5000 个节点的链上反向传播")
    ):
        return False
    want_x, want_s = s**CHAIN, CHAIN * x * s ** (CHAIN - 1)
    return v.require(
        np.allclose(xs.grad, want_x, rtol=1e-9) and np.allclose(ss.grad, want_s, rtol=1e-9),
        say(
            "on a 5,000-node chain `x * s * s * ... * s` the gradients are wrong: s is used "
            "5,000 times, so its 5,000 contributions must all add up.",
            "在一条 5000 个节点的链 `x * s * s * ... * s` 上梯度不对：s 被用了 5000 次，"
            "它的 5000 份梯度必须全部加起来。",
        ),
    )


def check_backward(cls: Any, demo: bool = False) -> None:
    """`root.backward()` on the learner's class: gradients, call order, depth, reuse."""
    v = verdict_or_demo("Backward pass", demo)
    if not v.answered(cls, "Var"):
        return stop(v)
    method = getattr(cls, "backward", None)
    if not v.require(
        callable(method),
        say(
            f"{getattr(cls, '__name__', 'Var')} has no backward method yet: define "
            "`backward(self)` and attach it with `Var.backward = backward`.",
            f"{getattr(cls, '__name__', 'Var')} 还没有 backward 方法：请定义 `backward(self)`，"
            "再用 `Var.backward = backward` 把它挂到类上。",
        ),
    ):
        return stop(v)
    rng = np.random.default_rng()
    first = _engine_run(v, cls, diamond, rng)
    if first is None or _engine_run(v, cls, long_and_short, rng) is None:
        return stop(v)
    if not _chain(v, cls, rng):
        return stop(v)
    mine = [c for c in first.calls if c in first.real]
    same, graph = mine == first.real, "; ".join(text for _, text, _, _ in diamond()[1])
    note = (
        say(
            "on the check's first graph it called the nodes in exactly minigrad's order.",
            "在检查的第一个图上，它调用节点的顺序和 minigrad 的完全相同。",
        )
        if same
        else say(
            f"on the check's first graph ({graph}) its order differs from minigrad's (yours: "
            f"{' -> '.join(mine)}; minigrad: {' -> '.join(first.real)}), and both are valid: "
            "ties between independent nodes may go either way.",
            f"在检查的第一个图上（{graph}），它的顺序和 minigrad 的不同（你的："
            f"{' -> '.join(mine)}；minigrad：{' -> '.join(first.real)}），两者都合法："
            "互不依赖的节点谁先谁后都行。",
        )
    )
    v.done(
        say(
            "every node ran once, after all the nodes that use it, the gradients match "
            "minigrad's and PyTorch's, and a 5,000-node chain is no problem; ",
            "每个节点都只运行了一次，且都在所有用到它的节点之后；梯度与 minigrad 和 PyTorch 的"
            "一致，5000 个节点的链也没有问题；",
        )
        + note
    )
