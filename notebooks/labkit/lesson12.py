"""Checks for lesson 12 (inside the engine).

Answers are compared with what minigrad's own engine reports (`record_steps`), on a graph where
one tensor feeds three consumers, so a count that ignores shared inputs, or a walk that visits a
node twice, shows up as a specific wrong number rather than a vague mismatch.

Then a second graph the learner never saw, where sequence numbers are not a topological order
(a view's node re-derived after an in-place write is numbered after the op that uses it), and
the first graph again (state kept between calls shows). Everything the function calls is
watched by code object while it runs: the lesson's helpers from an earlier cell (whatever name
or `globals()` lookup reached them: each cell compiles to its own file name), the library's own
graph code (the engine, the explorer, this module) and graph-sorting libraries (graphlib,
networkx) are the answer already written and are named as such.
"""

from __future__ import annotations

import os
import re
from typing import Any

import minigrad as mg
from minigrad.autograd import record_steps

from .calls import calls_where
from .feedback import Verdict, verdict
from .hints import register
from .language import say

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
    zh_title="依赖计数",
    zh=(
        "从 `{root: 0}` 和一个装着 root 的栈开始。弹出一个节点，"
        "查看 `node.next_functions` 中的每个 `(next_node, _)`；"
        "跳过其中的 `None`（不需要梯度的输入）。",
        "每当有一条边到达某个下游节点，就给它的计数加 1，*每一次* 都要加，"
        "即使这个节点之前已经见过。",
        "只在第一次遇到某个下游节点时才把它压入栈（用一个集合记下已经探索过的节点）：数边和探索节点"
        "是两件不同的事。",
    ),
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
    zh_title="拓扑排序",
    zh=(
        "一个节点只能在所有向它发送梯度的节点都运行之后才能运行。搜索第一次遇到各节点的顺序（DFS "
        "先序、BFS）是不够的：一条短路径可能在一条长路径送来梯度之前就到达了某个节点。",
        "深度优先：先访问一个节点的全部 `next_functions`（跳过 None 和已经处理完的节点），*然后* "
        "再把这个节点追加到列表里；最后把列表反转，让 root 排在最前面。",
        "也可以用 Kahn 算法配合你的依赖计数：先取 root；每取出一个节点，就把它每个下游节点的计数"
        "减 1，计数降到 0 的节点就可以取出了。",
    ),
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


def _graph_two() -> tuple[mg.Tensor, dict]:
    """A second graph the learner never saw: a three-output node (unbind) whose outputs are
    used by different ops, a leaf used twice, and a view of a tensor written in place under
    no_grad, whose node is made when its history is read. That node is numbered after the
    exp that uses it, so here the sequence-number order is not a topological order."""
    x = mg.tensor([1.0, -2.0, 0.5], requires_grad=True)
    k = mg.tensor([2.0, 3.0, 4.0], requires_grad=True)
    h = x * k
    window = h[:2]
    with mg.no_grad():
        h.add_(0.5)  # window's history is now re-derived when it is next used
    e = window.exp()
    p, q, r = h.unbind()
    mixed = p * q + q.sin() * r
    loss = e.sum() + mixed + (k * 2).sum()
    names = {
        h.grad_fn: "MulBackward0 (h = x * k)",
        e.grad_fn: "ExpBackward0 (window.exp())",
        e.grad_fn.next_functions[0][0]: "AsStridedBackward0 (window, re-derived)",
        p.grad_fn: "UnbindBackward0 (h.unbind())",
        loss.grad_fn: "AddBackward0 (loss)",
    }
    return loss, names


def _stale(first: dict, second: dict, nodes_two: set) -> bool:
    """Whether a result for the second graph holds nodes of the first one (state kept
    between calls: a dict or set made outside the function, or a mutable default)."""
    return any(node in first and node not in nodes_two for node in second)


def _stale_message(what: str) -> str:
    return say(
        f"called on a second graph, {what} still holds nodes of the first one: it keeps state "
        "between calls (a dict, list or set created outside the function, or a mutable default "
        "argument such as `seen=set()`). Create them inside the function, on every call.",
        f"换到第二个计算图上调用时，{what} 里还留着第一个图的节点：它在两次调用之间保留了状态"
        "（在函数外面创建的字典、列表或集合，或者像 `seen=set()` 这样的可变默认参数）。"
        "请在函数内部、每次调用时重新创建它们。",
    )


