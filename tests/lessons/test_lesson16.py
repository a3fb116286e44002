"""Lesson 16 (forward mode and the functional API): the pass counter, both checks, the frame.

Each check is pinned down with the answers a learner would write: the lesson's method passes;
the costlier direction, a fresh first pass per column, the library doing the work, a Hessian
built in full, a formula and the usual slips each get their own message, never a traceback.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
from labkit import hints, lesson16
from labkit.lesson16 import backward_passes, check_hvp, check_jacobian, check_jvp, forward_passes

import minigrad as mg

NOTEBOOK = (
    Path(__file__).resolve().parents[2] / "notebooks" / "16_forward_mode_and_functional.ipynb"
)


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    """A failed check that names the problem (every word present) and offers no traceback."""
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


# --- the pass counter --------------------------------------------------------------------------


def _square_sum(x):
    return (x**3).sum()


def _runs(lib, name):
    """A call of lib.autograd.functional.<name> on the lesson's small functions."""
    fn = getattr(lib.autograd.functional, name)
    x, v = lib.tensor([1.0, 2.0, 3.0]), lib.tensor([1.0, 0.0, 0.0])
    if name == "vjp":
        return lambda: fn(lambda t: t[:2] * t[1:], x, lib.tensor([1.0, 0.0]))
    if name == "jvp":
        return lambda: fn(lambda t: t[:2] * t[1:], x, v)
    if name == "hessian":
        return lambda: fn(_square_sum, x)
    return lambda: fn(_square_sum, x, v)


@pytest.mark.parametrize(
    ("name", "minigrad_passes", "torch_passes"),
    # minigrad's jvp runs forward mode (no backward pass) and its hvp forward over reverse (one);
    # PyTorch's use the double-backward trick
    [("vjp", 1, 1), ("jvp", 0, 2), ("hvp", 1, 3), ("vhp", 2, 2), ("hessian", 4, 4)],
)
def test_backward_passes_counts_both_libraries(name, minigrad_passes, torch_passes):
    assert backward_passes(mg, _runs(mg, name)) == minigrad_passes
    assert backward_passes(torch, _runs(torch, name)) == torch_passes


def test_backward_passes_counts_tensor_backward_and_restores_torch():
    real_grad, real_backward = torch.autograd.grad, torch.autograd.backward
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    assert backward_passes(torch, lambda: (x * x).sum().backward()) == 1

    def fails():
        torch.autograd.grad((x * x).sum(), x)
        raise ValueError("inside the block")

    with pytest.raises(ValueError):
        backward_passes(torch, fails)
    assert torch.autograd.grad is real_grad and torch.autograd.backward is real_backward
    assert backward_passes(torch, lambda: torch.func.jvp(lambda t: t * 2, (x,), (x,))) == 0


# --- exercise 1: a Jacobian, the cheaper way ---------------------------------------------------


def _rows(f, x):
    y = f(x)
    onehots = mg.eye(y.numel())
    rows = [
        mg.autograd.grad(y, x, grad_outputs=onehots[i], retain_graph=True)[0]
        for i in range(y.numel())
    ]
    return mg.stack(rows)


def _columns(f, x, *, create_graph=True, u_grad=True, retain=True, stack=True):
    y = f(x)
    n = x.numel()
    u = mg.zeros_like(y, requires_grad=u_grad)
    (g,) = mg.autograd.grad(y, x, grad_outputs=u, create_graph=create_graph)
    onehots = mg.eye(n)
    columns = [
        mg.autograd.grad(g, u, grad_outputs=onehots[j], retain_graph=retain)[0] for j in range(n)
    ]
    return mg.stack(columns, dim=1) if stack else columns


def _cheaper(columns=_columns):
    def jacobian(f, x):
        m, n = f(x).numel(), x.numel()
        return _rows(f, x) if m <= n + 1 else columns(f, x)

    return jacobian


def _by_jvp(f, x):
    onehots = mg.eye(x.numel())
    cols = [mg.autograd.functional.jvp(f, x, onehots[j])[1] for j in range(x.numel())]
    return mg.stack(cols, dim=1)


def _by_dual_passes(f, x):
    fw = mg.autograd.forward_ad
    cols = []
    for j in range(x.numel()):
        with fw.dual_level():
            cols.append(fw.unpack_dual(f(fw.make_dual(x, mg.eye(x.numel())[j]))).tangent)
    return mg.stack(cols, dim=1)


