"""Lesson 18 (build your own autograd): each check passes the lesson's solution and names every
lazy or wrong way a learner might take: recursion, a pre-order, a node run twice, no seed, the
real autograd (minigrad's or PyTorch's) inside the engine or a closure, finite differences, the
complex step, an ignored upstream gradient, `=` for `+=`, a forgotten broadcast sum or 1/N, an
unstable softmax, a composed (not fused) loss, and layer norm's statistics taken as constants.

The engine is a class made fresh by `make_var`, its methods given as plain functions (the lesson
attaches them the same way: `Var.backward = backward`), so a test swaps one method for a wrong
one and keeps the rest right.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from labkit import lesson18

import minigrad as mg

# --- the lesson's solution, method by method -----------------------------------------------------


def node(self, data, parents, op):
    """A new output node of self's class (the lesson writes `Var(...)`)."""
    return type(self)(data, parents, op)


def init(self, data, parents=(), op="", name=""):
    self.data = np.asarray(data, dtype=np.float64)
    self.grad = np.zeros_like(self.data)
    self.parents = tuple(parents)
    self.op = op
    self.name = name
    self._backward = lambda: None


def lift(self, other):
    return other if isinstance(other, type(self)) else type(self)(other)


def mul(self, other):
    other = lift(self, other)
    out = node(self, self.data * other.data, (self, other), "*")

    def _backward():
        self.grad += other.data * out.grad
        other.grad += self.data * out.grad

    out._backward = _backward
    return out


def tanh(self):
    out = node(self, np.tanh(self.data), (self,), "tanh")

    def _backward():
        self.grad += (1 - out.data**2) * out.grad

    out._backward = _backward
    return out


def exp(self):
    out = node(self, np.exp(self.data), (self,), "exp")

    def _backward():
        self.grad += out.data * out.grad

    out._backward = _backward
    return out


def total(self):
    out = node(self, self.data.sum(), (self,), "sum")

    def _backward():
        self.grad += np.ones_like(self.data) * out.grad

    out._backward = _backward
    return out


def post_order(root):
    """Every node reachable from root, each after its parents: the solution's iterative walk."""
    order, visited = [], set()
    stack = [(root, False)]
    while stack:
        n, parents_done = stack.pop()
        if parents_done:
            order.append(n)
        elif n not in visited:
            visited.add(n)
            stack.append((n, True))
            stack.extend((p, False) for p in n.parents)
    return order


def backward(self):
    self.grad = np.ones_like(self.data)
    for n in reversed(post_order(self)):
        n._backward()


def matmul(self, other):
    out = node(self, self.data @ other.data, (self, other), "@")

    def _backward():
        self.grad += out.grad @ other.data.T
        other.grad += self.data.T @ out.grad

    out._backward = _backward
    return out


def sum_to_shape(grad, shape):
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    keep = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=keep, keepdims=True)


def add(self, other):
    other = lift(self, other)
    out = node(self, self.data + other.data, (self, other), "+")

    def _backward():
        self.grad += sum_to_shape(out.grad, self.data.shape)
        other.grad += sum_to_shape(out.grad, other.data.shape)

    out._backward = _backward
    return out


def cross_entropy(self, targets):
    z = self.data - self.data.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    rows = np.arange(len(targets))
    out = node(self, -log_p[rows, targets].mean(), (self,), "cross_entropy")

    def _backward():
        dz = np.exp(log_p)
        dz[rows, targets] -= 1
        self.grad += dz / len(targets) * out.grad

    out._backward = _backward
    return out


def layer_norm(self, eps=1e-5):
    mean = self.data.mean(axis=-1, keepdims=True)
    std = np.sqrt(self.data.var(axis=-1, keepdims=True) + eps)
    xhat = (self.data - mean) / std
    out = node(self, xhat, (self,), "layer_norm")

    def _backward():
        g = out.grad
        gm = g.mean(axis=-1, keepdims=True)
        self.grad += (g - gm - xhat * (g * xhat).mean(axis=-1, keepdims=True)) / std

    out._backward = _backward
    return out