def _distinct_edge_counts(root: Any) -> dict:
    """Counts made with each (node, input_nr) pair taken once: the answer of a walk that
    dedupes edges instead of nodes."""
    counts, seen, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in dict.fromkeys(node.next_functions):
            if nxt is None:
                continue
            counts[nxt] = counts.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return counts


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


_ENGINE_CODE = (
    os.sep + os.path.join("minigrad", "autograd") + os.sep,  # the engine and its reports
    os.sep + "widgets" + os.sep,  # the explorer's graph walks
    os.sep + os.path.join("labkit", "lesson12.py"),  # this check's own answers
)
_SORTERS = (os.sep + "graphlib.py", os.sep + "networkx" + os.sep)  # libraries that sort graphs
_IPYKERNEL_CELL = re.compile(r"[/\\]ipykernel_\d+[/\\]\d+\.py$")

# The lesson's helpers, as their cells define them: the walk and the counts of section 2 (the
# first exercise's answer), the sequence numbers and the tiny engine (an order already made).
_LESSON_COUNTS = ("dependencies", "walk")
_LESSON_ORDER = ("seq", "tiny_backward", "labels_for")


def _is_cell(file: str) -> bool:
    """Whether code comes from a notebook cell (or any interactive source) rather than a module:
    IPython compiles each cell to its own file name (`/tmp/ipykernel_<pid>/<hash>.py` in a
    kernel, `<ipython-input-N-...>` in a terminal)."""
    if _IPYKERNEL_CELL.search(file):
        return True
    return file.startswith("<") and not file.startswith(("<string>", "<frozen"))


class _Calls:
    """What `fn(root)` called while it ran: the engine's (or explorer's, or this check's) graph
    code, graph-sorting libraries, and code from another notebook cell than fn's own."""

    def __init__(self) -> None:
        self.engine: list[str] = []
        self.sorters: list[str] = []
        self.cells: list[str] = []


def _library_calls(fn: Any, root: Any) -> tuple[Any, _Calls]:
    """`fn(root)` with the Python functions it calls watched, by code object: an alias, a
    `globals()[...]` lookup or a helper reached through another helper is seen all the same.
    A helper defined in the same cell as fn is the learner's own; one from another cell is not."""
    here = getattr(getattr(fn, "__code__", None), "co_filename", None)
    calls = _Calls()
    kinds: dict[Any, tuple[list[str], str] | None] = {}

    def kind_of(code: Any) -> tuple[list[str], str] | None:
        file = code.co_filename
        if file == here:
            return None
        if any(p in file for p in _ENGINE_CODE):
            return calls.engine, code.co_name
        if any(file.endswith(p) or p in file for p in _SORTERS):
            where = "graphlib" if file.endswith("graphlib.py") else "networkx"
            public = code.co_qualname.split(".")[0]
            return calls.sorters, where + ("" if public.startswith("_") else "." + public)
        if _is_cell(file):
            return calls.cells, code.co_name
        return None

    def name_of(code: Any) -> str | None:
        if code not in kinds:
            kinds[code] = kind_of(code)
        found = kinds[code]
        if found is None:
            return None
        where, name = found
        if name not in where:
            where.append(name)
        return name

    with calls_where(name_of):
        result = fn(root)
    return result, calls