def _trick_per_column(f, x):
    """The double-backward trick with its first pass run again for every column."""
    onehots = mg.eye(x.numel())
    cols = []
    for j in range(x.numel()):
        y = f(x)
        u = mg.zeros_like(y, requires_grad=True)
        (g,) = mg.autograd.grad(y, x, grad_outputs=u, create_graph=True)
        cols.append(mg.autograd.grad(g, u, grad_outputs=onehots[j])[0])
    return mg.stack(cols, dim=1)


def _no_passes(f, x):
    return np.zeros((f(x).numel(), x.numel()))


def _accumulated_rows(f, x):
    y = f(x)
    rows = []
    for i in range(y.numel()):
        y.backward(mg.eye(y.numel())[i], retain_graph=True)
        rows.append(x.grad.clone())
    return mg.stack(rows)


def _ones_vjp(f, x):
    return mg.autograd.grad(f(x).sum(), x)[0]


def _fixed_sizes(f, x):
    y = f(x)
    return mg.stack([mg.autograd.grad(y[i], x, retain_graph=True)[0] for i in range(3)])


def test_jacobian_the_lesson_answer_passes(said):
    assert passed(said(check_jacobian, _cheaper()))


def test_jacobian_stub_and_non_answers(said):
    def stub(f, x): ...

    assert failed_with(said(check_jacobian, stub), "still `...`", "Stuck? Run `hint()`")
    assert failed_with(said(check_jacobian, ...), "still `...`")
    assert failed_with(said(check_jacobian, 3), "should be a function")
    assert failed_with(said(check_jacobian, lambda f, x: "J"), "returned a str")


def test_jacobian_the_costlier_direction_is_named(said):
    always_rows = said(check_jacobian, _rows)
    assert failed_with(always_rows, "tall f", "row by row", "Here columns are cheaper")
    always_columns = said(check_jacobian, _columns)
    assert failed_with(always_columns, "wide f", "column by column", "Here rows are cheaper")


def test_jacobian_a_first_pass_per_column_is_caught(said):
    out = said(check_jacobian, _cheaper(_trick_per_column))
    assert failed_with(out, "two per column", "run it once", "3 passes")


@pytest.mark.parametrize("columns", [_by_jvp, _by_dual_passes])
def test_jacobian_columns_by_forward_mode_are_not_the_method_asked(said, columns):
    out = said(check_jacobian, _cheaper(columns))
    assert failed_with(out, "came from forward mode", "double-backward trick", "section 3")


def test_jacobian_from_the_library_or_a_formula(said):
    library = said(check_jacobian, lambda f, x: mg.autograd.functional.jacobian(f, x))
    assert failed_with(library, "mg.autograd.functional.jacobian did the work")
    as_numpy = said(check_jacobian, lambda f, x: _cheaper()(f, x).numpy())
    assert passed(as_numpy)  # the passes ran; an array answer is fine

    assert failed_with(said(check_jacobian, _no_passes), "no backward pass ran")


def test_jacobian_wrong_matrices_are_diagnosed(said):
    assert failed_with(said(check_jacobian, lambda f, x: _cheaper()(f, x).T), "transpose")
    listed = said(check_jacobian, _cheaper(lambda f, x: _columns(f, x, stack=False)))
    assert failed_with(listed, "transpose", "dim=1")

    assert failed_with(said(check_jacobian, _accumulated_rows), "accumulates")
    assert failed_with(said(check_jacobian, _ones_vjp), "v = all ones")


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"retain": False}, ["retain_graph=True"]),
        ({"create_graph": False}, ["create_graph=True"]),
        ({"u_grad": False}, ["requires_grad=True"]),
    ],
)
def test_jacobian_errors_get_explained(said, options, words):
    out = said(check_jacobian, _cheaper(lambda f, x: _columns(f, x, **options)))
    assert failed_with(out, "raised RuntimeError", *words)


def test_jacobian_fixed_sizes_are_explained(said):
    assert failed_with(said(check_jacobian, _fixed_sizes), "IndexError", "instead of fixing them")


# --- exercise 2: a Hessian-vector product ------------------------------------------------------


def _hvp(f, x, v):
    (g,) = mg.autograd.grad(f(x), x, create_graph=True)
    return mg.autograd.grad(g, x, grad_outputs=v)[0]


