"""Holes a red team found in the checks of lessons 09, 12, 13, 14, 15 and 16 (issue 23), each
closed with its own message in English and in Chinese; the correct answers written differently
keep passing.

09: a tensor hook records one pass's gradient, not the accumulated `.grad` (the check's second
backward runs without zero_grad). 12: the lesson's helpers reached under another name or through
`globals()` are seen by their code (cells compile to their own file names), and graphlib or
networkx doing the sorting is named. 13: a copy of the answer key is recognised. 14: minigrad's
own sum-to-shape code, reached however, is watched by code object. 15: the total must be what
went through the learner's pack (the check hands it one tensor of its own) on a model that saves
int64 indices and a bool mask. 16: mg.func's and mg.autograd.functional's transforms are named.
"""

from __future__ import annotations

import graphlib
import math
from collections import deque

import numpy as np
import pytest
from labkit import language, lesson09, lesson12, lesson13, lesson14, lesson15, lesson16
from test_chinese_lessons import chinese_only

import minigrad as mg
from minigrad.autograd import functional as F


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


def both(said, check, answer, en: tuple[str, ...], zh: tuple[str, ...], quoted=()) -> None:
    """The answer fails with the English words, and (language switched) with the Chinese ones."""
    out = said(check, answer)
    assert failed_with(out, *en), out
    language.use("zh")
    try:
        out = said(check, answer)
    finally:
        language.use("en")
    assert failed_with(out, *zh), out
    chinese_only(out, *quoted)


# --- 09: the monitor reads the accumulated .grad ------------------------------------------------


def _tensor_hooks(model, norms):
    handles = []
    for name, p in model.named_parameters():
        norms.setdefault(name, [])
        handles.append(p.register_hook(lambda g, name=name: norms[name].append(g.norm().item())))
    return handles


def _post_accumulate(norm):
    def watch(model, norms):
        handles = []
        for name, p in model.named_parameters():
            norms.setdefault(name, [])
            hook = lambda t, name=name: norms[name].append(norm(t))  # noqa: E731
            handles.append(p.register_post_accumulate_grad_hook(hook))
        return handles

    return watch


def _tensor_hook_plus_grad(model, norms):
    """A tensor hook adding what `.grad` already holds: the accumulated gradient, by hand."""
    handles = []
    for name, p in model.named_parameters():
        norms.setdefault(name, [])

        def hook(g, p=p, name=name):
            total = g if p.grad is None else p.grad + g
            norms[name].append(total.norm().item())

        handles.append(p.register_hook(hook))
    return handles


def test_09_a_tensor_hook_monitor_is_named(said):
    both(
        said,
        lesson09.check_watch_gradients,
        _tensor_hooks,
        (
            "without zero_grad",
            "tensor hook (`register_hook`)",
            "register_post_accumulate_grad_hook",
        ),
        ("zero_grad", "张量钩子（`register_hook`）", "register_post_accumulate_grad_hook"),
    )


def test_09_a_tensor_hook_monitor_gets_one_message_for_all_parameters(said):
    out = said(lesson09.check_watch_gradients, _tensor_hooks)
    assert out.count("without zero_grad") == 1, out


@pytest.mark.parametrize(
    "answer",
    [
        _post_accumulate(lambda t: t.grad.norm().item()),
        _post_accumulate(lambda t: float(np.linalg.norm(t.grad.numpy()))),
        _post_accumulate(lambda t: float((t.grad * t.grad).sum().sqrt())),
        _tensor_hook_plus_grad,
    ],
    ids=["solution", "numpy norm", "sqrt of sum", "tensor hook plus .grad"],
)
def test_09_monitors_of_the_accumulated_grad_pass(said, answer):
    assert passed(said(lesson09.check_watch_gradients, answer))


# --- 12: helpers from another cell, whatever their name; sorting libraries ---------------------

LESSON_CELL = """
def seq(node):
    return node._sequence_nr()


def walk(root):
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack.extend(n for n, _ in node.next_functions)
    return seen


def dependencies(root):
    counts = {root: 0}
    for node in walk(root):
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] = counts.get(nxt, 0) + 1
    return counts
"""

