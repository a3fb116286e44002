"""Lessons 01-08: the holes a red team found in the method checks, each closed with its own
message in English and Chinese (issue 23): a watcher switched off (sys.setprofile(None)) or a
ready-made function run in a thread, passes made to give the number (01, 03), hand edits of .grad
after a pass (01, 05), copies of the check's own answers (02, 04, 06), a printed answer copied
(02, 04, 06), a seed worked out by hand (03, 05), a version counter moved by a write that changes
nothing (07), predictions read off by running (03, 08). Correct answers written differently pass.
"""

from __future__ import annotations

import inspect
import sys
import threading
from typing import Any

import numpy as np
import pytest
from labkit import (
    lesson01,
    lesson02,
    lesson03,
    lesson04,
    lesson05,
    lesson06,
    lesson07,
    lesson08,
)
from method_support import _fails, _passes, _said

import minigrad as mg

pytestmark = pytest.mark.usefixtures("witness_on")

SWITCHED = ("switches off the watcher", "会关掉本检查用来观察答案如何算出的监视器")


def _in_thread(fn):
    out: list[Any] = []
    t = threading.Thread(target=lambda: out.append(fn()))
    t.start()
    t.join()
    return out[0]


# --- 01 ------------------------------------------------------------------------------------------


def _x():
    return mg.tensor(2.0, requires_grad=True)


def _surrogate():
    x = _x()
    (14 * x - 12).backward()  # worth 16 at x = 2, slope 14, no x²
    return x


def _surrogate_with_a_dead_square():
    x = _x()
    (14 * x - 12 + 0 * x * x).backward()  # x * x is there, but carries nothing
    return x


def _assigned_after_dummy():
    x = _x()
    (x * 0 + 16 + 0 * x).backward()
    x.grad = mg.tensor(14.0)
    return x


def _data_added():
    x = _x()
    (16 + 0 * x).backward()
    x.grad.data += 14
    return x


def _add_():
    x = _x()
    (16 + 0 * x).backward()
    x.grad.add_(14)
    return x


@pytest.mark.parametrize(
    ("make", "en", "zh"),
    [
        (_surrogate, "never went through x²", "从没经过 x²"),
        (_surrogate_with_a_dead_square, "never went through x²", "从没经过 x²"),
        (_assigned_after_dummy, "changed by hand afterwards", "之后被手动改过"),
        (_data_added, "changed by hand afterwards", "之后被手动改过"),
        (_add_, "changed by hand afterwards", "之后被手动改过"),
    ],
)
def test_01_made_up_passes_and_hand_edits_of_x_grad_are_named(capsys, lang, make, en, zh):
    x = make()
    _fails(_said(capsys, lesson01.check_first_gradient, x.grad, x), en, zh, lang)


def test_01_the_answer_in_real_torch_is_told_to_use_minigrad(capsys, lang):
    torch = pytest.importorskip("torch")
    x = torch.tensor(2.0, requires_grad=True)
    (3 * x**2 + 2 * x).backward()
    out = _said(capsys, lesson01.check_first_gradient, x.grad, x)
    _fails(out, "PyTorch computed it", "PyTorch 的反向传播它们看不到", lang)
    assert "assigned by hand" not in out


@pytest.mark.parametrize("form", ["x*x", "x**2 float64", "x*(3x+2)", "pow"])
def test_01_squares_written_differently_pass(capsys, form):
    if form == "x**2 float64":
        x = mg.tensor(2.0, requires_grad=True, dtype=mg.float64)
        (2 * x + 3 * x**2).backward()
    else:
        x = _x()
        f = {
            "x*x": lambda: 3 * x * x + 2 * x,
            "x*(3x+2)": lambda: x * (3 * x + 2),
            "pow": lambda: 3 * x.pow(2) + 2 * x,
        }[form]()
        f.backward()
    _passes(_said(capsys, lesson01.check_first_gradient, x.grad, x))


