"""The exercise checks of lessons 01-07: the right answer passes, typical wrong ones get told why.

Each check prints "✓ ..." or "✗ ..." followed by specific problems; these tests pin down that a
learner's typical mistake gets the explanation written for it, not a generic "incorrect".
"""

from __future__ import annotations

import numpy as np
from labkit import lesson01, lesson02, lesson03, lesson04, lesson05, lesson06, lesson07, witness

import minigrad as mg


def passed(out: str) -> bool:
    return out.startswith("✓")  # a check's first line is its verdict


# --- 01 ---------------------------------------------------------------------------------------


def test_01_setup_check_reports_every_piece(said):
    out = said(lesson01.setup_check)
    assert "✓ minigrad" in out and "draws a tiny graph" in out and "All set" in out


def test_01_first_gradient(said):
    with witness.watching():  # (a lesson's kernel watches from its first cell on)
        x = mg.tensor(2.0, requires_grad=True)
        (3 * x**2 + 2 * x).backward()
        assert passed(said(lesson01.check_first_gradient, x.grad))
    assert "value of f(2)" in said(lesson01.check_first_gradient, mg.tensor(16.0))
    assert "backward twice" in said(lesson01.check_first_gradient, mg.tensor(28.0))
    assert "still `...`" in said(lesson01.check_first_gradient, ...)
    out = said(lesson01.check_first_gradient, mg.tensor(5.0))
    assert out.startswith("✗") and "6·x + 2 = 14" in out and "5.0" in out


# --- 02 ---------------------------------------------------------------------------------------


def _walk(t):
    seen, names = set(), []
    stack = [t.grad_fn] if t.grad_fn is not None else []
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            names.append(node.name())
            stack.extend(n for n, _ in node.next_functions if n is not None)
    return names


def test_02_node_names_right_answer(said):
    assert passed(said(lesson02.check_node_names, _walk))


def test_02_node_names_without_visited_set(said):
    def no_seen(t):
        names, stack = [], [t.grad_fn] if t.grad_fn is not None else []
        while stack:
            node = stack.pop()
            names.append(node.name())
            stack.extend(n for n, _ in node.next_functions if n is not None)
        return names

    out = said(lesson02.check_node_names, no_seen)
    assert out.startswith("✗") and "counted once" in out


def test_02_node_names_forgetting_none_and_no_graph(said):
    def no_none_check(t):
        names, stack = [], [t.grad_fn]
        seen = set()
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            names.append(node.name())
            stack.extend(n for n, _ in node.next_functions)
        return names

    out = said(lesson02.check_node_names, no_none_check)
    assert "skip the Nones" in out


def test_02_node_names_skipping_accumulate_grad(said):
    def no_leaves(t):
        return [n for n in _walk(t) if "AccumulateGrad" not in n]

    assert "AccumulateGrad nodes are missing" in said(lesson02.check_node_names, no_leaves)


def test_02_node_names_stub_returns_none(said):
    def stub(t): ...

    assert "returned None" in said(lesson02.check_node_names, stub)


# --- 03 ---------------------------------------------------------------------------------------

RIGHT_LEAVES = {"w": True, "k": True, "p": True, "q": False, "r": True, "s": True}


def test_03_leaf_predictions(said):
    assert passed(said(lesson03.check_leaf_predictions, RIGHT_LEAVES))
    out = said(lesson03.check_leaf_predictions, {**RIGHT_LEAVES, "p": False, "r": False})
    # (how many are wrong, not which: with two choices, which would give the answer away)
    assert "2 of your 6 predictions are not right" in out and "p.is_leaf is" not in out
    assert "did an input require grad" in out and "detach()" in out
    assert "give a prediction for s" in said(
        lesson03.check_leaf_predictions, {k: v for k, v in RIGHT_LEAVES.items() if k != "s"}
    )
    assert "True or False" in said(lesson03.check_leaf_predictions, {**RIGHT_LEAVES, "w": "yes"})


def _hidden():
    x = mg.tensor([0.0, 0.5, 1.0], requires_grad=True)
    h = x.exp()
    h.retain_grad()
    (h * h).sum().backward()
    return x, h


