"""Lessons 01-05: the checks see the method, not only the numbers (issue 23).

Each lazy way to the right numbers gets its own message, in English and in Chinese: a literal or
a hand formula (01, 03), a pass made up to give the number (01), a ready-made walker or a
backward pass instead of a walk (02), finite differences with or without an unrelated backward
pass and the library's own Jacobian (04), the whole batch through `model.forward(X)` with its
loss shared out over n backward passes (05). Correct answers written in other ways still pass.
Lessons 01 and 03 read what the witness saw (a lesson's kernel starts it in its first cell; here
a fixture does).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from labkit import (
    learner_progress,
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    witness,
)
from labkit.calls import calls_to
from method_support import _fails, _passes, _said

import minigrad as mg

pytestmark = pytest.mark.usefixtures("witness_on")

# --- 01: the 14 must come from a backward pass from f into x.grad ------------------------------


def _x():
    return mg.tensor(2.0, requires_grad=True)


def _cheat_01(kind: str):
    x = _x()
    if kind == "literal":
        return 14.0, x
    if kind == "tensor":
        return mg.tensor(14.0), x
    if kind == "difference quotient":
        f = lambda v: 3 * v**2 + 2 * v  # noqa: E731
        return (f(2.001) - f(1.999)) / 0.002, x
    if kind == "formula":
        return 6 * x + 2, x
    if kind == "assigned":
        x.grad = mg.tensor(14.0)
        return x.grad, x
    if kind == "made-up pass":
        (14 * x).backward()
        return x.grad, x
    if kind == "seeded leaf":
        x.backward(mg.tensor(14.0))
        return x.grad, x
    raise AssertionError(kind)


CHEATS_01 = {
    "literal": ("no backward pass produced it", "不是反向传播算出来的"),
    "difference quotient": ("difference quotient", "用差商算出来"),
    "tensor": ("A tensor made from the number", "用这个数新建一个张量"),
    "formula": ("derivative worked out by\nhand", "手推出来的导数"),
    "assigned": ("assigned by hand", "手动赋值"),
    "made-up pass": ("started from a tensor worth 28", "值为 28 的张量"),
    "seeded leaf": ("started from a tensor worth 2,", "值为 2 的张量"),
}


@pytest.mark.parametrize("kind", sorted(CHEATS_01))
def test_01_each_way_around_the_backward_pass_has_its_message(capsys, lang, kind):
    answer, x = _cheat_01(kind)
    en, zh = CHEATS_01[kind]
    out = _said(capsys, lesson01.check_first_gradient, answer, x)
    _fails(out.replace("by\nhand", "by hand"), en.replace("\n", " "), zh, lang)


def _right_01(kind: str):
    x = _x()
    if kind == "other order":
        (2 * x + 3 * x * x).backward()
        return x.grad, x
    if kind == "item":
        (3 * x**2 + 2 * x).backward()
        return x.grad.item(), x
    if kind == "clone":
        (3 * x**2 + 2 * x).sum().backward()
        return x.grad.clone(), x
    if kind == "autograd.grad":
        return mg.autograd.grad(3 * x**2 + 2 * x, x)[0], x
    if kind == "x not passed":  # the check finds the leaf whose .grad it was handed
        (3 * x**2 + 2 * x).backward()
        return x.grad, None
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["other order", "item", "clone", "autograd.grad", "x not passed"])
def test_01_right_answers_written_differently_pass(capsys, kind):
    answer, x = _right_01(kind)
    _passes(_said(capsys, lesson01.check_first_gradient, answer, x))


def test_01_a_demo_says_so_offers_no_hint_and_records_nothing(capsys, lang, monkeypatch):
    recorded = []
    monkeypatch.setattr(learner_progress, "record", recorded.append)
    out = _said(capsys, lesson01.check_first_gradient, mg.tensor(16.0), demo=True)
    assert out.startswith("演示（不是你的答案）" if lang == "zh" else "Demo, not your answer")
    assert "hint()" not in out and "✗" not in out and not recorded


# --- 02: the walk must be the learner's own ------------------------------------------------------


def _own_walk(t):
    seen, names = set(), []

    def visit(node):
        if node is None or node in seen:
            return
        seen.add(node)
        names.append(node.name())
        for child, _ in node.next_functions:
            visit(child)

    visit(t.grad_fn)
    return names


def _bfs_by_id(t):
    from collections import deque

    queue, seen, names = deque([t.grad_fn]), set(), []
    while queue:
        node = queue.popleft()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        queue.extend(n for n, _ in node.next_functions)
    return names


@pytest.mark.parametrize("walker", [_own_walk, _bfs_by_id])
def test_02_walkers_written_differently_pass(capsys, walker):
    _passes(_said(capsys, lesson02.check_node_names, walker))


def _through_backward(t):
    if t.grad_fn is None:
        return []
    with mg.autograd.record_steps() as steps:
        t.backward(mg.ones_like(t), retain_graph=True)
    return [r["node"].name() for r in steps if r["kind"] == "node_start"]


def _explorer_walk(t):
    from widgets.walk import GraphBuilder

    graph = GraphBuilder().add_roots([t])
    return [n for n in getattr(graph, "nodes", [])]


@pytest.mark.parametrize(
    ("walker", "en", "zh"),
    [
        (lesson02.reference_node_names, "a walker that already exists", "现成的遍历函数"),
        (lambda t: list(lesson02.reference_node_names(t)), "reference_node_names", "现成的"),
        (_explorer_walk, "widgets.walk.GraphBuilder", "现成的遍历函数"),
        (_through_backward, "runs a backward pass", "运行了一次反向传播"),
    ],
)
def test_02_borrowed_walks_and_backward_passes_have_their_messages(capsys, lang, walker, en, zh):
    _fails(_said(capsys, lesson02.check_node_names, walker), en, zh, lang)


def test_02_the_spy_puts_back_a_profiler_that_was_there():
    seen = []

    def profiler(frame, event, arg):
        seen.append(event)

    sys.setprofile(profiler)
    try:
        with calls_to({"walk": _own_walk}) as called:
            _own_walk(mg.tensor([1.0], requires_grad=True) * 2)
        assert sys.getprofile() is profiler and called == ["walk"] and seen
    finally:
        sys.setprofile(None)


# --- 03: dy/dh must be kept from the pass, and predictions are not read off ----------------------


def _graph(retain: bool = False):
    x = mg.tensor([0.0, 0.5, 1.0], requires_grad=True)
    h = x.exp()
    if retain:
        h.retain_grad()
    return x, h, (h * h).sum()


def _cheat_03(kind: str):
    x, h, y = _graph()
    if kind == "detached formula after backward":
        y.backward()
        return 2 * h.detach(), h, x
    if kind == "numpy after backward":
        y.backward()
        return 2 * np.exp([0.0, 0.5, 1.0]), h, x
    if kind == "no backward at all":
        return 2 * h.detach(), h, x
    if kind == "retain_grad too late":
        y.backward()
        h.retain_grad()
        return h.grad, h, x
    raise AssertionError(kind)


CHEATS_03 = {
    "detached formula after backward": ("nothing kept its gradient", "没有任何东西在那里留下"),
    "numpy after backward": ("formula of your own in numpy", "用 numpy 写的公式"),
    "no backward at all": ("no backward pass reached h", "没有任何反向传播到达过 h"),
    "retain_grad too late": ("after the backward pass", "在反向传播之后才调用"),
}


@pytest.mark.parametrize("kind", sorted(CHEATS_03))
def test_03_numbers_not_kept_from_the_pass_have_their_messages(capsys, lang, kind):
    en, zh = CHEATS_03[kind]
    _fails(_said(capsys, lesson03.check_hidden_grad, *_cheat_03(kind)), en, zh, lang)


def _right_03(kind: str):
    x, h, y = _graph(retain=kind in ("retain_grad", "clone"))
    if kind == "retain_grad":
        y.backward()
        return h.grad, h, x
    if kind == "clone":
        y.backward()
        return h.grad.clone(), h, x
    if kind == "autograd.grad":
        return mg.autograd.grad(y, h)[0], h, x
    if kind == "tensor hook":
        kept = []
        h.register_hook(kept.append)
        y.backward()
        return kept[0], h, x
    if kind == "inputs=":
        y.backward(inputs=[h])
        return h.grad, h, x
    raise AssertionError(kind)


@pytest.mark.parametrize(
    "kind", ["retain_grad", "clone", "autograd.grad", "tensor hook", "inputs="]
)
def test_03_every_way_of_keeping_dy_dh_from_the_pass_passes(capsys, kind):
    _passes(_said(capsys, lesson03.check_hidden_grad, *_right_03(kind)))


RIGHT_LEAVES = {"w": True, "k": True, "p": True, "q": False, "r": True, "s": True}


class _Shell:
    def __init__(self, history):
        self.user_ns = {"In": history}


def test_03_predictions_read_off_the_tensors_have_their_message(capsys, lang, monkeypatch):
    import IPython

    ran = 'is_leaf = {n: t.is_leaf for n, t in zip("wkpqrs", [w, k, p, q, r, s])}'
    shell = _Shell(["", ran, "lesson03.check_leaf_predictions(is_leaf)"])
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    out = _said(capsys, lesson03.check_leaf_predictions, RIGHT_LEAVES)
    _fails(out, "reads .is_leaf (or .grad_fn) off the tensors", "直接读出 .is_leaf", lang)
    typed = (
        "# w.is_leaf? no grad_fn, so True\n"
        'is_leaf = {"w": True, "k": True, "p": True, "q": False, "r": True, "s": True}'
    )
    shell.user_ns["In"] = ["", ran, typed, "lesson03.check_leaf_predictions(is_leaf)"]
    _passes(_said(capsys, lesson03.check_leaf_predictions, RIGHT_LEAVES))


# --- 04: one backward pass through f per row ---------------------------------------------------


def _columns(f, x, eps=1e-3, central=False):
    cols = []
    for j in range(len(x)):
        up, down = x.detach().clone(), x.detach().clone()
        up[j] += eps
        down[j] -= eps if central else 0.0
        step = 2 * eps if central else eps
        cols.append((f(up).detach().numpy() - f(down).detach().numpy()) / step)
    return np.stack(cols, 1)


def fd_and_an_unrelated_pass(f, x):
    x.sum().backward()
    return _columns(f, x)


def fd_and_one_pass_through_f(f, x):
    f(x).sum().backward()
    return _columns(f, x)


def central_fd_and_a_pass_per_row(f, x):
    y = f(x)
    for i in range(len(y)):
        y[i].backward(retain_graph=True)  # the right count, thrown away
    return _columns(f, x, central=True)


CHEATS_04 = [
    (fd_and_an_unrelated_pass, "none went through the output of f", "没有一次经过 f 的输出"),
    (fd_and_one_pass_through_f, "only close to the Jacobian", "只是接近雅可比矩阵"),
    (lambda f, x: _columns(f, x, central=True), "no backward pass ran", "没有运行任何反向传播"),
    (central_fd_and_a_pass_per_row, "what finite differences give", "是有限差分给出的"),
    (
        lambda f, x: mg.autograd.functional.jacobian(f, x),
        "mg.autograd.functional.jacobian",
        "替你算出",
    ),
    (lambda f, x: mg.func.jacrev(f)(x), "mg.func.jacrev", "替你算出雅可比矩阵"),
    (lambda f, x: mg.func.jacfwd(f)(x), "mg.func.jacfwd", "替你算出雅可比矩阵"),
]


@pytest.mark.parametrize(("answer", "en", "zh"), CHEATS_04)
def test_04_finite_differences_and_ready_made_jacobians_have_their_messages(
    capsys, lang, answer, en, zh
):
    _fails(_said(capsys, lesson04.check_jacobian, answer), en, zh, lang)


def rows_by_grad(f, x):
    y = f(x)
    eye = mg.eye(len(y))
    return mg.stack([mg.autograd.grad(y, x, eye[i], retain_graph=True)[0] for i in range(len(y))])


def rows_by_fresh_forward(f, x):
    rows = []
    for i in range(len(f(x))):
        x.grad = None
        f(x)[i].backward()
        rows.append(x.grad.clone())
    return rows


def rows_batched(f, x):
    y = f(x)
    return mg.autograd.grad(y, x, mg.eye(len(y)), is_grads_batched=True)[0]


def rows_by_vjp(f, x):
    n = len(f(x))
    return [mg.autograd.functional.vjp(f, x, mg.eye(n)[i])[1].tolist() for i in range(n)]


@pytest.mark.parametrize("answer", [rows_by_grad, rows_by_fresh_forward, rows_batched, rows_by_vjp])
def test_04_jacobians_from_backward_passes_written_differently_pass(capsys, answer):
    _passes(_said(capsys, lesson04.check_jacobian, answer))


def test_04_the_custom_backward_is_not_the_numerical_slope():
    p = lesson04.ROUNDED_POINT
    x = mg.tensor(p.tolist(), requires_grad=True)
    want = rows_by_grad(lesson04._rounded_f, x).numpy()
    assert np.allclose(want, lesson04._rounded_jacobian(p))
    numeric = _columns(lesson04._rounded_f, x, eps=1e-3)
    assert np.allclose(numeric, lesson04._rounded_slopes(p), rtol=1e-2, atol=1e-2)
    assert not np.allclose(want, lesson04._rounded_slopes(p), atol=0.1)


# --- 05: each backward pass goes back through one micro-batch's forward pass ------------------


def _mse(model, X, Y):
    return mg.nn.functional.mse_loss(model(X), Y)


def forward_whole_then_share(model, X, Y, n_micro):  # the cheat of issue 23
    model.zero_grad()
    loss = mg.nn.functional.mse_loss(model.forward(X), Y)
    for _ in range(n_micro):
        (loss / n_micro).backward(retain_graph=True)


def hooks_cleared(model, X, Y, n_micro):  # a forward hook would have missed this one
    model._forward_pre_hooks.clear()
    forward_whole_then_share(model, X, Y, n_micro)


def one_pass_and_padding(model, X, Y, n_micro):
    model.zero_grad()
    total = sum(_mse(model, xb, yb) / n_micro for xb, yb in zip(X.chunk(n_micro), Y.chunk(n_micro)))
    total.backward()
    for _ in range(n_micro - 1):
        (model.weight * 0).sum().backward()


CHEATS_05 = [
    (
        forward_whole_then_share,
        "went through the model in one forward pass (12 rows)",
        "整个批次在一次前向计算中通过了模型",
    ),
    (
        hooks_cleared,
        "went through the model in one forward pass (12 rows)",
        "分摊到 3 次反向传播上",
    ),
    (
        one_pass_and_padding,
        "backward pass 1 went back through the model's forward on [4, 4, 4]",
        "对 [4, 4, 4] 行的前向计算",
    ),
]


@pytest.mark.parametrize(("answer", "en", "zh"), CHEATS_05)
def test_05_whole_batch_forwards_and_padding_passes_have_their_messages(
    capsys, lang, answer, en, zh
):
    _fails(_said(capsys, lesson05.check_accumulated_grads, answer), en, zh, lang)


def padding_only(model, X, Y, n_micro):
    model.zero_grad()
    size = len(X) // n_micro
    for i in range(n_micro):
        part = slice(i * size, (i + 1) * size)
        (_mse(model, X[part], Y[part]) / n_micro).backward(retain_graph=True)
    (model.bias * 0).sum().backward()


def test_05_a_pass_through_no_forward_is_named(capsys, lang):
    out = _said(capsys, lesson05.check_accumulated_grads, padding_only)
    _fails(out, "ran 4 backward passes", "运行了 4 次反向传播", lang)


def interleaved(model, X, Y, n_micro):
    model.zero_grad()
    for i in range(n_micro):
        (_mse(model, X[i::n_micro], Y[i::n_micro]) / n_micro).backward()


def by_hand(model, X, Y, n_micro):
    model.zero_grad()
    for xb, yb in zip(X.split(len(X) // n_micro), Y.split(len(Y) // n_micro)):
        out = xb @ model.weight.T + model.bias
        (((out - yb) ** 2).mean() / n_micro).backward()


def summed_by_hand(model, X, Y, n_micro):
    params = list(model.parameters())
    for p in params:
        p.grad = None
    for xb, yb in zip(X.chunk(n_micro), Y.chunk(n_micro)):
        grads = mg.autograd.grad(_mse(model, xb, yb) / n_micro, params)
        for p, g in zip(params, grads):
            p.grad = g if p.grad is None else p.grad + g


@pytest.mark.parametrize("answer", [interleaved, by_hand, summed_by_hand])
def test_05_micro_batches_written_differently_pass(capsys, answer):
    _passes(_said(capsys, lesson05.check_accumulated_grads, answer))


def test_05_demos_say_so_and_offer_no_hint(capsys, lang):
    out = _said(capsys, lesson05.check_accumulated_grads, forward_whole_then_share, demo=True)
    assert out.startswith("演示（不是你的答案）" if lang == "zh" else "Demo, not your answer")
    assert "hint()" not in out


def rows_then_forward_differences(f, x):
    y = f(x)
    for i in range(len(y)):
        y[i].backward(retain_graph=True)
    return _columns(f, x)


def test_04_one_sided_differences_on_the_custom_backward_are_named(capsys, lang, monkeypatch):
    only_rounded = [case for case in lesson04._cases() if case[1] is lesson04._rounded_f]
    monkeypatch.setattr(lesson04, "_cases", lambda: only_rounded)
    out = _said(capsys, lesson04.check_jacobian, rows_then_forward_differences)
    _fails(out, "what finite differences give", "是有限差分给出的", lang)


def copies_the_reference(model, X, Y, n_micro):
    grads = lesson05.reference_grads()
    model.weight.grad = mg.tensor(grads[:3].reshape(1, 3).tolist())
    model.bias.grad = mg.tensor(grads[3:].tolist())


def test_05_the_checks_own_reference_is_named(capsys, lang):
    out = _said(capsys, lesson05.check_accumulated_grads, copies_the_reference)
    _fails(out, "labkit.lesson05.reference_grads, the check's own", "检查函数自己的参考实现", lang)


# --- the witness: on in a lesson's kernel, off (and gone) in a test process ---------------------


def test_the_witness_starts_only_inside_ipython_and_leaves_no_listener(monkeypatch):
    import types

    from minigrad.core.observe import LISTENERS

    witness.stop()
    fake = types.SimpleNamespace(get_ipython=lambda: None)
    monkeypatch.setitem(sys.modules, "IPython", fake)
    witness.start_in_kernel()
    assert not witness.running()
    fake.get_ipython = lambda: object()  # a shell: a notebook's kernel
    witness.start_in_kernel()
    assert witness.running()
    witness.stop()
    assert not witness.running() and all(
        getattr(f, "__module__", "") != witness.__name__ for f in LISTENERS
    )
    with witness.watching():
        x = _x()
        (x * x).backward()
        assert witness.passes()[-1].wrote(x)
    assert not witness.running() and not witness.passes()


# --- the lessons around the checks ---------------------------------------------------------------

NB = Path(__file__).resolve().parents[2] / "notebooks"
LESSONS = ["01", "02", "03", "04", "05"]
NOT_ANSWERED_IN_TEXT = {("05", "w.grad")}  # the output alone answers it; the text goes on


def _notebooks():
    for number in LESSONS:
        for folder in (NB, NB / "zh"):
            yield number, next(folder.glob(f"{number}_*.ipynb"))


@pytest.mark.parametrize(("number", "path"), list(_notebooks()), ids=lambda v: str(v)[-30:])
def test_first_cell_imports_solution_and_demos_say_so(number, path):
    import nbformat

    cells = nbformat.read(path, as_version=4).cells
    code = [c for c in cells if c.cell_type == "code"]
    assert re.search(rf"from labkit import .*\bhint, lesson{number}, solution\b", code[0].source)
    for i, cell in enumerate(cells):
        calls = re.findall(rf"lesson{number}\.check_\w+\(", cell.source)
        after_solution = i and "solution" in cells[i - 1].metadata.get("tags", [])
        if cell.cell_type == "code" and calls and not after_solution:
            assert "demo=True" in cell.source, (path.name, i, cell.source)


@pytest.mark.parametrize(("number", "path"), list(_notebooks()), ids=lambda v: str(v)[-30:])
def test_predictions_are_answered_behind_a_check_your_prediction_fold(number, path):
    """The text right under a "predict, then run" cell must not give the answer away."""
    import nbformat

    cells = nbformat.read(path, as_version=4).cells
    prompt = "**先预测，再运行：**" if "/zh/" in str(path) else "**Predict, then run:**"
    fold = "<details><summary>核对你的预测" if "/zh/" in str(path) else "<details><summary>Check"
    for i, cell in enumerate(cells):
        if cell.cell_type != "markdown" or prompt not in cell.source:
            continue
        after = cell.source.split(prompt, 1)[1]
        if any(n == number and key in after for n, key in NOT_ANSWERED_IN_TEXT):
            continue
        j = i + 1
        while cells[j].cell_type == "code":
            j += 1
        assert j > i + 1 and cells[j].source.startswith(fold), (path.name, i, cells[j].source[:80])


def test_04_what_the_lesson_says_of_inputs_and_autograd_grad_holds_in_torch():
    """A non-leaf listed in inputs= gets .grad (and retains_grad); autograd.grad leaves the
    leaves' .grad alone but still fills a retained non-leaf's: in PyTorch as in minigrad."""
    torch = pytest.importorskip("torch")
    for lib in (torch, mg):
        a = lib.tensor(1.0, requires_grad=True)
        b = lib.tensor(2.0, requires_grad=True)
        h = a * 3
        (h * b).backward(inputs=[h])
        assert h.grad.item() == 2.0 and h.retains_grad and a.grad is None and b.grad is None
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 2
        h.retain_grad()
        lib.autograd.grad((h * h).sum(), x)
        assert x.grad is None and h.grad.tolist() == [4.0, 8.0]


def test_01_a_right_number_beside_a_wrong_x_grad_is_named(capsys, lang):
    x = _x()
    (x**2).backward()  # another function: x.grad = 4
    out = _said(capsys, lesson01.check_first_gradient, 14.0, x)
    _fails(out, "x.grad holds 4.0: your `answer` did not come from", "x.grad 里是 4.0", lang)