# --- 02 ------------------------------------------------------------------------------------------


def _switched_walk(t):
    sys.setprofile(None)
    return lesson02.reference_node_names(t)


def _threaded_walk(t):
    return _in_thread(lambda: lesson02.reference_node_names(t))


def _engine_walk(t):
    from minigrad.autograd.engine import compute_dependencies

    if t.grad_fn is None:
        return []
    return [n.name() for n in compute_dependencies([t.grad_fn])[1]]


_copy: dict[str, Any] = {"Any": Any}
exec(inspect.getsource(lesson02.reference_node_names), _copy)  # noqa: S102 (the cheat itself)


@pytest.mark.parametrize(
    ("walker", "en", "zh"),
    [
        (_switched_walk, *SWITCHED),
        (_threaded_walk, "reference_node_names, a walker that already exists", "现成的遍历函数"),
        (_engine_walk, "mg.autograd.engine.compute_dependencies", "现成的遍历函数"),
        (_copy["reference_node_names"], "reference_node_names", "现成的遍历函数"),
    ],
)
def test_02_switched_off_threaded_engine_and_copied_walkers_are_named(capsys, lang, walker, en, zh):
    _fails(_said(capsys, lesson02.check_node_names, walker), en, zh, lang)


def test_02_the_graphs_are_drawn_afresh_so_printed_lists_cannot_be_looked_up():
    labels = {tuple(label for label, _ in lesson02._cases()) for _ in range(30)}
    assert len(labels) > 5
    for _ in range(10):
        for _, t in lesson02._cases():  # (the reference agrees with a walker of its own)
            names = [] if t.grad_fn is None else lesson02.reference_node_names(t)
            assert sorted(names) == names


# --- 03 ------------------------------------------------------------------------------------------


def _h():
    x = mg.tensor([0.0, 0.5, 1.0], requires_grad=True)
    return x, x.exp()


def _seeded():
    x, h = _h()
    h.retain_grad()
    h.backward(gradient=2 * h.detach())
    return h.grad, h, x


def _grad_of_h_by_h():
    x, h = _h()
    (g,) = mg.autograd.grad(h, h, grad_outputs=2 * h.detach())
    return g, h, x


def _linear_in_h():
    x, h = _h()
    h.retain_grad()
    (h * 2 * h.detach()).sum().backward()
    return h.grad, h, x


def _linear_with_a_dead_square():
    x, h = _h()
    h.retain_grad()
    (h * 2 * h.detach() + 0 * h * h).sum().backward()
    return h.grad, h, x


@pytest.mark.parametrize(
    ("make", "en", "zh"),
    [
        (_linear_with_a_dead_square, "never went through h * h", "从没经过 h * h"),
        (_seeded, "started at h itself", "从 h 本身开始"),
        (_grad_of_h_by_h, "started at h itself", "从 h 本身开始"),
        (_linear_in_h, "never went through h * h", "从没经过 h * h"),
    ],
)
def test_03_passes_seeded_or_made_linear_by_hand_are_named(capsys, lang, make, en, zh):
    _fails(_said(capsys, lesson03.check_hidden_grad, *make()), en, zh, lang)


def test_03_h_squared_with_pow_and_a_tensor_hook_pass(capsys):
    x, h = _h()
    h.retain_grad()
    (h**2).sum().backward()
    _passes(_said(capsys, lesson03.check_hidden_grad, h.grad, h, x))
    x, h = _h()
    got = []
    h.register_hook(got.append)
    (h * h).sum().backward()
    _passes(_said(capsys, lesson03.check_hidden_grad, got[0], h, x))


class _Shell:
    def __init__(self, history):
        self.user_ns = {"In": history}


RIGHT = {"w": True, "k": True, "p": True, "q": False, "r": True, "s": True}
CHECK_03 = "lesson03.check_leaf_predictions(is_leaf)"