def test_03_hidden_grad(said):
    with witness.watching():
        _hidden_grad(said)


def _hidden_grad(said):
    x, h = _hidden()
    assert passed(said(lesson03.check_hidden_grad, h.grad, h, x))
    assert "retain_grad()" in said(lesson03.check_hidden_grad, None, h, x)
    assert "that is x.grad" in said(lesson03.check_hidden_grad, x.grad, h, x)
    assert "backward ran twice" in said(lesson03.check_hidden_grad, h.grad * 2, h, x)


# --- 04 ---------------------------------------------------------------------------------------


def _jacobian(f, x):
    y = f(x)
    rows = [mg.autograd.grad(y, x, mg.eye(len(y))[i], retain_graph=True)[0] for i in range(len(y))]
    return mg.stack(rows)


def _bent(change):
    """The right Jacobian, bent the way a typical mistake bends it (still from backward)."""
    return lambda f, x: change(_jacobian(f, x).numpy())


def test_04_jacobian(said):
    check = lesson04.check_jacobian
    assert passed(said(check, _jacobian))
    assert passed(said(check, lambda f, x: _jacobian(f, x).tolist()))
    assert "transpose" in said(check, _bent(lambda J: J.T))
    assert "accumulates" in said(check, _bent(lambda J: np.cumsum(J, axis=0)))
    assert "vector-Jacobian product" in said(check, _bent(lambda J: J.sum(0)))
    assert "shape (3, 2)" in said(check, _bent(lambda J: np.zeros((3, 3))))
    assert "jac[1][1]" in said(check, _bent(lambda J: J + np.array([[0, 0], [0, 1], [0, 0]])))


# --- 05 ---------------------------------------------------------------------------------------


def _micro(divide: bool, zero: bool, zero_inside: bool = False):
    def accumulate(model, X, Y, n_micro):
        if zero:
            model.zero_grad()
        size = X.shape[0] // n_micro
        for i in range(n_micro):
            if zero_inside:
                model.zero_grad()
            loss = mg.nn.functional.mse_loss(
                model(X[i * size : (i + 1) * size]), Y[i * size : (i + 1) * size]
            )
            (loss / n_micro if divide else loss).backward()

    return accumulate


def test_05_accumulated_grads(said):
    check = lesson05.check_accumulated_grads
    assert passed(said(check, _micro(divide=True, zero=True)))
    assert "3× too large" in said(check, _micro(divide=False, zero=True))
    assert "old gradients" in said(check, _micro(divide=True, zero=False))
    assert "inside the loop" in said(check, _micro(divide=True, zero=True, zero_inside=True))


# --- 06 ---------------------------------------------------------------------------------------


def _derivatives(f, x):
    (first,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    (second,) = mg.autograd.grad(first.sum(), x)
    return first, second


def test_06_second_derivative(said):
    check = lesson06.check_second_derivative
    assert passed(said(check, lambda f, x: _derivatives(f, x)[1]))
    assert "first derivative" in said(check, lambda f, x: _derivatives(f, x)[0])
    assert "twice f''" in said(check, lambda f, x: _derivatives(f, x)[1] * 2)
    assert "shape (4,)" in said(check, lambda f, x: _derivatives(f, x)[1][:2])


# --- 07 ---------------------------------------------------------------------------------------


def test_07_sgd_step(said):
    def right(params, lr):
        with mg.no_grad():
            for p in params:
                p -= lr * p.grad

    def no_no_grad(params, lr):
        for p in params:
            p.sub_(lr * p.grad)

    def rebinding(params, lr):
        for p in params:
            p = p - lr * p.grad  # the mistake under test

    def new_list(params, lr):
        params[:] = [(p - lr * p.grad).detach().requires_grad_() for p in params]

    check = lesson07.check_sgd_step
    assert passed(said(check, right))
    assert "mg.no_grad()" in said(check, no_no_grad)
    assert "rebinds the local name" in said(check, rebinding)
    assert "new tensors" in said(check, new_list)
