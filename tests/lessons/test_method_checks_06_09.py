"""Lessons 06-09: the checks verify the method, not the numbers (issue 23).

Each lazy answer a learner could think of gets its own message, in English and in Chinese:
a finite difference with dummy backward passes, the library's ready-made second derivative or
optimizer, numbers that only fit the check's first case, a result cut off the graph, a hook that
ignores the gradient it gets. And correct answers written differently pass.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from labkit import lesson06, lesson07, lesson08, lesson09

import minigrad as mg
import minigrad.nn.functional as F


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed(out: str, *phrases: str) -> bool:
    """A failed check (never a traceback) whose text holds every phrase."""
    assert out.startswith("✗") and "Traceback" not in out, out
    missing = [p for p in phrases if p not in out]
    assert not missing, (missing, out)
    return True


def both(said, check, answer, en: tuple[str, ...], zh: tuple[str, ...]):
    """The answer fails with the English phrases, and (language switched) the Chinese ones."""
    assert failed(said(check, answer), *en)
    from labkit import language

    language.use("zh")
    try:
        out = said(check, answer)
    finally:
        language.use("en")
    assert failed(out, *zh)
    assert "not yet" not in out


def _name(case) -> str:
    return getattr(case, "__name__", "-")


# --- 06: f'' by two passes, the first with create_graph=True, through f's own graph -----------


def _fd(f, x):
    xd, h = x.detach().double(), 1e-4
    return ((f(xd + h) - 2 * f(xd) + f(xd - h)) / h**2).float()


def fd_with_dummy_passes(f, x):  # the lazy answer issue 23 names
    (g,) = mg.autograd.grad((x * x).sum(), x, create_graph=True)
    mg.autograd.grad(g.sum(), x)
    return _fd(f, x)


def fd_with_a_pass_through_f(f, x):
    mg.autograd.grad(f(x).sum(), x, create_graph=True)
    mg.autograd.grad((x * x).sum(), x)
    return _fd(f, x)


def fd_after_the_right_passes(f, x):
    (g,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    mg.autograd.grad(g.sum(), x)
    return _fd(f, x)


def fd_of_the_first_derivative(f, x):
    def first(t):
        t = t.detach().requires_grad_()
        return mg.autograd.grad(f(t).sum(), t)[0]

    return (first(x + 1e-3) - first(x - 1e-3)) / 2e-3


def fd_beside_the_right_passes(f, x):  # the passes ran, but the answer is worked out beside them
    (g,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    mg.autograd.grad(g.sum(), x)
    return fd_of_the_first_derivative(f, x)


def functional_hessian(f, x):
    return mg.autograd.functional.hessian(lambda t: f(t).sum(), x).diagonal()


def func_grad_twice(f, x):
    return mg.func.vmap(mg.func.grad(mg.func.grad(f)))(x.detach())


def forward_over_reverse(f, x):
    import minigrad.autograd.forward_ad as fwad

    with fwad.dual_level():
        tangent = fwad.unpack_dual(f(fwad.make_dual(x, mg.ones_like(x)))).tangent
    return mg.autograd.grad(tangent.sum(), x)[0]


CHEATS_06 = [
    (
        fd_with_dummy_passes,
        ("values are right", "did not go through the graph of f(x)", "dummy"),
        ("数值是对的", "都没有经过 f(x) 的计算图", "凑数"),
    ),
    (
        fd_with_a_pass_through_f,
        ("values are right", "no later pass went through it"),
        ("数值是对的", "再没有哪次反向传播经过它"),
    ),
    (
        fd_after_the_right_passes,
        ("custom autograd Function", "finite differences, not autograd's"),
        ("自定义 autograd Function", "有限差分", "不是 autograd 算出的"),
    ),
    (
        fd_of_the_first_derivative,
        ("values are right", "had create_graph=True"),
        ("数值是对的", "带着 create_graph=True"),
    ),
    (
        fd_beside_the_right_passes,
        ("values are right", "not what the second pass produced"),
        ("数值是对的", "并不是第二次反向传播算出的梯度"),
    ),
    (
        functional_hessian,
        ("called mg.autograd.functional.hessian", "two mg.autograd.grad calls"),
        ("调用了 mg.autograd.functional.hessian", "调用两次 mg.autograd.grad"),
    ),
    (
        func_grad_twice,
        ("called mg.func.grad", "create_graph=True"),
        ("调用了 mg.func.grad", "create_graph=True"),
    ),
    (
        forward_over_reverse,
        ("forward mode (mg.autograd.forward_ad", "reverse mode twice"),
        ("前向模式", "两次反向模式"),
    ),
]


@pytest.mark.parametrize(
    ("answer", "en", "zh"), CHEATS_06, ids=lambda c: getattr(c, "__name__", "")
)
def test_06_lazy_second_derivatives_get_their_own_message(said, answer, en, zh):
    both(said, lesson06.check_second_derivative, answer, en, zh)


def by_grad(f, x):
    (first,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    return mg.autograd.grad(first.sum(), x)[0]


def by_backward(f, x):
    f(x).sum().backward(create_graph=True)
    first, x.grad = x.grad, None
    first.sum().backward()
    return x.grad


def with_grad_outputs(f, x):
    y = f(x)
    (g,) = mg.autograd.grad(y, x, grad_outputs=mg.ones_like(y), create_graph=True)
    return mg.autograd.grad(g, x, grad_outputs=mg.ones_like(g))[0]


def point_by_point(f, x):
    (g,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    return mg.stack([mg.autograd.grad(g[i], x, retain_graph=True)[0][i] for i in range(len(x))])


def on_a_copy_in_float64(f, x):
    z = x.detach().double().requires_grad_()
    (g,) = mg.autograd.grad(f(z).sum(), z, create_graph=True)
    return mg.autograd.grad(g.sum(), z)[0]


def subtracting_the_first(f, x):  # clumsy but right: f' + f'' in x.grad, minus f'
    f(x).sum().backward(create_graph=True)
    first = x.grad.detach().clone()
    x.grad.sum().backward()
    return x.grad.detach() - first


def as_numpy_times_one(f, x):
    return by_grad(f, x).numpy() * 1


def both_passes_with_create_graph(f, x):
    (first,) = mg.autograd.grad(f(x).sum(), x, create_graph=True)
    return mg.autograd.grad(first.sum(), x, create_graph=True)[0]


@pytest.mark.parametrize(
    "answer",
    [
        by_grad,
        by_backward,
        with_grad_outputs,
        point_by_point,
        on_a_copy_in_float64,
        as_numpy_times_one,
        subtracting_the_first,
        both_passes_with_create_graph,
    ],
)
def test_06_right_second_derivatives_written_differently_pass(said, answer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True)'s reference-cycle warning
        assert passed(said(lesson06.check_second_derivative, answer))


def test_06_the_hidden_function_differs_from_its_slope():
    """The third case is the one finite differences cannot pass: autograd's f'' there is the
    slope's plus 1, and the check's expected numbers are autograd's."""
    label, f, xs, _, second, hidden = lesson06._cases()[2]
    assert hidden
    x = mg.tensor(xs.tolist(), requires_grad=True)
    assert np.allclose(by_grad(f, x).numpy(), second, atol=1e-5)
    assert np.allclose(second - lesson06._slope(xs), 1.0)
    assert np.allclose(_fd(f, x).numpy(), lesson06._slope(xs), atol=1e-2)