SOLUTION = {
    "__init__": init,
    "__mul__": mul,
    "tanh": tanh,
    "exp": exp,
    "sum": total,
    "backward": backward,
    "__matmul__": matmul,
    "__add__": add,
    "cross_entropy": cross_entropy,
    "layer_norm": layer_norm,
}


def make_var(**changed):
    """A fresh engine class: the solution with some methods replaced."""
    return type("Var", (), {**SOLUTION, **changed})


def passed(out: str) -> bool:
    return out.startswith("✓") and "Traceback" not in out


def failed_with(out: str, *words: str) -> bool:
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


def closure(compute):
    """A method `op(self, other)` for matmul whose backward is `compute(self, other, out)`."""

    def op(self, other):
        out = node(self, self.data @ other.data, (self, other), "@")

        def _backward():
            compute(self, other, out)

        out._backward = _backward
        return out

    return op


# --- the engine ----------------------------------------------------------------------------------


def recursive(self):
    order, visited = [], set()

    def visit(n):
        if n not in visited:
            visited.add(n)
            for p in n.parents:
                visit(p)
            order.append(n)

    visit(self)
    self.grad = np.ones_like(self.data)
    for n in reversed(order):
        n._backward()


def raises_limit(self):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    recursive(self)


def breadth_first(self):
    order, seen, queue = [], {self}, [self]
    while queue:
        n = queue.pop(0)
        order.append(n)
        for p in n.parents:
            if p not in seen:
                seen.add(p)
                queue.append(p)
    self.grad = np.ones_like(self.data)
    for n in order:
        n._backward()


def no_visited_set(self):
    order, stack = [], [(self, False)]
    while stack:
        n, parents_done = stack.pop()
        if parents_done:
            order.append(n)
        else:
            stack.append((n, True))
            stack.extend((p, False) for p in n.parents)
    self.grad = np.ones_like(self.data)
    for n in reversed(order):
        n._backward()


def no_seed(self):
    for n in reversed(post_order(self)):
        n._backward()


def stub(self): ...


def with_graphlib(self):
    import graphlib

    nodes, stack = {}, [self]
    while stack:
        n = stack.pop()
        if id(n) not in nodes:
            nodes[id(n)] = n
            stack.extend(n.parents)
    sorter = graphlib.TopologicalSorter({i: [id(p) for p in n.parents] for i, n in nodes.items()})
    order = [nodes[i] for i in sorter.static_order()]  # parents first
    self.grad = np.ones_like(self.data)
    for n in reversed(order):
        n._backward()


def through_minigrad(self):
    """Rebuild the graph in minigrad and let its engine differentiate."""
    made, order = {}, post_order(self)
    ops = {"*": lambda a, b: a * b, "tanh": mg.Tensor.tanh, "exp": mg.Tensor.exp}
    ops["sum"] = mg.Tensor.sum
    for n in order:
        if not n.parents:
            made[n] = mg.tensor(n.data, requires_grad=True)
        else:
            made[n] = ops[n.op](*(made[p] for p in n.parents))
    made[self].backward()
    for n in order:
        if not n.parents:
            n.grad = made[n].grad.numpy()


def through_torch(self):
    import torch

    made, order = {}, post_order(self)
    ops = {"*": lambda a, b: a * b, "tanh": torch.tanh, "exp": torch.exp, "sum": torch.sum}
    for n in order:
        made[n] = (
            torch.tensor(n.data, requires_grad=True)
            if not n.parents
            else ops[n.op](*(made[p] for p in n.parents))
        )
    leaves = [n for n in order if not n.parents]
    for n, g in zip(leaves, torch.autograd.grad(made[self], [made[n] for n in leaves])):
        n.grad = g.numpy()


def test_the_engine_solution_passes(said):
    out = said(lesson18.check_backward, make_var())
    assert passed(out), out
    assert "minigrad" in out  # the order compared with the real engine's


@pytest.mark.parametrize(
    "wrong, words",
    [
        (recursive, ("RecursionError", "explicit stack")),
        (raises_limit, ("recursion limit", "explicit stack")),
        (breadth_first, ("ran before", "sends it a gradient")),
        (no_visited_set, ("times", "visited")),
        (no_seed, ("seed",)),
        (stub, ("still `...`",)),
        (with_graphlib, ("graphlib.TopologicalSorter", "write it")),
        (through_minigrad, ("minigrad's own autograd",)),
        (through_torch, ("PyTorch's autograd",)),
    ],
)
def test_the_engine_check_names_each_wrong_way(said, wrong, words):
    out = said(lesson18.check_backward, make_var(backward=wrong))
    assert failed_with(out, *words), out