@pytest.mark.parametrize(
    "cells",
    [
        ["is_leaf = {n: getattr(globals()[n], 'is_' + 'leaf') for n in 'wkpqrs'}"],
        ["facts = {n: globals()[n].is_leaf for n in 'wkpqrs'}", "is_leaf = facts"],
        ["is_leaf = dict(RIGHT)"],
    ],
)
def test_03_predictions_computed_in_any_cell_are_named(capsys, lang, monkeypatch, cells):
    import IPython

    shell = _Shell(["", *cells, CHECK_03])
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    _fails(
        _said(capsys, lesson03.check_leaf_predictions, RIGHT),
        "reads .is_leaf (or .grad_fn) off the tensors",
        "直接读出 .is_leaf",
        lang,
    )


@pytest.mark.parametrize(
    "cell",
    [
        'is_leaf = {"w": True, "k": True, "p": True, "q": False, "r": True, "s": True}\n'
        "print(q.is_leaf)",
        "is_leaf = dict(w=True, k=True, p=True, q=False, r=True, s=True)",
        'is_leaf = {"w": True, "k": True, "p": True, "q": False, "r": True, "s": True}\n'
        'is_leaf["q"] = False',
    ],
)
def test_03_typed_predictions_pass_even_beside_a_print(capsys, monkeypatch, cell):
    import IPython

    shell = _Shell(["", cell, CHECK_03])
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    _passes(_said(capsys, lesson03.check_leaf_predictions, RIGHT))


def test_03_wrong_predictions_are_counted_not_corrected(capsys, lang):
    wrong = {k: False for k in "wkpqrs"}
    out = _said(capsys, lesson03.check_leaf_predictions, wrong)
    _fails(out, "5 of your 6 predictions are not right", "6 个预测里有 5 个不对", lang)
    assert "is True, not" not in out and "是 True，不是" not in out


# --- 04 ------------------------------------------------------------------------------------------


def _fd(f, x, eps=1e-6):
    p = np.array(x.detach().tolist())
    cols = []
    for j in range(len(p)):
        e = np.zeros(len(p))
        e[j] = eps

        def at(q):
            return np.array(f(mg.tensor(q.tolist(), dtype=mg.float64)).tolist())

        cols.append((at(p + e) - at(p - e)) / (2 * eps))
    return np.array(cols).T


def fd_dummy_passes_and_the_formula_of_the_custom_case(f, x):
    y = f(x)
    for _ in range(len(y)):
        y.sum().backward(retain_graph=True)
    p = np.array(x.detach().tolist())
    if len(p) == 2 and abs(float(f(mg.tensor([0.3, 0.3])).tolist()[0]) - 0.075) < 1e-6:
        q0 = np.round(p[0] * 4) / 4  # (the custom f: its Jacobian by hand)
        return [[p[1], q0], [2 * p[0], 2.0]]
    return _fd(f, x)


def switched_jacobian(f, x):
    sys.setprofile(None)
    return mg.autograd.functional.jacobian(f, x)


def threaded_jacobian(f, x):
    return _in_thread(lambda: mg.autograd.functional.jacobian(f, x))


def rounded_by_the_check(f, x):
    y = f(x)
    for i in range(len(y)):
        mg.autograd.grad(y[i], x, retain_graph=True)
    p = np.array(x.detach().tolist())
    return lesson04._rounded_jacobian(p) if len(p) == 2 else _fd(f, x)


@pytest.mark.parametrize(
    ("answer", "en", "zh"),
    [
        (switched_jacobian, *SWITCHED),
        (threaded_jacobian, "mg.autograd.functional.jacobian", "mg.autograd.functional.jacobian"),
        (rounded_by_the_check, "labkit.lesson04._rounded_jacobian", "_rounded_jacobian"),
        (
            fd_dummy_passes_and_the_formula_of_the_custom_case,
            "not every row you returned is a gradient one of those passes produced",
            "你返回的行并不都是这些反向传播产生的梯度",
        ),
    ],
)
def test_04_switched_threaded_borrowed_and_rows_not_from_passes_are_named(
    capsys, lang, answer, en, zh
):
    _fails(_said(capsys, lesson04.check_jacobian, answer), en, zh, lang)


