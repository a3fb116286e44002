"""Lessons 13-16: the lazy answers a learner might try, each turned down with its own message.

Lesson 16's functions hide a custom Function (q: rounding with a straight-through derivative),
so numerical differentiation gets a different answer from autograd's, and q's backward and jvp
count their runs, so passes that never went through f are seen. Lesson 14's `sum_to_shape` must
stay a differentiable function of the gradient (numpy, autograd itself or the library's own
reduction are named). Lesson 15's counter must count what its pack hook receives. Every cheat is
pinned in English and in Chinese, and correct answers written differently still pass.
"""

from __future__ import annotations

import pytest
from labkit import lesson13, lesson14, lesson15, lesson16
from test_chinese_lessons import chinese_only

import minigrad as mg


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


# --- lesson 16: numeric differentiation and dummy passes -----------------------------------------


def _dummy_passes(x, first_create_graph: bool, count: int) -> None:
    """Backward passes that differentiate something other than f, with 'the right flags'."""
    t = x.detach().double().requires_grad_()
    for i in range(count):
        mg.autograd.grad((t * t).sum(), t, create_graph=first_create_graph and i == 0)


def _central_jacobian(f, x):
    xd = x.detach().double()
    y = f(xd)
    h = 1e-6
    cols = []
    for j in range(xd.numel()):
        e = mg.zeros_like(xd)
        e[j] = h
        cols.append((f(xd + e) - f(xd - e)) / (2 * h))
    return mg.stack(cols, dim=1).reshape(y.numel(), xd.numel())


def _fd_jacobian_with_dummies(f, x):
    m, n = f(x.detach()).numel(), x.numel()
    cheaper_rows = m <= n + 1
    _dummy_passes(x, not cheaper_rows, m if cheaper_rows else n + 1)
    return _central_jacobian(f, x).float()


def _zeros_jacobian_with_dummies(f, x):
    m, n = f(x.detach()).numel(), x.numel()
    _dummy_passes(x, m > n + 1, min(m, n + 1))
    return mg.zeros(m, n)


def _fd_hvp_with_dummies(f, x, v):
    """Float64 second differences of f along v, plus two dummy passes, the first with
    create_graph=True: what passed the check before."""
    _dummy_passes(x, True, 2)
    xd, vd, h = x.detach().double(), v.double(), 1e-4
    n = xd.numel()
    out = []
    for i in range(n):
        e = mg.zeros(n, dtype=mg.float64)
        e[i] = h

        # d/dx_i of the directional derivative (f(x + h v) - f(x - h v)) / 2h
        def dir_derivative(at):
            return (f(at + h * vd) - f(at - h * vd)) / (2 * h)

        out.append((dir_derivative(xd + e) - dir_derivative(xd - e)) / (2 * h))
    return mg.stack(out).float()


def _hvp_difference_of_gradients(f, x, v):
    """Two honest gradient passes at x ± h v, then a difference quotient."""
    h = 1e-3

    def grad_at(at):
        t = at.detach().requires_grad_()
        return mg.autograd.grad(f(t), t)[0]

    return (grad_at(x + h * v) - grad_at(x - h * v)) / (2 * h)


def _zeros_hvp_with_dummies(f, x, v):
    _dummy_passes(x, True, 2)
    return mg.zeros(x.numel())


def _dual_then_fd(f, x, v):
    """A dummy make_dual, then a central difference of f on plain tensors (f's weights are
    float32, so float32 it is)."""
    fw = mg.autograd.forward_ad
    with fw.dual_level():
        fw.make_dual(x, v)
    h = 1e-3
    return f(x), (f(x + h * v) - f(x - h * v)) / (2 * h)


def _dual_ignored(f, x, v):
    """A dual tensor made, f run once on the plain x, and a made-up tangent."""
    fw = mg.autograd.forward_ad
    with fw.dual_level():
        fw.make_dual(x, v)
    y = f(x)
    return y, mg.zeros_like(y)