def test_the_engine_check_wants_a_backward_and_an_answer(said):
    assert failed_with(said(lesson18.check_backward, ...), "still `...`")
    no_backward = {k: v for k, v in SOLUTION.items() if k != "backward"}
    out = said(lesson18.check_backward, type("Var", (), no_backward))
    assert failed_with(out, "Var.backward = backward")


def test_the_engine_check_leaves_recursion_limit_and_grad_mode_as_they_were(said):
    limit = sys.getrecursionlimit()
    said(lesson18.check_backward, make_var(backward=recursive))
    assert sys.getrecursionlimit() == limit and mg.is_grad_enabled()


# --- matmul --------------------------------------------------------------------------------------


def _upstream_ignored(self, other, out):
    ones = np.ones_like(out.data)
    self.grad += ones @ other.data.T
    other.grad += self.data.T @ ones


def _overwrites(self, other, out):
    self.grad = out.grad @ other.data.T
    other.grad = self.data.T @ out.grad


def _swapped(self, other, out):
    self.grad += other.data.T @ out.grad
    other.grad += out.grad @ self.data.T


def _hard_coded(self, other, out):
    self.grad += np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
    other.grad += np.array([[1.0, 1.0], [0.0, 2.0], [-1.0, 0.5]])


def _finite_differences(self, other, out):
    h = 1e-6
    for var in (self, other):
        base = var.data.copy()
        g = np.zeros_like(base)
        for i in np.ndindex(base.shape):
            up, down = base.copy(), base.copy()
            up[i] += h
            down[i] -= h
            var.data = up
            f_up = (self.data @ other.data * out.grad).sum()
            var.data = down
            f_down = (self.data @ other.data * out.grad).sum()
            g[i] = (f_up - f_down) / (2 * h)
        var.data = base
        var.grad += g


def _complex_step(self, other, out):
    h = 1e-20
    g = np.zeros_like(self.data)
    for i in np.ndindex(self.data.shape):
        step = self.data.astype(complex)
        step[i] += 1j * h
        g[i] = ((step @ other.data) * out.grad).sum().imag / h
    self.grad += g
    other.grad += self.data.T @ out.grad


def _torch_inside(self, other, out):
    import torch

    a = torch.tensor(self.data, requires_grad=True)
    b = torch.tensor(other.data, requires_grad=True)
    ga, gb = torch.autograd.grad(a @ b, (a, b), torch.tensor(out.grad))
    self.grad += ga.numpy()
    other.grad += gb.numpy()


def _minigrad_inside(self, other, out):
    a = mg.tensor(self.data, requires_grad=True)
    b = mg.tensor(other.data, requires_grad=True)
    (a @ b).backward(mg.tensor(out.grad))
    self.grad += a.grad.numpy()
    other.grad += b.grad.numpy()


def _sympy_inside(self, other, out):
    """The derivative of one product term found by sympy, then used as the formula."""
    import sympy

    a, b = sympy.symbols("a b")
    slope_a = float(sympy.diff(a * b, a).subs(b, 1))  # d(ab)/da = b
    self.grad += slope_a * (out.grad @ other.data.T)
    other.grad += self.data.T @ out.grad


def test_the_matmul_solution_passes(said):
    out = said(lesson18.check_matmul, make_var())
    assert passed(out), out


@pytest.mark.parametrize(
    "compute, words",
    [
        (_upstream_ignored, ("ignores the upstream gradient",)),
        (_overwrites, ("`+=`",)),
        (_swapped, ("raised ValueError", "which transpose")),
        (_hard_coded, ("raised ValueError", "never from one example's numbers")),
        (_finite_differences, ("finite differences",)),
        (_complex_step, ("complex",)),
        (_torch_inside, ("PyTorch's autograd",)),
        (_minigrad_inside, ("minigrad's own autograd",)),
        (_sympy_inside, ("calls sympy",)),
    ],
)
def test_the_matmul_check_names_each_wrong_way(said, compute, words):
    out = said(lesson18.check_matmul, make_var(__matmul__=closure(compute)))
    assert failed_with(out, *words), out