LEARNER_CELL = """
deps = dependencies


def by_alias(root):
    return deps(root)


def by_globals(root):
    return globals()["depen" + "dencies"](root)


def by_its_walk(root):
    counts = {root: 0}
    for node in walk(root):
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] = counts.get(nxt, 0) + 1
    return counts


def own(root):
    def explore(node, counts, seen):  # the learner's own helper, in the learner's own cell
        seen.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] = counts.get(nxt, 0) + 1
                if nxt not in seen:
                    explore(nxt, counts, seen)
        return counts

    return explore(root, {root: 0}, set())


def kahn_on_dependencies(root):
    counts, order, ready = dependencies(root), [], [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] -= 1
                if counts[nxt] == 0:
                    ready.append(nxt)
    return order
"""

HELPER_CELL = """
def count_edges(root):
    counts, seen, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] = counts.get(nxt, 0) + 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return counts
"""

USES_HELPER_CELL = """
def with_a_helper_from_another_cell(root):
    return count_edges(root)
"""


@pytest.fixture(scope="module", params=["ipykernel", "terminal"])
def cells(request) -> dict:
    """The lesson's cell and the learner's, compiled under the file names IPython gives cells:
    `/tmp/ipykernel_<pid>/<hash>.py` in a kernel, `<ipython-input-N-...>` in a terminal."""
    names = {
        "ipykernel": [f"/tmp/ipykernel_4242/{n}.py" for n in (1111, 2222, 3333, 4444)],
        "terminal": [f"<ipython-input-{n}-abcdef>" for n in range(1, 5)],
    }[request.param]
    namespace: dict = {"__name__": "__main__"}
    for source, name in zip(
        (LESSON_CELL, LEARNER_CELL, HELPER_CELL, USES_HELPER_CELL), names, strict=True
    ):
        exec(compile(source, name, "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", ["by_alias", "by_globals", "by_its_walk"])
def test_12_the_lessons_helpers_under_another_name_are_seen(said, cells, name):
    both(
        said,
        lesson12.check_count_dependencies,
        cells[name],
        ("lesson's `dependencies`/`walk`", "whatever name"),
        ("`dependencies`/`walk`", "不管是通过什么名字"),
    )


def test_12_a_helper_from_another_cell_is_named(said, cells):
    both(
        said,
        lesson12.check_count_dependencies,
        cells["with_a_helper_from_another_cell"],
        ("`count_edges`", "another cell", "same cell as count_dependencies"),
        ("`count_edges`", "另一个单元格"),
    )


def test_12_the_learners_own_helper_in_the_same_cell_passes(said, cells):
    assert passed(said(lesson12.check_count_dependencies, cells["own"]))


def test_12_kahn_on_the_lessons_counts_still_passes(said, cells):
    """The order is the exercise; the counts come from section 2 (the hint's 'your counts')."""
    assert passed(said(lesson12.check_topological_order, cells["kahn_on_dependencies"]))


def _edges(root):
    seen, stack, edges = {root}, [root], []
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            edges.append((node, nxt))
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return edges


def _by_graphlib(root):
    sorter = graphlib.TopologicalSorter()
    sorter.add(root)
    for node, nxt in _edges(root):
        sorter.add(nxt, node)  # nxt after node
    return list(sorter.static_order())


def _by_networkx(root):
    nx = pytest.importorskip("networkx")
    graph = nx.DiGraph()
    graph.add_node(root)
    graph.add_edges_from(_edges(root))
    return list(nx.topological_sort(graph))


@pytest.mark.parametrize(
    ("answer", "library"),
    [(_by_graphlib, "graphlib.TopologicalSorter"), (_by_networkx, "networkx.topological_sort")],
)
def test_12_a_library_sorting_is_named(said, answer, library):
    both(
        said,
        lesson12.check_topological_order,
        answer,
        (f"lets {library} do the sorting", "write the order yourself"),
        (f"让 {library} 替你排了序", "自己根据 next_functions 写出顺序"),
    )


def _kahn_with_a_deque(root):
    counts, seen, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            counts[nxt] = counts.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    order, ready = [], deque([root])
    while ready:
        node = ready.popleft()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] -= 1
                if counts[nxt] == 0:
                    ready.append(nxt)
    return order


def test_12_kahn_with_a_deque_passes(said):
    assert passed(said(lesson12.check_topological_order, _kahn_with_a_deque))


# --- 13: a copy of the answer key ------------------------------------------------------------

RIGHT = {"a": False, "b": True, "c": True, "d": False, "e": True}


@pytest.mark.parametrize(
    "copy",
    [
        lambda key: dict(key),
        lambda key: {**key},
        lambda key: key.copy(),
        lambda key: {k: v for k, v in key.items()},
        lambda key: {k: key[k] for k in "abcde"},
    ],
    ids=["dict()", "unpacked", "copy()", "comprehension", "looked up"],
)
def test_13_a_copy_of_the_answer_key_is_named(said, copy):
    both(
        said,
        lesson13.check_predictions,
        copy(lesson13.RAISES),
        ("copied from the check's own answer key", "run it and see"),
        ("抄来的", "答案表"),
        quoted=("lesson13.RAISES", "dict()", "copy()"),
    )