def _hessian_by_rows(f, x, v):
    (g,) = mg.autograd.grad(f(x), x, create_graph=True)
    rows = [mg.autograd.grad(g[i], x, retain_graph=True)[0] for i in range(x.numel())]
    return mg.stack(rows) @ v


def _gradient(f, x, v):
    return mg.autograd.grad(f(x), x)[0]


def _row_sums(f, x, v):
    (g,) = mg.autograd.grad(f(x), x, create_graph=True)
    return mg.autograd.grad(g.sum(), x)[0]


def _accumulated_hvp(f, x, v):
    f(x).backward(create_graph=True)
    (x.grad * v).sum().backward()
    return x.grad


def test_hvp_the_lesson_answer_passes(said):
    assert passed(said(check_hvp, _hvp))

    def weighted_sum(f, x, v):  # the same two passes, written with (g * v).sum()
        (g,) = mg.autograd.grad(f(x), x, create_graph=True)
        return mg.autograd.grad((g * v).sum(), x)[0]

    assert passed(said(check_hvp, weighted_sum))


def test_hvp_stub_and_non_answers(said):
    def stub(f, x, v): ...

    assert failed_with(said(check_hvp, stub), "still `...`", "Stuck? Run `hint()`")
    assert failed_with(said(check_hvp, ...), "still `...`")
    assert failed_with(said(check_hvp, lambda f, x, v: mg.zeros(3)), "no backward pass ran")


def test_hvp_a_full_hessian_is_turned_down(said):
    library = said(check_hvp, lambda f, x, v: mg.autograd.functional.hessian(f, x) @ v)
    assert failed_with(library, "whole Hessian", "with the library")

    assert failed_with(said(check_hvp, _hessian_by_rows), "9 backward passes for 8 inputs")


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_hvp_from_the_library_is_turned_down(said, name):
    looked_up = said(check_hvp, lambda f, x, v: getattr(mg.autograd.functional, name)(f, x, v)[1])
    assert failed_with(looked_up, f"mg.autograd.functional.{name} did the work")
    bound = getattr(mg.autograd.functional, name)  # bound before the check: still seen
    assert failed_with(said(check_hvp, lambda f, x, v: bound(f, x, v)[1]), "did the work")


def test_hvp_by_forward_over_reverse_is_not_the_method_asked(said):
    """func.jvp of func.grad: the right Hv in one dual pass and one backward pass."""
    out = said(check_hvp, lambda f, x, v: mg.func.jvp(mg.func.grad(f), (x,), (v,))[1])
    assert failed_with(out, "came from forward mode", "reverse over reverse")


def test_a_jacobian_bound_before_the_check_is_still_seen(said):
    from minigrad.autograd.functional import hessian, jacobian

    assert failed_with(said(check_jacobian, jacobian), "functional.jacobian did the work")
    out = said(check_hvp, lambda f, x, v: hessian(f, x) @ v)
    assert failed_with(out, "whole Hessian", "with the library")


def test_the_spy_is_removed_after_a_check(said):
    real = mg.autograd.functional._grad
    said(check_hvp, lambda f, x, v: 1 / 0)
    assert mg.autograd.functional._grad is real


def test_hvp_wrong_vectors_are_diagnosed(said):
    assert failed_with(said(check_hvp, _gradient), "that is the gradient g")
    assert failed_with(
        said(check_hvp, lambda f, x, v: _gradient(f, x, v) * v), "entry by entry", "second"
    )
    assert failed_with(said(check_hvp, _row_sums), "H·1")
    with warnings.catch_warnings():  # backward(create_graph=True) warns of a reference cycle
        warnings.simplefilter("ignore")
        assert failed_with(said(check_hvp, _accumulated_hvp), "g + Hv")

    def doubled(f, x, v):
        return 2 * _hvp(f, x, v)

    assert failed_with(said(check_hvp, doubled), "entries differ")


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (lambda f, x, v: mg.autograd.grad(mg.autograd.grad(f(x), x)[0], x, v)[0], ["create_graph"]),
        (
            lambda f, x, v: mg.autograd.grad(mg.autograd.grad(f(x), x, create_graph=True)[0], x)[0],
            ["grad_outputs"],
        ),
        (lambda f, x, v: _hvp(f, x, v[:3]), ["Mismatch in shape"]),
        (lambda f, x, v: mg.tensor(_hvp(f, x, v).numpy().tolist() + [0.0]), ["shape"]),
    ],
)
def test_hvp_errors_and_shapes_get_explained(said, answer, words):
    out = said(check_hvp, answer)
    assert failed_with(out, *words), out