def test_04_the_custom_point_is_drawn_afresh_and_not_printed():
    points = {tuple(lesson04._cases()[2][2]) for _ in range(20)}
    assert len(points) > 10
    label, _, point, _ = lesson04._cases()[2]
    assert str(point[0])[:4] not in label
    for p in points:  # away from the rounding's jumps: the slopes there are 0
        assert abs(p[0] * 4 - round(p[0] * 4)) <= 0.3 + 1e-9
        assert abs(p[1] * 8 - round(p[1] * 8)) <= 0.3 + 1e-9


# --- 05 ------------------------------------------------------------------------------------------

mse = mg.nn.functional.mse_loss


def _micro(X, Y, n):
    s = len(X) // n
    return [(X[i * s : (i + 1) * s], Y[i * s : (i + 1) * s]) for i in range(n)]


def zero_passes_then_closed_form(model, X, Y, n):
    W, b = model.weight.detach().numpy(), model.bias.detach().numpy()
    r = X.numpy() @ W.T + b - Y.numpy()
    model.zero_grad()
    for xb, yb in _micro(X, Y, n):
        (mse(model(xb), yb) * 0).backward()
    model.weight.grad = mg.tensor((2 * r.T @ X.numpy() / len(X)).tolist())
    model.bias.grad = mg.tensor((2 * r.sum(0) / len(X)).tolist())


def hand_derived_seed(model, X, Y, n):
    W, b = model.weight.detach().numpy(), model.bias.detach().numpy()
    r = X.numpy() @ W.T + b - Y.numpy()
    model.zero_grad()
    s = len(X) // n
    for i, (xb, _) in enumerate(_micro(X, Y, n)):
        seed = mg.tensor((2 * r[i * s : (i + 1) * s] / len(X)).tolist())
        (model(xb) * seed).sum().backward()


def real_passes_then_overwritten(model, X, Y, n):
    model.zero_grad()
    for xb, yb in _micro(X, Y, n):
        (mse(model(xb), yb) / n).backward()
    with mg.no_grad():
        model.bias.grad.add_(1.0)
        model.bias.grad.sub_(1.0 - 1e-3)


def switched_reference(model, X, Y, n):
    sys.setprofile(None)
    model.zero_grad()
    for xb, yb in _micro(X, Y, n):
        (mse(model(xb), yb) / n).backward()


def threaded_reference(model, X, Y, n):
    grads = _in_thread(lesson05.reference_grads)
    model.zero_grad()
    for xb, yb in _micro(X, Y, n):
        (mse(model(xb), yb) * 0).backward()
    model.weight.grad = mg.tensor([grads[:3].tolist()])
    model.bias.grad = mg.tensor(grads[3:].tolist())


@pytest.mark.parametrize(
    ("answer", "en", "zh"),
    [
        (zero_passes_then_closed_form, "carried no gradient at all", "根本没有带回梯度"),
        (
            hand_derived_seed,
            "did not start from a micro-batch's loss",
            "不是从某个微批次的损失出发",
        ),
        (switched_reference, *SWITCHED),
        (threaded_reference, "labkit.lesson05.reference_grads", "参考实现"),
    ],
)
def test_05_typed_grads_hand_seeds_switched_and_threaded_are_named(capsys, lang, answer, en, zh):
    _fails(_said(capsys, lesson05.check_accumulated_grads, answer), en, zh, lang)


def test_05_grad_written_after_the_passes_is_named(capsys, lang, monkeypatch):
    full = lesson05.reference_grads()
    monkeypatch.setattr(lesson05, "reference_grads", lambda: full + np.r_[0, 0, 0, 1e-3])
    _fails(
        _said(capsys, lesson05.check_accumulated_grads, real_passes_then_overwritten),
        "does not hold what the backward passes added up",
        "不是各次反向传播累加出来的",
        lang,
    )