def test_13_the_answer_key_still_reads_like_a_dict(said):
    assert lesson13.RAISES == RIGHT and repr(lesson13.RAISES) == repr(RIGHT)
    assert passed(said(lesson13.check_predictions, dict(RIGHT)))


# --- 14: minigrad's own sum to shape, however it is reached ------------------------------------

from minigrad.core.shapes import reduced_dims  # noqa: E402
from minigrad.ops import formula  # noqa: E402
from minigrad.ops.shape import sum_to_size as imported_sum_to_size  # noqa: E402

BOUND_BEFORE = mg.Tensor.sum_to_size


def _with_reduced_dims(g, shape):
    dims = reduced_dims(tuple(g.shape), tuple(shape))
    return g.sum(dim=dims, keepdim=True).reshape(shape) if dims else g.reshape(shape)


@pytest.mark.parametrize(
    ("cheat", "name"),
    [
        (lambda g, s: imported_sum_to_size(g, s), "Tensor.sum_to_size"),
        (lambda g, s: BOUND_BEFORE(g, s), "Tensor.sum_to_size"),
        (lambda g, s: formula.sum_to(g, tuple(s)), "minigrad.ops.formula.sum_to"),
        (_with_reduced_dims, "minigrad.core.shapes.reduced_dims"),
    ],
    ids=["imported", "bound before the check", "formula.sum_to", "reduced_dims"],
)
def test_14_minigrads_own_sum_to_shape_is_named(said, cheat, name):
    both(
        said,
        lesson14.check_sum_to_shape,
        cheat,
        (f"called `{name}`", "whatever name it is reached by", "finding the dims to sum yourself"),
        (f"`{name}`", "不管通过什么名字调用"),
    )


def _dims_by_hand(g, shape):
    lead = g.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1
    )
    return g.sum(dim=dims, keepdim=True).reshape(shape) if dims else g.reshape(shape)


def test_14_dims_found_by_hand_pass(said):
    assert passed(said(lesson14.check_sum_to_shape, _dims_by_hand))


# --- 15: the total is what went through the learner's pack ------------------------------------