def test_06_demo_says_it_is_a_demo_and_records_nothing(said):
    from labkit import hints

    hints.checked("Clipping hook")
    out = said(lesson06.check_second_derivative, fd_with_dummy_passes, True)
    assert out.startswith("Demo, not your answer") and "Stuck?" not in out
    assert hints._last == ["Clipping hook"]


# --- 07: a hand-written step, counted by the version counter, from its own arguments ----------


def literal_step(params, lr):
    with mg.no_grad():
        params[0].copy_(mg.tensor([0.7, -2.4]))
        params[1].copy_(mg.tensor([0.3]))


def fixed_lr_step(params, lr):
    with mg.no_grad():
        for p in params:
            p -= 0.1 * p.grad


def optimizer_step(params, lr):
    mg.optim.SGD(params, lr=lr).step()


CHEATS_07 = [
    (
        literal_step,
        ("shapes (3,) and (2, 2)", "use its arguments"),
        ("(3,) 和 (2, 2)", "自己写死的数"),
    ),
    (
        fixed_lr_step,
        ("lr=0.05", "not p - lr·p.grad", "use its arguments"),
        ("lr=0.05", "而不是 p - lr·p.grad", "自己写死的数"),
    ),
    (
        optimizer_step,
        ("used mg.optim", "write it"),
        ("用了 mg.optim", "自己写"),
    ),
]


@pytest.mark.parametrize(
    ("answer", "en", "zh"), CHEATS_07, ids=lambda c: getattr(c, "__name__", "")
)
def test_07_lazy_steps_get_their_own_message(said, answer, en, zh):
    both(said, lesson07.check_sgd_step, answer, en, zh)


def _in_place(update):
    def step(params, lr):
        with mg.no_grad():
            for p in params:
                update(p, lr)

    return step


@pytest.mark.parametrize(
    "answer",
    [
        _in_place(lambda p, lr: p.sub_(lr * p.grad)),
        _in_place(lambda p, lr: p.add_(p.grad, alpha=-lr)),
        _in_place(lambda p, lr: p.copy_(p - lr * p.grad)),
    ],
)
def test_07_right_steps_written_differently_pass(said, answer):
    assert passed(said(lesson07.check_sgd_step, answer))