def test_a_stubbed_matmul_is_named(said):
    out = said(lesson18.check_matmul, make_var(__matmul__=lambda self, other: None))
    assert failed_with(out, "still `...`"), out


# --- broadcasting add ----------------------------------------------------------------------------


def add_with(unbroadcast, assign=False):
    def op(self, other):
        other = lift(self, other)
        out = node(self, self.data + other.data, (self, other), "+")

        def _backward():
            if assign:
                self.grad = self.grad + unbroadcast(out.grad, self.data.shape)
                other.grad = other.grad + unbroadcast(out.grad, other.data.shape)
            else:
                self.grad += unbroadcast(out.grad, self.data.shape)
                other.grad += unbroadcast(out.grad, other.data.shape)

        out._backward = _backward
        return out

    return op


def first_axis_only(grad, shape):
    return grad.sum(axis=0) if grad.ndim > len(shape) else grad


def leading_only(grad, shape):
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))


def test_the_add_solution_passes(said):
    out = said(lesson18.check_add, make_var())
    assert passed(out), out


@pytest.mark.parametrize(
    "op, words",
    [
        (add_with(lambda g, s: g), ("raised ValueError", "sum the upstream gradient")),
        (add_with(lambda g, s: g, assign=True), ("has shape", "Sum it over the dims")),
        (add_with(first_axis_only), ("sum the upstream gradient",)),
        (add_with(leading_only), ("a size-1 dim",)),
        (add_with(lambda g, s: sum_to_shape(np.ones_like(g), s)), ("ignores the upstream",)),
    ],
)
def test_the_add_check_names_each_wrong_way(said, op, words):
    out = said(lesson18.check_add, make_var(__add__=op))
    assert failed_with(out, *words), out


# --- softmax cross-entropy -----------------------------------------------------------------------


def ce_with(forward="stable", per_row=1.0, upstream=True, fused=True, fd=False):
    def op(self, targets):
        z = self.data - self.data.max(axis=1, keepdims=True) if forward == "stable" else self.data
        with np.errstate(over="ignore", invalid="ignore"):
            log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        rows = np.arange(len(targets))
        source = self if fused else node(self, z, (self,), "shift")
        out = node(self, -log_p[rows, targets].mean(), (source,), "cross_entropy")

        def _backward():
            if fd:
                g, h = np.zeros_like(self.data), 1e-6
                for i in np.ndindex(self.data.shape):
                    up, down = self.data.copy(), self.data.copy()
                    up[i] += h
                    down[i] -= h
                    g[i] = (_ce(up, targets) - _ce(down, targets)) / (2 * h)
                self.grad += g * out.grad
                return
            dz = np.exp(log_p)
            dz[rows, targets] -= 1
            self.grad += dz / len(targets) * per_row * (out.grad if upstream else 1.0)

        out._backward = _backward
        return out

    return op


def _ce(z, targets):
    z = z - z.max(axis=1, keepdims=True)
    log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -log_p[np.arange(len(targets)), targets].mean()


def test_the_cross_entropy_solution_passes(said):
    out = said(lesson18.check_cross_entropy, make_var())
    assert passed(out), out


