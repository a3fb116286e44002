"""Lesson 02 (computation graphs): checking the learner's graph walker."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .calls import calls_where
from .demo import verdict_or_demo
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
    """Graphs chosen so each typical mistake shows: a shared node, constants, no graph at all.
    Drawn afresh for each check (the operations, the constants and the values), so a walker
    cannot answer from the names an earlier check printed."""
    import random

    import minigrad as mg

    pick = random.Random()
    x = mg.tensor(
        [pick.choice([1.0, 1.5, 2.0, 3.0]), -pick.choice([0.5, 1.0, 2.5])], requires_grad=True
    )
    w = mg.tensor([pick.choice([0.5, 2.0, 3.0]), pick.choice([-1.0, 4.0])], requires_grad=True)
    op, combine = pick.choice(
        [
            ("*", lambda a, b: a * b),
            ("+", lambda a, b: a + b),
            ("-", lambda a, b: a - b),
            ("/", lambda a, b: a / b),
        ]
    )
    c = pick.choice([2, 3, 5])
    make_h, h_text = pick.choice(
        [
            (lambda t: t * c, f"x * {c}"),
            (lambda t: t + c, f"x + {c}"),
            (lambda t: t - c, f"x - {c}"),
        ]
    )
    h = make_h(x)
    use, use_text = pick.choice(
        [
            (lambda t: t * t + t, "h * h + h"),
            (lambda t: t + t * t, "h + h * h"),
            (lambda t: t * t - t, "h * h - h"),
            (lambda t: t * (t + t), "h * (h + h)"),
        ]
    )
    k = pick.choice([1, 2, 4])
    fn = pick.choice(["exp", "sin", "tanh", "sigmoid"])
    return [
        (f"(x {op} w).sum()", combine(x, w).sum()),
        (
            say(
                f"h = {h_text}; ({use_text}).sum()  (h is used three times)",
                f"h = {h_text}; ({use_text}).sum()（h 被用了三次）",
            ),
            use(h).sum(),
        ),
        (
            say(
                f"(x + {k}).{fn}().sum()  (the {k} is a constant)",
                f"(x + {k}).{fn}().sum()（其中的 {k} 是常量）",
            ),
            getattr(x + k, fn)().sum(),
        ),
        (
            say(
                f"mg.tensor([1.0]) * {c}  (nothing requires grad)",
                f"mg.tensor([1.0]) * {c}（没有任何张量需要梯度）",
            ),
            mg.tensor([1.0]) * c,
        ),
    ]


def _ready_made() -> dict[str, Callable[..., Any]]:
    """Walkers that already exist: calling one skips the exercise."""
    from widgets.walk import GraphBuilder

    return {
        "labkit.lesson02.reference_node_names": reference_node_names,
        "widgets.walk.GraphBuilder": GraphBuilder.add_roots,
    }


def _borrowed_calls() -> Any:
    """Watch for the ready-made walkers: by code object, by a copy of their code (the reference
    walker's source run again with exec), and any function of the engine's own file (its
    dependency count walks the graph too)."""
    import minigrad.autograd.engine as engine

    known = {}
    for name, fn in _ready_made().items():
        code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
        if code is not None:
            known[code] = name
    copies = {(code.co_name, code.co_code): name for code, name in known.items()}
    engine_file = engine.__file__

    def name_of(code: Any) -> str | None:
        if code in known:
            return known[code]
        if (code.co_name, code.co_code) in copies:
            return copies[(code.co_name, code.co_code)]
        if code.co_filename == engine_file and "<" not in code.co_qualname:
            return ".".join(("mg.autograd.engine", code.co_qualname))
        return None

    return calls_where(name_of)


def check_node_names(node_names: Callable[[Any], Any], *, demo: bool = False) -> None:
    """Run the learner's `node_names` on graphs that each catch one typical mistake.

    The walk must be the learner's own: a call of the check's reference walker or of the
    explorer's, or a backward pass run to see which nodes the engine visits, is named as such.
    """
    import minigrad as mg

    v = verdict_or_demo("node_names", demo)
    if not v.answered(node_names, "`node_names`"):
        v.done("")
        return
    for label, tensor in _cases():
        expected = reference_node_names(tensor)
        try:
            with _borrowed_calls() as borrowed, mg.autograd.record_steps() as steps:
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
        if borrowed.switched_off:
            v.require(False, borrowed.switched_off_message())
            break
        ran_backward = "backward_start" in steps.kinds()
        engine_only = all(name.startswith("mg.autograd.engine.") for name in borrowed)
        if borrowed and not (ran_backward and engine_only):  # (a pass runs the engine too)
            v.require(
                False,
                say(
                    f"your function calls {borrowed[0]}, a walker that already exists: the "
                    "exercise is to write the walk yourself, from t.grad_fn along "
                    "next_functions.",
                    f"你的函数调用了 {borrowed[0]}，这是现成的遍历函数：这道题要你自己写遍历，"
                    "从 t.grad_fn 出发，沿着 next_functions 走。",
                ),
            )
            break
        if ran_backward:
            v.require(
                False,
                say(
                    "your function runs a backward pass to see which nodes the engine visits: "
                    "that spends the graph (and adds into .grad) to answer a question the "
                    "graph answers by itself. Walk next_functions instead, without running it.",
                    "你的函数运行了一次反向传播，来看引擎访问了哪些节点：这样会用掉计算图"
                    "（还会往 .grad 里累加），而这个问题只看计算图本身就能回答。请沿着 "
                    "next_functions 遍历，不要运行它。",
                ),
            )
            break
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