def _borrowed_message(what: str, calls: _Calls, exercise: str) -> str | None:
    """What to say about code `fn` called that is not the learner's, or None (all theirs)."""
    if calls.engine:
        return say(
            f"{what} calls the library's own graph code ({', '.join(calls.engine)}): the "
            "engine's walk is the answer already written. Walk next_functions yourself.",
            f"{what} 调用了库自己的计算图代码（{'、'.join(calls.engine)}）：引擎里的遍历就是"
            "现成的答案。请自己沿着 next_functions 遍历。",
        )
    if exercise == "order" and calls.sorters:
        named = [n for n in calls.sorters if "sort" in n.lower() or "topolog" in n.lower()]
        named = named or [calls.sorters[0].split(".")[0]]
        return say(
            f"{what} lets {named[0]} do the sorting: that is the answer already written. The "
            "exercise is to write the order yourself from next_functions: a depth-first "
            "post-order reversed, or Kahn's algorithm with your dependency counts.",
            f"{what} 让 {named[0]} 替你排了序：那是现成的答案。"
            "这个练习要你自己根据 next_functions 写出顺序：反转后的深度优先后序，"
            "或者用 Kahn 算法配合你的依赖计数。",
        )
    if exercise == "counts" and calls.cells:
        lesson = [n for n in calls.cells if n in _LESSON_COUNTS]
        if lesson:
            return say(
                "your function uses the lesson's `dependencies`/`walk` from section 2 (it called "
                f"`{lesson[0]}`, under whatever name it reached it), which is the answer already "
                "written. Write the walk yourself: a stack, a set of explored nodes, and a count "
                "per edge.",
                "你的函数用了课文第 2 节的 `dependencies`/`walk`（它调用了 "
                f"`{lesson[0]}`，不管是通过什么名字调到的），那等于是现成的答案。请自己写这次"
                "遍历：一个栈、一个记录已探索节点的集合，再为每条边计一次数。",
            )
        return say(
            f"your function calls `{calls.cells[0]}`, defined in another cell: the check takes "
            "only the code in your answer's cell as yours (the lesson's cells above hold the "
            "answer already written). Put your helpers in the same cell as count_dependencies.",
            f"你的函数调用了在另一个单元格里定义的 `{calls.cells[0]}`：检查只把你答案所在单元格"
            "里的代码算作你写的（上面课文的单元格里就有现成的答案）。请把你的辅助函数放进 "
            "count_dependencies 所在的同一个单元格。",
        )
    if exercise == "order" and any(n in _LESSON_ORDER for n in calls.cells):
        return _sequence_message()
    return None


def _sequence_message() -> str:
    return say(
        "your function orders the nodes by their sequence numbers (or runs an engine). "
        "Sequence numbers record creation order, which happens to fit here; the exercise "
        "is to derive the order from the edges alone (`next_functions`).",
        "你的函数按序号给节点排序（或者直接运行了一个引擎）。序号记录的是创建顺序，在这里"
        "碰巧行得通；这个练习要你只根据边（`next_functions`）推出顺序。",
    )