@pytest.mark.parametrize(
    "op, words",
    [
        (ce_with(forward="naive"), ("exp overflowed", "max")),
        (ce_with(fused=False), ("ONE fused node",)),
        (ce_with(upstream=False), ("ignores the upstream",)),
        (ce_with(fd=True), ("finite differences",)),
    ],
)
def test_the_cross_entropy_check_names_each_wrong_way(said, op, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out = said(lesson18.check_cross_entropy, make_var(cross_entropy=op))
    assert failed_with(out, *words), out


def test_a_forgotten_mean_is_named(said):
    rows_times = ce_with()

    def summed(self, targets):
        out = rows_times(self, targets)
        inner = out._backward

        def _backward():
            before = self.grad.copy()
            inner()
            self.grad = before + (self.grad - before) * len(targets)

        out._backward = _backward
        return out

    out = said(lesson18.check_cross_entropy, make_var(cross_entropy=summed))
    assert failed_with(out, "N times too large"), out


# --- layer norm ----------------------------------------------------------------------------------


def ln_with(kind):
    def op(self, eps=1e-5):
        mean = self.data.mean(axis=-1, keepdims=True)
        std = np.sqrt(self.data.var(axis=-1, keepdims=True) + (0.0 if kind == "no eps" else eps))
        xhat = (self.data - mean) / std
        out = node(self, xhat, (self,), "layer_norm")

        def _backward():
            g = out.grad
            if kind == "constants":
                self.grad += g / std
            elif kind == "finite differences":
                base, h, found = self.data.copy(), 1e-6, np.zeros_like(self.data)
                for i in np.ndindex(base.shape):
                    up, down = base.copy(), base.copy()
                    up[i] += h
                    down[i] -= h
                    f_up = (
                        (up - up.mean(-1, keepdims=True))
                        / np.sqrt(up.var(-1, keepdims=True) + eps)
                        * g
                    ).sum()
                    f_down = (
                        (down - down.mean(-1, keepdims=True))
                        / np.sqrt(down.var(-1, keepdims=True) + eps)
                        * g
                    ).sum()
                    found[i] = (f_up - f_down) / (2 * h)
                self.grad += found
            elif kind == "overwrite":
                gm = g.mean(axis=-1, keepdims=True)
                self.grad = (g - gm - xhat * (g * xhat).mean(axis=-1, keepdims=True)) / std
            else:
                g = np.ones_like(g) if kind == "no upstream" else g
                gm = g.mean(axis=-1, keepdims=True)
                self.grad += (g - gm - xhat * (g * xhat).mean(axis=-1, keepdims=True)) / std

        out._backward = _backward
        return out

    return op


def test_the_layer_norm_solution_passes(said):
    out = said(lesson18.check_layer_norm, make_var())
    assert passed(out), out


@pytest.mark.parametrize(
    "kind, words",
    [
        ("constants", ("as constants",)),
        ("no eps", ("forward value is wrong",)),
        ("overwrite", ("`+=`",)),
        ("no upstream", ("ignores the upstream",)),
        ("finite differences", ("finite differences",)),
    ],
)
def test_the_layer_norm_check_names_each_wrong_way(said, kind, words):
    out = said(lesson18.check_layer_norm, make_var(layer_norm=ln_with(kind)))
    assert failed_with(out, *words), out


def test_every_check_passes_again_on_new_random_cases(said):
    """Fresh shapes and values each call: the solution must pass every draw."""
    var = make_var()
    for _ in range(3):
        for check in (
            lesson18.check_backward,
            lesson18.check_matmul,
            lesson18.check_add,
            lesson18.check_cross_entropy,
            lesson18.check_layer_norm,
        ):
            out = said(check, var)
            assert passed(out), out


def test_a_check_prints_its_verdict_and_returns_nothing(said, capsys):
    """A check cell shows the verdict only (no `True`/`False` under it in the notebook)."""
    assert lesson18.check_add(make_var()) is None
    assert lesson18.check_backward(make_var(backward=stub)) is None


def test_a_demo_is_labelled_and_offers_no_hint(said):
    out = said(lesson18.check_matmul, make_var(__matmul__=closure(_upstream_ignored)), demo=True)
    assert out.startswith("Demo, not your answer") and "hint()" not in out, out


def test_cells_after_an_exercise_wait_for_its_check_to_pass(monkeypatch):
    """A learner's copy runs its cells before the exercises are done: the cells that use an
    answer say which check to pass first, without a traceback, instead of failing inside it."""
    from labkit import feedback

    monkeypatch.setattr(feedback, "PASSED", set())
    with pytest.raises(feedback.NotYet, match="Backward pass") as caught:
        lesson18.needs(1)
    assert caught.value._render_traceback_() == [str(caught.value)]
    feedback.PASSED.add("Backward pass")
    lesson18.needs(1)
    with pytest.raises(feedback.NotYet, match="Matmul backward.*Layer norm"):
        lesson18.needs(1, 2, 5)