def chunk_sum_over_n(model, X, Y, n):
    for p in model.parameters():
        p.grad = None
    for xb, yb in zip(X.chunk(n), Y.chunk(n), strict=True):
        (mse(model(xb), yb, reduction="sum") / len(X)).backward()


def reversed_float64(model, X, Y, n):
    model.zero_grad()
    for xb, yb in reversed(_micro(X, Y, n)):
        (mse(model(xb).double(), yb.double()) / n).backward()


@pytest.mark.parametrize("answer", [chunk_sum_over_n, reversed_float64])
def test_05_right_micro_batches_still_pass(capsys, answer):
    _passes(_said(capsys, lesson05.check_accumulated_grads, answer))


# --- 06 ------------------------------------------------------------------------------------------


def switched_hvp(f, x):
    sys.setprofile(None)
    return mg.autograd.functional.hvp(lambda t: f(t).sum(), x, mg.ones_like(x))[1]


def threaded_hessian(f, x):
    return _in_thread(lambda: mg.autograd.functional.hessian(lambda t: f(t).sum(), x).diagonal())


def looked_up(f, x):
    lesson06._cases()
    (first,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    return mg.autograd.grad(first.sum(), x)[0]


def crafted_second_pass(f, x):
    (first,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    p, h = np.array(x.tolist()), 1e-4

    def slope(q):
        t = mg.tensor(q.tolist(), requires_grad=True, dtype=mg.float64)
        return np.array(mg.autograd.grad(f(t).sum(), t)[0].tolist())

    want = (slope(p + h) - slope(p - h)) / (2 * h)
    (sec,) = mg.autograd.grad((first * 0).sum() + (x * mg.tensor(want.tolist())).sum(), x)
    return sec


@pytest.mark.parametrize(
    ("answer", "en", "zh"),
    [
        (switched_hvp, *SWITCHED),
        (threaded_hessian, "mg.autograd.functional.hessian", "mg.autograd.functional.hessian"),
        (looked_up, "labkit.lesson06._cases", "labkit.lesson06._cases"),
        (crafted_second_pass, "does not come from the first derivative", "不是来自一阶导数"),
    ],
)
def test_06_switched_threaded_looked_up_and_crafted_passes_are_named(capsys, lang, answer, en, zh):
    _fails(_said(capsys, lesson06.check_second_derivative, answer), en, zh, lang)


def scalar_loop_on_fresh_leaves(f, x):
    out = []
    for value in x.tolist():
        xi = mg.tensor(float(value), requires_grad=True)
        (d1,) = mg.autograd.grad(f(xi), xi, create_graph=True)
        (d2,) = mg.autograd.grad(d1, xi)
        out.append(d2)
    return mg.stack(out)


def through_double(f, x):
    xd = x.double()
    (first,) = mg.autograd.grad(f(xd).sum(), xd, create_graph=True)
    return mg.autograd.grad(first.sum(), xd)[0]


@pytest.mark.parametrize("answer", [scalar_loop_on_fresh_leaves, through_double])
def test_06_second_derivatives_written_differently_pass(capsys, answer):
    _passes(_said(capsys, lesson06.check_second_derivative, answer))


def test_06_the_hidden_case_is_drawn_afresh_and_its_answer_never_printed(lang):
    points = {tuple(lesson06._cases()[2][2]) for _ in range(20)}
    assert len(points) > 10
    label, _, xs, first, second, hidden = lesson06._cases()[2]
    assert hidden and str(xs.tolist()) not in label
    said = lesson06._diagnose(np.zeros_like(xs), first, second, hidden)
    assert str(np.round(second, 4).tolist()) not in said


# --- 07 ------------------------------------------------------------------------------------------


def data_then_add_zero(params, lr):
    for p in params:
        p.data -= lr * p.grad
        with mg.no_grad():
            p.add_(0)


def numpy_then_mul_one(params, lr):
    for p in params:
        p.detach().numpy()[...] -= lr * p.grad.numpy()
        with mg.no_grad():
            p.mul_(1)


def switched_sgd(params, lr):
    sys.setprofile(None)
    mg.optim.SGD(params, lr=lr).step()


def threaded_sgd(params, lr):
    _in_thread(lambda: mg.optim.SGD(params, lr=lr).step())


def torch_copied_back(params, lr):
    torch = pytest.importorskip("torch")
    for p in params:
        tp = torch.tensor(p.tolist(), requires_grad=True)
        tp.grad = torch.tensor(p.grad.tolist())
        torch.optim.SGD([tp], lr=lr).step()
        with mg.no_grad():
            p.copy_(mg.tensor(tp.tolist()))


@pytest.mark.parametrize(
    ("answer", "en", "zh"),
    [
        (data_then_add_zero, "the counted write did not change anything", "什么都没改"),
        (numpy_then_mul_one, "the counted write did not change anything", "什么都没改"),
        (switched_sgd, *SWITCHED),
        (threaded_sgd, "mg.optim.SGD", "mg.optim.SGD"),
        (torch_copied_back, "your step ran PyTorch code (torch.optim", "运行了 PyTorch 的代码"),
    ],
)
def test_07_fake_counted_writes_switched_threaded_and_torch_are_named(capsys, lang, answer, en, zh):
    _fails(_said(capsys, lesson07.check_sgd_step, answer), en, zh, lang)


def detached_sub(params, lr):
    for p in params:
        p.detach().sub_(lr * p.grad)


def with_alpha(params, lr):
    with mg.no_grad():
        for p in params:
            p.sub_(p.grad, alpha=lr)


@pytest.mark.parametrize("answer", [detached_sub, with_alpha])
def test_07_real_counted_writes_pass(capsys, answer):
    _passes(_said(capsys, lesson07.check_sgd_step, answer))


def test_07_the_version_counter_is_put_back():
    from minigrad.core.tensor import Tensor

    before = Tensor._bump
    lesson07.check_sgd_step(data_then_add_zero)
    assert Tensor._bump is before


# --- 08 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("answer", [[1.9, 2.2, 3.7, 0.4], ["1", "2", "3", "0"], [True, 2, 3, 0]])
def test_08_versions_that_are_not_whole_numbers_are_refused(capsys, lang, answer):
    _fails(_said(capsys, lesson08.check_versions, answer), "whole numbers", "整数", lang)


RAN_08 = (
    "vs = []; t = mg.ones(4); t.add_(1); vs.append(t._version); t[0] = 7.0\n"
    "vs.append(t._version); v = t[1:]; v.zero_(); vs.append(t._version); t = t * 2\n"
    "vs.append(t._version)"
)


@pytest.mark.parametrize(
    "cells",
    [
        [RAN_08, "versions = vs"],
        ["versions = [t._version for t in ts]"],
        ["versions = []\nversions.append(1)"],
    ],
)
def test_08_versions_read_off_by_running_are_named(capsys, lang, monkeypatch, cells):
    import IPython

    shell = _Shell(["", *cells, "lesson08.check_versions(versions)"])
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    _fails(
        _said(capsys, lesson08.check_versions, [1, 2, 3, 0]),
        "was not typed in as predictions",
        "不是作为预测手写出来的",
        lang,
    )


@pytest.mark.parametrize(
    "cell", ["versions = [1, 2, 3, 0]", "versions = (1, 2, 3, 0)  # t._version"]
)
def test_08_typed_versions_pass(capsys, monkeypatch, cell):
    import IPython

    shell = _Shell(["", cell, "lesson08.check_versions(versions)"])
    monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
    _passes(_said(capsys, lesson08.check_versions, [1, 2, 3, 0]))
    _passes(_said(capsys, lesson08.check_versions, np.array([1, 2, 3, 0])))