def _graph_walk(itemsize):
    def count(model, x):
        with mg.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            out = model(x)
        total, seen, stack = 0, set(), [out.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or node in seen:
                continue
            seen.add(node)
            for name, shape, _ in node.saved_tensor_slots():
                total += itemsize(node, name, shape, x)
            stack.extend(n for n, _ in node.next_functions)
        return out, total

    return count


def _saved_dtype(node, name, shape, x):
    t = getattr(node, "_saved_" + name)
    return t.numel() * t.dtype.itemsize


def _inputs_dtype(node, name, shape, x):
    return math.prod(shape) * x.dtype.itemsize


def _counter(size, keep=lambda t: t.detach()):
    def count(model, x):
        total = 0

        def pack(t):
            nonlocal total
            total += size(t, x)
            return keep(t)

        with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            out = model(x)
        return out, total

    return count


def _listed(model, x):
    kept = []

    def pack(t):
        kept.append(t.detach())
        return kept[-1]

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return out, sum(t.numel() * t.dtype.itemsize for t in kept)


def _core_push_hooks(model, x):
    from minigrad.core.saved import pop_hooks, push_hooks

    total = [0]

    def pack(t):
        total[0] += t.numel() * t.dtype.itemsize
        return t.detach()

    push_hooks(pack, lambda t: t)
    try:
        out = model(x)
    finally:
        pop_hooks()
    return out, total[0]


def test_15_bytes_read_off_the_graph_are_named(said):
    both(
        said,
        lesson15.check_count_saved_bytes,
        _graph_walk(_saved_dtype),
        ("did not come from your pack hook", "bool mask", "add `t.numel() * t.dtype.itemsize`"),
        ("不是由你的 pack 钩子算出来的", "布尔"),
    )


def test_15_a_graph_walk_with_the_inputs_dtype_is_turned_down(said):
    both(
        said,
        lesson15.check_count_saved_bytes,
        _graph_walk(_inputs_dtype),
        ("int64 indices", "bool mask", "in `pack`"),
        ("int64", "布尔掩码", "`pack`"),
    )


def test_15_one_dtype_for_every_tensor_is_named(said):
    both(
        said,
        lesson15.check_count_saved_bytes,
        _counter(lambda t, x: t.numel() * x.dtype.itemsize),
        ("8 bytes for every element", "its own dtype"),
        ("每个元素都按 8 字节算了", "dtype"),
    )


def test_15_numpy_on_a_tensor_that_requires_grad_is_explained(said):
    both(
        said,
        lesson15.check_count_saved_bytes,
        _counter(lambda t, x: t.numpy().nbytes),
        ("refuses a tensor that requires grad", "t.detach().numpy().nbytes"),
        ("不接受需要梯度的张量", "t.detach().numpy().nbytes"),
        quoted=(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        ),
    )


def test_15_returning_the_tensor_itself_says_the_count_is_right_and_why_not(said):
    both(
        said,
        lesson15.check_count_saved_bytes,
        _counter(lambda t, x: t.numel() * t.dtype.itemsize, keep=lambda t: t),
        ("your count is right", "loop", "section 2's rule", "`t.detach()`"),
        ("你的计数是对的", "环", "第 2 节", "`t.detach()`"),
    )


@pytest.mark.parametrize(
    "answer",
    [
        _counter(lambda t, x: t.numel() * t.dtype.itemsize),
        _counter(lambda t, x: t.detach().numpy().nbytes),
        _listed,
        _core_push_hooks,
    ],
    ids=["solution", "detach().numpy().nbytes", "listed, summed after", "core push_hooks"],
)
def test_15_counts_made_in_pack_pass(said, answer):
    assert passed(said(lesson15.check_count_saved_bytes, answer))


# --- 16: mg.func and mg.autograd.functional are named ----------------------------------------


def _hvp_func_vjp_of_grad(f, x, v):
    _, pullback = mg.func.vjp(mg.func.grad(f), x.detach())
    return pullback(v)[0]


def _hvp_functional_vjp_of_grad(f, x, v):
    return F.vjp(lambda z: mg.autograd.grad(f(z), z, create_graph=True)[0], x.detach(), v)[1]


def _jacobian_rows_by_vjp(f, x):
    y = f(x)
    return mg.stack([F.vjp(f, x.detach(), mg.eye(y.numel())[i])[1] for i in range(y.numel())])


@pytest.mark.parametrize(
    ("check", "cheat", "names"),
    [
        (lesson16.check_hvp, _hvp_func_vjp_of_grad, ("`mg.func.grad`, `mg.func.vjp`",)),
        (lesson16.check_hvp, _hvp_functional_vjp_of_grad, ("`mg.autograd.functional.vjp`",)),
        (lesson16.check_jacobian, lambda f, x: mg.func.jacrev(f)(x), ("`mg.func.jacrev`",)),
        (lesson16.check_jacobian, _jacobian_rows_by_vjp, ("`mg.autograd.functional.vjp`",)),
    ],
    ids=["Hv: func.vjp of func.grad", "Hv: functional.vjp of a grad", "J: jacrev", "J: vjp rows"],
)
def test_16_ready_made_transforms_are_named(said, check, cheat, names):
    zh = tuple(n.replace("`, `", "`、`") for n in names)
    both(said, check, cheat, ("ready-made", *names), ("现成的函数", *zh))


def test_16_the_library_inside_a_transform_is_not_named(said):
    """func.grad runs grad_and_value inside: only what the learner called is named."""
    out = said(lesson16.check_hvp, _hvp_func_vjp_of_grad)
    assert "grad_and_value" not in out


@pytest.mark.parametrize(
    ("cheat", "name"),
    [
        (lambda f, x, v: mg.func.jvp(f, (x,), (v,)), "`mg.func.jvp`"),
        (
            lambda f, x, v: (lambda y, fn: (y, fn(v)))(*mg.func.linearize(f, x)),
            "`mg.func.linearize`",
        ),
        (lambda f, x, v: F.jvp(f, x, v), "`mg.autograd.functional.jvp`"),
    ],
    ids=["func.jvp", "linearize", "functional.jvp"],
)
def test_16_jvp_names_the_library_function(said, cheat, name):
    both(said, lesson16.check_jvp, cheat, ("the library did the work", name), ("库函数", name))


def test_16_a_whole_hessian_from_func_names_it(said):
    out = said(lesson16.check_hvp, lambda f, x, v: mg.func.hessian(f)(x) @ v)
    assert failed_with(out, "whole Hessian", "(through `mg.func.hessian`)"), out