CHEATS_16 = [
    (lesson16.check_jvp, _dual_then_fd, ("is what finite differences give", "straight-through")),
    (lesson16.check_jvp, _dual_ignored, ("never went through f", "jvp never ran")),
    (
        lesson16.check_jacobian,
        _fd_jacobian_with_dummies,
        ("Jacobian is what finite differences give", "2 backward pass(es) ran"),
    ),
    (lesson16.check_jacobian, _zeros_jacobian_with_dummies, ("never went through f",)),
    (lesson16.check_hvp, _fd_hvp_with_dummies, ("Hv is what finite differences give",)),
    (lesson16.check_hvp, _hvp_difference_of_gradients, ("Hv is what finite differences give",)),
    (lesson16.check_hvp, _zeros_hvp_with_dummies, ("never went through f", "backward never ran")),
]


@pytest.mark.parametrize(("check", "cheat", "words"), CHEATS_16)
def test_16_numeric_answers_and_dummy_passes_are_named(said, check, cheat, words):
    out = said(check, cheat)
    assert failed_with(out, *words), out


@pytest.mark.parametrize(("check", "cheat", "words"), CHEATS_16)
def test_16_the_same_in_chinese(said, chinese, check, cheat, words):
    out = said(check, cheat)
    chinese_only(out)
    named = ("有限差分", "从来没有经过 f", "从没经过 f")
    assert out.startswith("✗ ") and any(words in out for words in named)


def _hvp_by_backward(f, x, v):
    """Right, written differently: backward() on (g * v).sum() instead of grad_outputs."""
    (g,) = mg.autograd.grad(f(x), x, create_graph=True)
    x.grad = None
    (g * v).sum().backward()
    return x.grad


def _rows_by_backward(f, x):
    """Rows with .backward() and x.grad reset each time, columns by the trick."""
    y = f(x)
    m, n = y.numel(), x.numel()
    if m <= n + 1:
        rows = []
        for i in range(m):
            x.grad = None
            y[i].backward(retain_graph=True)
            rows.append(x.grad.clone())
        return mg.stack(rows)
    u = mg.zeros(m, requires_grad=True)
    (g,) = mg.autograd.grad(y, x, grad_outputs=u, create_graph=True)
    return mg.stack([mg.autograd.grad(g[j], u, retain_graph=True)[0] for j in range(n)], dim=1)


def _jvp_unpacked_by_name(f, x, v):
    fw = mg.autograd.forward_ad
    with fw.dual_level():
        dual = fw.make_dual(x.clone(), v.clone())
        out = fw.unpack_dual(f(dual))
        return out.primal, out.tangent


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (lesson16.check_hvp, _hvp_by_backward),
        (lesson16.check_jacobian, _rows_by_backward),
        (lesson16.check_jvp, _jvp_unpacked_by_name),
    ],
)
def test_16_correct_answers_written_differently_pass(said, check, answer):
    out = said(check, answer)
    assert passed(out), out


def test_16_the_hidden_step_is_not_its_numerical_slope():
    x = mg.tensor([0.3, -0.71], requires_grad=True)
    (g,) = mg.autograd.grad(lesson16._q(x).sum(), x)
    assert g.tolist() == [1.0, 1.0]  # straight through
    h = 1e-4
    numeric = (lesson16._q(x.detach() + h) - lesson16._q(x.detach() - h)) / (2 * h)
    assert numeric.tolist() == [0.0, 0.0]  # flat steps


def test_16_demo_prints_a_demo_and_records_nothing(said, monkeypatch):
    from labkit import hints, learner_progress

    recorded = []
    monkeypatch.setattr(learner_progress, "record", lambda *a: recorded.append(a))
    hints.checked("Hessian-vector product")
    out = said(lesson16.check_jvp, lambda f, x, v: (f(x), f(x)), demo=True)
    assert out.startswith("Demo") and "hint()" not in out and "not yet" not in out
    assert not recorded and hints._last == ["Hessian-vector product"]


# --- lesson 14: sum_to_shape must be the rule, written with tensor ops -------------------------


def _by_numpy(grad, shape):
    g = grad.numpy()
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead)))
    ones = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    return mg.tensor(g.sum(axis=ones, keepdims=True) if ones else g)


def _by_detached_numpy(grad, shape):
    return _by_numpy(grad.detach(), shape)