def _call(v: Verdict, fn: Any, what: str, root: Any) -> Any:
    """`fn(root)`, or None after saying precisely what went wrong."""
    exercise = "counts" if what.startswith("count_dependencies") else "order"
    try:
        result, calls = _library_calls(fn, root)
        borrowed = _borrowed_message(what, calls, exercise)
        if borrowed:
            v.require(False, borrowed)
            return None
    except AttributeError as err:
        if "NoneType" in str(err):
            v.require(
                False,
                say(
                    f"{what} raised AttributeError ({err}): `next_functions` holds `(None, 0)` "
                    "for an input that needs no gradient (here the constant c in `a.exp() * c`). "
                    "Skip the None entries.",
                    f"{what} 抛出了 AttributeError（{err}）：对于不需要梯度的输入（这里是 "
                    "`a.exp() * c` 中的常量 c），`next_functions` 里存的是 `(None, 0)`。"
                    "请跳过这些 None。",
                ),
            )
        else:
            v.require(
                False,
                say(
                    f"{what} raised AttributeError: {err}",
                    f"{what} 抛出了 AttributeError：{err}",
                ),
            )
        return None
    except RecursionError:
        v.require(
            False,
            say(
                f"{what} never stopped (RecursionError): keep a set of visited nodes.",
                f"{what} 停不下来（RecursionError）：请用一个集合记下已访问过的节点。",
            ),
        )
        return None
    except Exception as err:  # the learner's code: say what it raised
        v.require(
            False,
            say(
                f"{what} raised {type(err).__name__}: {err}",
                f"{what} 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return None
    if result is None:
        v.require(
            False,
            say(
                f"{what} returned None: is its body still `...`, or is the `return` missing?",
                f"{what} 返回了 None：函数体是不是还是 `...`，或者漏了 `return`？",
            ),
        )
    return result


def check_count_dependencies(fn: Any) -> None:
    """`fn(root_node)` -> {node: number of edges pointing at it} for the graph behind root."""
    v = verdict("Dependency counts")
    if not v.answered(fn, "count_dependencies"):
        return _stop(v)
    if getattr(fn, "__name__", "") == "dependencies":
        v.require(
            False,
            say(
                "your function uses the lesson's `dependencies`/`walk` from section 2, which is "
                "the answer already written. Write the walk yourself: a stack, a set of explored "
                "nodes, and a count per edge.",
                "你的函数用了课文第 2 节的 `dependencies`/`walk`，那等于是现成的答案。请自己写这次"
                "遍历：一个栈、一个记录已探索节点的集合，再为每条边计一次数。",
            ),
        )
        return _stop(v)
    loss, names = _graph()
    got = _call(v, fn, "count_dependencies(loss.grad_fn)", loss.grad_fn)
    if got is None:
        return _stop(v)
    if not v.require(
        isinstance(got, dict),
        say(
            f"return a dict {{node: count}}, got {type(got).__name__}.",
            f"请返回一个字典 {{node: count}}，得到的却是 {type(got).__name__}。",
        ),
    ):
        return _stop(v)
    if got and all(isinstance(k, str) for k in got):
        v.require(
            False,
            say(
                "the keys are strings; use the node objects themselves as keys (two nodes can "
                "have the same name).",
                "键是字符串；请直接用节点对象本身作键（两个节点可能同名）。",
            ),
        )
        return _stop(v)
    want = _engine_counts(loss)
    missing = [n for n in want if n not in got and want[n] > 0]
    if not v.require(
        not missing,
        say(
            f"no count for {', '.join(_name(names, n) for n in missing)}: every "
            "node reachable through next_functions needs one (AccumulateGrad "
            "nodes included).",
            f"{'、'.join(_name(names, n) for n in missing)} 没有计数：凡是能通过 next_functions "
            "到达的节点都需要一个计数（包括 AccumulateGrad 节点）。",
        ),
    ):
        return _stop(v)
    if got.get(loss.grad_fn, 0) != 0:
        v.require(
            False,
            say(
                f"the root {_name(names, loss.grad_fn)} has count {got[loss.grad_fn]}, but no "
                "edge points at it (the engine seeds it separately): it should be 0 or "
                "absent.",
                f"根节点 {_name(names, loss.grad_fn)} 的计数是 {got[loss.grad_fn]}，但没有任何边"
                "指向它（引擎单独给它送入初始梯度）：它应该是 0，或者干脆不出现。",
            ),
        )
    distinct = _distinct_edge_counts(loss.grad_fn)
    if any(got.get(n, 0) != c for n, c in want.items() if n is not loss.grad_fn) and all(
        got.get(n, 0) == c for n, c in distinct.items() if n is not loss.grad_fn
    ):
        v.require(
            False,
            say(
                "you count each (node, input_nr) pair once, but `a * a` sends two gradients "
                "along two edges that look alike, `(MulBackward0, 0)` twice in next_functions: "
                "both must arrive before the node is ready. Count every entry of "
                "next_functions; keep the set for the nodes you explore.",
                "你把每个 (node, input_nr) 组合只数了一次，可 `a * a` 会沿两条看起来一样的边送来"
                "两份梯度，next_functions 里有两个 `(MulBackward0, 0)`：两份都到了，节点才算就绪。"
                "请为 next_functions 的每一项计数；集合只用来记录已探索的节点。",
            ),
        )
        return _stop(v)
    for node, count in want.items():
        if node is loss.grad_fn:
            continue
        have = got.get(node, 0)
        if have != count:
            if have == 1 and count > 1:
                v.require(
                    False,
                    say(
                        f"{_name(names, node)} has {count} incoming edges but you counted 1: "
                        "count every edge, even when you reach a node you have already "
                        "visited (only the recursion into it should happen once).",
                        f"{_name(names, node)} 有 {count} 条入边，你却只数了 1 条：每条边都要计数，"
                        "即使到达的是已经访问过的节点（只有深入它内部的那一步才只做一次）。",
                    ),
                )
            elif have > count:
                v.require(
                    False,
                    say(
                        f"{_name(names, node)}: counted {have}, expected {count}. Did you walk "
                        "into an already visited node again and count its inputs twice?",
                        f"{_name(names, node)}：数出 {have}，应为 {count}。你是不是又走进了一个"
                        "已经访问过的节点，把它的输入数了两遍？",
                    ),
                )
            else:
                v.require(
                    False,
                    say(
                        f"{_name(names, node)}: counted {have}, expected {count}.",
                        f"{_name(names, node)}：数出 {have}，应为 {count}。",
                    ),
                )
    if not v.problems:
        _second_count(v, fn, got, loss.grad_fn)
    v.done(
        say(
            "each node's count is the number of edges that point at it, so it becomes ready when "
            "its last gradient arrives.",
            "每个节点的计数就是指向它的边数，所以当它的最后一份梯度到达时，它就进入就绪状态。",
        )
    )


def _again_message() -> str:
    return say(
        "called a second time on the same graph, your function gives another answer: it keeps "
        "state between calls (a dict, list or set created outside the function, or a mutable "
        "default argument such as `seen=set()`). Create them inside the function, on every "
        "call.",
        "在同一个计算图上再调用一次，你的函数给出了不同的答案：它在两次调用之间保留了状态（在函数"
        "外面创建的字典、列表或集合，或者像 `seen=set()` 这样的可变默认参数）。请在函数内部、"
        "每次调用时重新创建它们。",
    )


def _second_count(v: Verdict, fn: Any, first: dict, root: Any) -> None:
    """count_dependencies on the second graph, against the engine's own counts; then on the
    first graph again, which must give the same counts."""
    first = dict(first)  # (a learner's function might hand back the same dict again)
    loss, names = _graph_two()
    got = _call(v, fn, "count_dependencies(second_loss.grad_fn)", loss.grad_fn)
    if got is None or not v.require(
        isinstance(got, dict),
        say(
            f"return a dict {{node: count}}, got {type(got).__name__}.",
            f"请返回一个字典 {{node: count}}，得到的却是 {type(got).__name__}。",
        ),
    ):
        return
    want = _engine_counts(loss)
    if not v.require(not _stale(first, got, set(want)), _stale_message("the dict")):
        return
    wrong = [
        (_name(names, n), got.get(n, 0), c)
        for n, c in want.items()
        if n is not loss.grad_fn and got.get(n, 0) != c
    ]
    if not v.require(
        not wrong,
        say(
            "on a second graph (a view re-derived after an in-place write, unbind's three "
            "outputs used by different ops, a leaf used twice): "
            + "; ".join(f"{n}: counted {h}, expected {c}" for n, h, c in wrong)
            + ". Count every edge of next_functions, and explore each node once.",
            "在第二个计算图上（一个在原地写入后重新推导历史的视图、unbind 的三个输出被不同的运算"
            "使用、一个叶子被用了两次）："
            + "；".join(f"{n}：数出 {h}，应为 {c}" for n, h, c in wrong)
            + "。请为 next_functions 里的每条边计数，并且每个节点只探索一次。",
        ),
    ):
        return
    again = _call(v, fn, "count_dependencies(loss.grad_fn)", root)
    if again is not None:
        v.require(isinstance(again, dict) and dict(again) == first, _again_message())


def _by_sequence_number(order: list) -> bool:
    """Whether `order` is the nodes sorted by sequence number, newest first."""
    return order == sorted(order, key=lambda n: -n._sequence_nr())


def _second_order(v: Verdict, fn: Any, first: list, root: Any) -> None:
    """topological_order on the second graph, where sequence numbers are no topological order;
    then on the first graph again, which must give the same nodes."""
    loss, names = _graph_two()
    result = _call(v, fn, "topological_order(second_loss.grad_fn)", loss.grad_fn)
    if result is None:
        return
    order = list(result)
    want = set(_engine_counts(loss))
    if not v.require(not _stale(set(first), order, want), _stale_message("the list")):
        return
    inner = [n for n in order if n in want and not hasattr(n, "variable")]  # no AccumulateGrad
    if not v.require(
        not (len(set(inner)) > 1 and _by_sequence_number(inner)),
        say(
            "on a second graph your order is the sequence-number order, and there it is not a "
            "topological one: the view's node (AsStridedBackward0) is made, and numbered, when "
            "its history is read, after the exp that sends it a gradient. Derive the order "
            "from next_functions alone.",
            "在第二个计算图上，你的顺序就是序号顺序，而在那里它并不是拓扑序：视图的节点"
            "（AsStridedBackward0）是在读取它的历史时才创建、编号的，比向它发送梯度的 exp "
            "还晚。请只根据 next_functions 推出顺序。",
        ),
    ):
        return
    if set(order) != want or len(order) != len(want) or order[0] is not loss.grad_fn:
        v.require(
            False,
            say(
                f"on a second graph the list should hold its {len(want)} nodes once each, the "
                f"root first; got {len(order)} entries.",
                f"在第二个计算图上，列表应当恰好包含它的 {len(want)} 个节点、各一次，且根节点"
                f"排在最前；你得到的有 {len(order)} 项。",
            ),
        )
        return
    position = {n: i for i, n in enumerate(order)}
    for node in order:
        for nxt, _ in node.next_functions:
            if nxt is not None and position[nxt] < position[node]:
                sender, receiver = _name(names, node), _name(names, nxt)
                v.require(
                    False,
                    say(
                        f"on a second graph {receiver} comes before {sender}, which sends it "
                        "a gradient.",
                        f"在第二个计算图上，{receiver} 排在了向它发送梯度的 {sender} 前面。",
                    ),
                )
                return
    again = _call(v, fn, "topological_order(loss.grad_fn)", root)
    if again is not None:
        try:
            same = set(again) == set(first) and len(list(again)) == len(first)
        except TypeError:
            same = False
        v.require(same, _again_message())


def check_topological_order(fn: Any) -> None:
    """`fn(root_node)` -> list of every node, each before all nodes it sends gradients to."""
    v = verdict("Topological order")
    if not v.answered(fn, "topological_order"):
        return _stop(v)
    if "_sequence_nr" in _used_names(fn):
        v.require(False, _sequence_message())
        return _stop(v)
    loss, names = _graph()
    result = _call(v, fn, "topological_order(loss.grad_fn)", loss.grad_fn)
    if result is None:
        return _stop(v)
    try:
        order = list(result)
    except TypeError:
        v.require(
            False,
            say(
                f"return a list of nodes, got {type(result).__name__}.",
                f"请返回一个由节点组成的列表，得到的却是 {type(result).__name__}。",
            ),
        )
        return _stop(v)
    if order and all(isinstance(n, str) for n in order):
        v.require(
            False,
            say(
                "the list holds strings; return the node objects themselves.",
                "列表里装的是字符串；请返回节点对象本身。",
            ),
        )
        return _stop(v)
    want = set(_engine_counts(loss))
    dupes = {_name(names, n) for n in order if order.count(n) > 1}
    if not v.require(
        not dupes,
        say(
            f"{', '.join(sorted(dupes))} appear more than once: keep a set of visited nodes.",
            f"{'、'.join(sorted(dupes))} 出现了不止一次：请用一个集合记下已访问过的节点。",
        ),
    ):
        return _stop(v)
    missing = [_name(names, n) for n in want if n not in order]
    if not v.require(
        not missing,
        say(f"missing nodes: {', '.join(missing)}.", f"缺少节点：{'、'.join(missing)}。"),
    ):
        return _stop(v)
    extra = [_name(names, n) for n in order if n not in want]
    if not v.require(
        not extra,
        say(
            f"{', '.join(extra)} are not nodes of this graph.",
            f"{'、'.join(extra)} 不是这个计算图里的节点。",
        ),
    ):
        return _stop(v)
    root = _name(names, loss.grad_fn)
    if not v.require(
        order[0] is loss.grad_fn,
        say(
            f"the root ({root}) must come first; you start with {_name(names, order[0])}.",
            f"根节点（{root}）必须排在最前面；你的列表却从 {_name(names, order[0])} 开始。",
        ),
    ):
        return _stop(v)
    position = {n: i for i, n in enumerate(order)}
    for node in order:
        for nxt, _ in node.next_functions:
            if nxt is not None and position[nxt] < position[node]:
                sender, receiver = _name(names, node), _name(names, nxt)
                v.require(
                    False,
                    say(
                        f"{receiver} comes before {sender}, but {sender} sends it a gradient: it "
                        "must run first. The order in which a search first meets the nodes (a "
                        "plain pre-order DFS, or BFS) is not enough; use a post-order DFS "
                        "reversed, or Kahn's algorithm with the dependency counts.",
                        f"{receiver} 排在了 {sender} 前面，但 {sender} 要向它发送梯度：{sender} "
                        "必须先运行。搜索第一次遇到各节点的顺序（普通的 DFS 先序或 BFS）是不够的；"
                        "请用反转后的 DFS 后序，或者用 Kahn 算法配合依赖计数。",
                    ),
                )
                return _stop(v)
    _second_order(v, fn, order, loss.grad_fn)
    v.done(
        say(
            "every node comes before the nodes it feeds, so its gradient is complete when it runs.",
            "每个节点都排在它所馈送的节点之前，所以它运行时，它的梯度已经完整了。",
        )
    )