# --- the forward-mode exercise: Jv in one dual pass --------------------------------------------

FW = mg.autograd.forward_ad


def _dual_jvp(f, x, v):
    with FW.dual_level():
        primal, tangent = FW.unpack_dual(f(FW.make_dual(x, v)))
    return primal, tangent


def _trick_jvp(f, x, v):
    x = x.detach().requires_grad_()
    y = f(x)
    u = mg.zeros_like(y, requires_grad=True)
    (g,) = mg.autograd.grad(y, x, grad_outputs=u, create_graph=True)
    return y.detach(), mg.autograd.grad(g, u, grad_outputs=v)[0]


def _finite_differences(f, x, v):
    return f(x), (f(x + 1e-3 * v) - f(x - 1e-3 * v)) / 2e-3


def test_forward_passes_counts_dual_levels():
    x, v = mg.tensor([1.0, 2.0]), mg.tensor([1.0, 0.0])
    assert forward_passes(lambda: _dual_jvp(lambda t: t.sin(), x, v)) == 1
    assert forward_passes(lambda: mg.func.jacfwd(lambda t: t.sin())(x)) == 2
    assert forward_passes(lambda: mg.func.jacrev(lambda t: t.sin())(x)) == 0


def test_jvp_the_lesson_answer_passes(said):
    out = said(check_jvp, _dual_jvp)
    assert passed(out) and "one forward pass on a dual input" in out


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (lambda f, x, v: mg.func.jvp(f, (x,), (v,)), ("the library did the work",)),
        (lambda f, x, v: mg.autograd.functional.jvp(f, x, v), ("the library did the work",)),
        (lambda f, x, v: (f(x), mg.func.jacfwd(f)(x) @ v), ("the library did the work",)),
        (_trick_jvp, ("2 backward pass", "reverse mode")),
        (_finite_differences, ("is what finite differences give", "straight-through")),
        (lambda f, x, v: (_dual_jvp(f, x, v), _dual_jvp(f, x, v))[1], ("f ran 2 times",)),
        (lambda f, x, v: (_dual_jvp(f, x, v)[1],) * 2, ("first value is not f(x)",)),
        (lambda f, x, v: _dual_jvp(f, x, v)[1], ("returned Tensor", "the pair")),
    ],
)
def test_jvp_other_methods_and_slips_get_their_message(said, answer, words):
    assert failed_with(said(check_jvp, answer), *words)


def test_jvp_stub(said):
    def stub(f, x, v): ...

    assert failed_with(said(check_jvp, stub), "still `...`", "Stuck? Run `hint()`")
    assert failed_with(said(check_jvp, 3), "should be a function")


# --- hints and the lesson frame ----------------------------------------------------------------


def test_every_exercise_has_hints_for_lesson_17():
    for exercise in (lesson16.JVP, lesson16.JACOBIAN, lesson16.HVP):
        assert 1 <= len(hints.HINTS[exercise]) <= 3
        assert hints.LESSON_OF[exercise] == "16"


def test_the_notebook_frame():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert nb.cells[0].source.startswith("# 16 · ")
    assert re.search(r"from labkit import hint, lesson16\b", code[0])
    assert "import minigrad as mg" in code[0] and "import torch" in code[0]
    reminders = [m for m in markdown if "`hint()`" in m]
    assert len(reminders) == 1 and "one at a time" in reminders[0]
    assert "## Exercise 1" in reminders[0]
    last = markdown[-1].splitlines()
    assert last[0] == "## Summary"
    assert (
        markdown[-1].count("Next: lesson 17 · **Capstone**") == 1
        and "explorer_demo.ipynb" in markdown[-1]
    )
    # each wrong answer the lesson shows is a demo (`demo=True`), right after the learner's check:
    # it is marked as a demo and never counts as (or looks like) the learner's own failure
    calls = re.findall(r"lesson16\.(check_\w+)\((.*)", "\n".join(code))
    assert [(name, "demo=True" in rest) for name, rest in calls] == [
        (name, demo) for name in ("check_jvp", "check_jacobian", "check_hvp") for demo in (0, 1)
    ]