def _by_autograd(grad, shape):
    leaf = mg.zeros(shape, requires_grad=True)
    (leaf + mg.zeros(tuple(grad.shape))).backward(grad.detach())
    return leaf.grad


def _values_pasted_on(grad, shape):
    return grad.sum() * 0 + _by_detached_numpy(grad, shape)


def _one_dim_at_a_time(grad, shape):
    """Right, written differently: a loop that sums one dim at a time, then a reshape."""
    while grad.dim() > len(shape):
        grad = grad.sum(0)
    for i, size in enumerate(shape):
        if size == 1 and grad.shape[i] != 1:
            grad = grad.sum(i, keepdim=True)
    return grad.reshape(shape)


@pytest.mark.parametrize(
    ("cheat", "words", "zh"),
    [
        (_by_numpy, ("went through numpy", "create_graph=True"), "经过了 numpy"),
        (_by_detached_numpy, ("computed outside autograd",), "在 autograd 之外"),
        (_by_autograd, ("backward pass", "autograd did the summing"), "替你做的"),
        (_values_pasted_on, ("tied to the gradient only in part",), "只有一部分"),
    ],
)
def test_14_sum_to_shape_cheats_are_named(said, chinese, cheat, words, zh):
    out = said(lesson14.check_sum_to_shape, cheat)
    chinese_only(out)
    assert out.startswith("✗ ") and zh in out, out


@pytest.mark.parametrize(
    ("cheat", "words", "zh"),
    [
        (_by_numpy, ("went through numpy", "create_graph=True"), "经过了 numpy"),
        (_by_detached_numpy, ("computed outside autograd",), "在 autograd 之外"),
        (_by_autograd, ("backward pass", "autograd did the summing"), "替你做的"),
        (_values_pasted_on, ("tied to the gradient only in part",), "只有一部分"),
    ],
)
def test_14_sum_to_shape_cheats_in_english(said, cheat, words, zh):
    out = said(lesson14.check_sum_to_shape, cheat)
    assert failed_with(out, "the values are right" if cheat is not _by_autograd else "", *words)


def test_14_sum_to_shape_written_differently_passes(said):
    assert passed(said(lesson14.check_sum_to_shape, _one_dim_at_a_time))


# --- lesson 15: the counter must count what pack receives ----------------------------------------


def _typed_total(model, x):
    def unpack(t):
        return t

    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), unpack):
        out = model(x)
    return out, 556  # the lesson's own MLP, copied from section 2's output


def test_15_a_copied_number_is_named(said, chinese):
    out = said(lesson15.check_count_saved_bytes, _typed_total)
    chinese_only(out)
    assert out.startswith("✗ ") and "抄来的数字" in out


def test_15_a_copied_number_in_english(said):
    out = said(lesson15.check_count_saved_bytes, _typed_total)
    assert failed_with(out, "returns 556 for a batch of 9 rows and again 556", "copied")


def _counter_with_a_list(model, x):
    """Right, written differently: sizes collected in a list, summed at the end."""
    sizes = []

    def pack(t):
        sizes.append(t.numel() * t.dtype.itemsize)
        return t.detach()

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return out, sum(sizes)


def test_15_a_counter_written_differently_passes(said):
    assert passed(said(lesson15.check_count_saved_bytes, _counter_with_a_list))


# --- lesson 13: the check's own answer key ----------------------------------------------------


def test_13_the_answer_key_is_not_a_prediction(said, chinese):
    out = said(lesson13.check_predictions, lesson13.RAISES)
    chinese_only(out, "lesson13.RAISES")
    assert out.startswith("✗ ") and "答案表" in out


def test_13_the_answer_key_in_english(said):
    out = said(lesson13.check_predictions, lesson13.RAISES)
    assert failed_with(out, "the check's own answer key")
    copied = said(lesson13.check_predictions, dict(lesson13.RAISES.items()))
    assert failed_with(copied, "copied from the check's own answer key")


def test_16_a_whole_hessian_from_func_is_named_by_its_cost(said):
    out = said(lesson16.check_hvp, lambda f, x, v: mg.func.hessian(f)(x) @ v)
    assert failed_with(out, "8 backward passes for 8 inputs", "whole Hessian")