def test_07_set_grad_enabled_and_inference_mode_steps_pass(said):
    def switched_off(params, lr):
        with mg.set_grad_enabled(False):
            for p in params:
                p -= lr * p.grad

    def inference(params, lr):  # in-place on a normal tensor is allowed there, and counted
        with mg.inference_mode():
            for p in params:
                p.sub_(lr * p.grad)

    assert passed(said(lesson07.check_sgd_step, switched_off))
    assert passed(said(lesson07.check_sgd_step, inference))


def test_07_demo_says_it_is_a_demo(said):
    def rebinding(params, lr):
        for p in params:
            p = p - lr * p.grad  # noqa: PLW2901

    out = said(lesson07.check_sgd_step, rebinding, True)
    assert out.startswith("Demo, not your answer") and "Stuck?" not in out


# --- 08: swish, any correct out-of-place version ----------------------------------------------


class _SwishFunction(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        s = x.sigmoid()
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad):
        x, s = ctx.saved_tensors
        return grad * (s + x * s * (1 - s))


def _clone_then_multiply(x):
    s = x.sigmoid().clone()
    s.mul_(x)
    return s


@pytest.mark.parametrize(
    "answer",
    [
        lambda x: x * x.sigmoid(),
        lambda x: F.silu(x),
        lambda x: mg.nn.SiLU()(x),
        lambda x: x / (1 + mg.exp(-x)),
        lambda x: x * (mg.tanh(x / 2) + 1) / 2,
        lambda x: _SwishFunction.apply(x),
        _clone_then_multiply,
    ],
    ids=["x*sigmoid", "F.silu", "nn.SiLU", "exp", "tanh", "custom Function", "clone"],
)
def test_08_right_swishes_written_differently_pass(said, answer):
    assert passed(said(lesson08.check_swish, answer))


def _numpy_write(x):
    s = x.sigmoid()
    values = s.detach().numpy()
    values *= x.detach().numpy()  # the version counter cannot see this write
    return s


CHEATS_08 = [
    (
        lambda x: (x * x.sigmoid()).detach() + 0 * x,
        ("x.grad is all zeros", "+ 0 * x"),
        ("x.grad 全是 0", "+ 0 * x"),
    ),
    (
        _numpy_write,
        ("hidden from autograd", ".detach().numpy()"),
        ("瞒过 autograd", ".detach().numpy()"),
    ),
]


@pytest.mark.parametrize(("answer", "en", "zh"), CHEATS_08, ids=["off the graph", "numpy"])
def test_08_lazy_swishes_get_their_own_message(said, answer, en, zh):
    both(said, lesson08.check_swish, answer, en, zh)


def test_08_real_pytorch_silu_is_named(said):
    torch = pytest.importorskip("torch")
    answer = lambda x: torch.nn.functional.silu(x)  # noqa: E731
    both(
        said,
        lesson08.check_swish,
        answer,
        ("real PyTorch function", "mg.nn.functional.silu"),
        ("真正的 PyTorch 函数", "mg.nn.functional.silu"),
    )


# --- 09: a clipping hook, on cases it has never seen -------------------------------------------


def _fits_the_first_cases(limit):
    def hook(grad):
        return mg.tensor([-2.0, 0.5, 2.0] if limit == 2.0 else [1.0, 0.1, -1.0])

    return hook


def _one_dimensional(limit):
    return lambda grad: mg.tensor([max(min(v, limit), -limit) for v in grad.tolist()])


@pytest.mark.parametrize(
    "answer", [_fits_the_first_cases, _one_dimensional], ids=["literal", "1-d only"]
)
def test_09_hooks_that_only_fit_the_first_cases_fail(said, answer):
    both(
        said,
        lesson09.check_clip_hook,
        answer,
        ("2×3 intermediate tensor", "any shape"),
        ("2×3 的中间张量", "任何形状"),
    )


@pytest.mark.parametrize(
    "answer",
    [
        lambda limit: lambda g: g.clamp(-limit, limit),
        lambda limit: lambda g: mg.clamp(g, min=-limit, max=limit),
        lambda limit: lambda g: g.clip(-limit, limit),
        lambda limit: lambda g: mg.where(g > limit, limit, mg.where(g < -limit, -limit, g)),
        lambda limit: lambda g: g.clone().clamp_(-limit, limit),
    ],
    ids=["clamp", "mg.clamp keywords", "clip", "where", "clone then clamp_"],
)
def test_09_right_hooks_written_differently_pass(said, answer):
    assert passed(said(lesson09.check_clip_hook, answer))
