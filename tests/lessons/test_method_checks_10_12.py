"""Lessons 10-12: the checks verify the method (issue 23), in English and in Chinese.

Each lazy answer a learner could write gets its own message: a custom backward that lets
autograd differentiate for it (autograd.grad, functional.jacobian, func.vjp, a built-in node
called on grad_out), finite differences (off by ~1e-11 in float64 where a formula is exact),
a gradient returned for a float argument (refused by PyTorch and minigrad alike), grad_out
ignored, the first test's numbers hard-coded (hidden inputs), a built-in norm, values computed
with numpy and joined to the graph by `* 0`, an epsilon big enough to change the norm, state
kept between calls, the engine's own walk called, and sequence numbers used for a topological
order (a graph where they are not one). Correct answers written differently pass: tanh' as
1/cosh², (1-t)(1+t), a custom SafeNorm Function (even one whose forward calls the built-in
norm), a tiny epsilon, Kahn's algorithm, a recursive count.
"""

from __future__ import annotations

import numpy as np
import pytest
from labkit import lesson10, lesson11, lesson12
from test_chinese_lessons import chinese_only

import minigrad as mg
from minigrad.autograd import Function


def passed(out: str) -> bool:
    return out.startswith("✓") and "Traceback" not in out


def failed_with(out: str, *words: str) -> bool:
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


def _function(forward, backward):
    return type(
        "Answer",
        (Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )


# --- 10: ScaledTanh ------------------------------------------------------------------------


def _saves_t(ctx, x, scale):
    t = x.tanh()
    ctx.save_for_backward(t)
    ctx.scale = scale
    return t * scale


def _saves_x(ctx, x, scale):
    ctx.save_for_backward(x)
    ctx.scale = scale
    return x.tanh() * scale


def _cosh(ctx, g):
    (x,) = ctx.saved_tensors
    return g * ctx.scale / x.cosh() ** 2, None


def _factored(ctx, g):
    (t,) = ctx.saved_tensors
    return g * ctx.scale * (1 - t) * (1 + t), None


def _tensor_for_scale(ctx, g):
    (t,) = ctx.saved_tensors
    return g * ctx.scale * (1 - t * t), mg.zeros(())


def _finite_differences(ctx, g):
    (x,) = ctx.saved_tensors
    h = 1e-5
    return g * ctx.scale * ((x + h).tanh() - (x - h).tanh()) / (2 * h), None


def _ignores_grad_out(ctx, g):
    (t,) = ctx.saved_tensors
    return ctx.scale * (1 - t * t), None


def _hard_coded_scale(ctx, g):
    (t,) = ctx.saved_tensors
    return g * 2.5 * (1 - t * t), None


def _autograd_inside(ctx, g):
    (x,) = ctx.saved_tensors
    with mg.enable_grad():
        leaf = x.detach().requires_grad_()
        (grad,) = mg.autograd.grad(leaf.tanh() * ctx.scale, leaf, g)
    return grad, None


def _jacobian_inside(ctx, g):
    (x,) = ctx.saved_tensors
    jac = mg.autograd.functional.jacobian(lambda z: z.tanh() * ctx.scale, x)
    return g @ jac, None


def _vjp_inside(ctx, g):
    (x,) = ctx.saved_tensors
    _, vjp = mg.func.vjp(lambda z: z.tanh() * ctx.scale, x)
    return vjp(g)[0], None


def _node_called(ctx, g):
    (x,) = ctx.saved_tensors
    with mg.enable_grad():
        y = x.detach().requires_grad_().tanh()
    return y.grad_fn(g * ctx.scale), None


CORRECT_TANH = {
    "1 - t*t": _function(
        _saves_t, lambda ctx, g: (g * ctx.scale * (1 - ctx.saved_tensors[0] ** 2), None)
    ),
    "1/cosh²": _function(_saves_x, _cosh),
    "(1-t)(1+t)": _function(_saves_t, _factored),
}

LAZY_TANH = {
    # name: (answer, English words, Chinese words)
    "tensor for the float": (
        _function(_saves_t, _tensor_for_scale),
        ("gradient for `scale`", "PyTorch refuses", "not a Variable", "return None"),
        ("普通的 float", "PyTorch 和 minigrad 一样会拒绝", "返回 None"),
    ),
    "finite differences": (
        _function(_saves_x, _finite_differences),
        ("finite-difference", "1e-16"),
        ("有限差分", "1e-16"),
    ),
    "grad_out ignored": (
        _function(_saves_t, _ignores_grad_out),
        ("ignores `grad_out`", "chain rule"),
        ("没有用到 `grad_out`", "链式法则"),
    ),
    "2.5 hard-coded": (
        _function(_saves_t, _hard_coded_scale),
        ("multiplies by 2.5", "ctx.scale"),
        ("2.5", "ctx.scale"),
    ),
    "autograd.grad inside": (
        _function(_saves_x, _autograd_inside),
        ("backward pass of its own",),
        ("又跑了一次反向传播",),
    ),
    "functional.jacobian inside": (
        _function(_saves_x, _jacobian_inside),
        ("backward pass of its own",),
        ("又跑了一次反向传播",),
    ),
    "func.vjp inside": (
        _function(_saves_x, _vjp_inside),
        ("backward pass of its own",),
        ("又跑了一次反向传播",),
    ),
    "a built-in node called": (
        _function(_saves_x, _node_called),
        ("built-in op's backward node",),
        ("内置运算的反向节点",),
    ),
}


def test_10_pytorch_refuses_a_gradient_for_a_float_argument_as_the_check_says():
    """The message quotes PyTorch's own refusal: the same class and words in both libraries."""
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (torch, mg):

        class Scaled(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, scale):
                ctx.scale = scale
                return x * scale

            @staticmethod
            def backward(ctx, g):
                return g * ctx.scale, g.sum()

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError) as err:
            Scaled.apply(x, 2.5).sum().backward()
        seen.append(str(err.value))
    assert seen[0] == seen[1]
    assert "at position 2, but the corresponding forward input was not a Variable" in seen[0]


# --- 10: SignSTE ---------------------------------------------------------------------------


def _sign(ctx, x):
    ctx.save_for_backward(x)
    return mg.where(x >= 0, 1.0, -1.0)


def _sign_arith(ctx, x):
    ctx.save_for_backward(x)
    return (x >= 0).float() * 2 - 1


def _hardtanh_differences(ctx, g):
    (x,) = ctx.saved_tensors
    h = 1e-3
    return g * ((x + h).clamp(-1, 1) - (x - h).clamp(-1, 1)) / (2 * h)


def _hardtanh_autograd(ctx, g):
    (x,) = ctx.saved_tensors
    with mg.enable_grad():
        leaf = x.detach().requires_grad_()
        return mg.autograd.grad(mg.nn.functional.hardtanh(leaf), leaf, g)[0]


def _copied_mask(ctx, g):
    return g * mg.tensor([0.0, 1.0, 1.0, 1.0, 1.0, 0.0])


CORRECT_SIGN = {
    "mask product": _function(_sign, lambda ctx, g: g * (ctx.saved_tensors[0].abs() <= 1)),
    "where": _function(
        _sign_arith, lambda ctx, g: mg.where(ctx.saved_tensors[0].abs() > 1, 0.0, g)
    ),
}

LAZY_SIGN = {
    "finite differences of hardtanh": (
        _function(_sign, _hardtanh_differences),
        ("half its gradient", "finite difference"),
        ("一半的梯度", "有限差分"),
    ),
    "autograd of hardtanh": (
        _function(_sign, _hardtanh_autograd),
        ("backward pass of its own",),
        ("又跑了一次反向传播",),
    ),
    "the first test's mask copied": (
        _function(_sign, _copied_mask),
        ("with other inputs",),
        ("换一组输入",),
    ),
}


# the two custom-Function exercises of lesson 10: check, right answers, lazy ones, Chinese title
FUNCTION_CHECKS = {
    "scaled_tanh": (
        lesson10.check_scaled_tanh,
        CORRECT_TANH,
        LAZY_TANH,
        "缩放的 tanh（ScaledTanh）",
    ),
    "sign_ste": (lesson10.check_sign_ste, CORRECT_SIGN, LAZY_SIGN, "带直通估计器的符号函数"),
}
CORRECT_CASES = [
    pytest.param(check, answer, id=f"{exercise}-{name}")
    for exercise, (check, correct, _, _) in FUNCTION_CHECKS.items()
    for name, answer in correct.items()
]
LAZY_CASES = [
    pytest.param(check, *lazy[name], title, id=f"{exercise}-{name}")
    for exercise, (check, _, lazy, title) in FUNCTION_CHECKS.items()
    for name in lazy
]


@pytest.mark.parametrize(("check", "answer"), CORRECT_CASES)
def test_10_function_checks_accept_correct_answers_written_differently(said, check, answer):
    assert passed(said(check, answer))


@pytest.mark.parametrize(("check", "answer", "english", "words", "title"), LAZY_CASES)
def test_10_function_checks_name_each_lazy_answer(said, check, answer, english, words, title):
    out = said(check, answer)
    assert failed_with(out, *english), out


@pytest.mark.parametrize(("check", "answer", "english", "words", "title"), LAZY_CASES)
def test_10_function_checks_name_each_lazy_answer_in_chinese(
    chinese, said, check, answer, english, words, title
):
    out = said(check, answer)
    assert out.startswith(f"✗ {title}：还没对。") and all(w in out for w in words)
    chinese_only(out)


# --- 11 --------------------------------------------------------------------------------------


class SafeNorm(Function):
    """A correct custom Function: the norm in forward, a backward that is 0 at a zero row."""

    @staticmethod
    def forward(ctx, v):
        n = (v * v).sum(dim=1).sqrt()
        ctx.save_for_backward(v, n)
        return n

    @staticmethod
    def backward(ctx, g):
        v, n = ctx.saved_tensors
        return g.unsqueeze(1) * v / mg.where(n > 0, n, 1.0).unsqueeze(1)


class SafeNormBuiltInForward(SafeNorm):
    """Also correct: forward may use the built-in norm, since the backward is written by hand."""

    @staticmethod
    def forward(ctx, v):
        n = v.norm(dim=1)
        ctx.save_for_backward(v, n)
        return n


def _double_where(v):
    s = (v * v).sum(dim=1)
    positive = s > 0
    return mg.where(positive, mg.where(positive, s, 1.0).sqrt(), 0.0)


def _masked_fill(v):
    s = v.pow(2).sum(1)
    zero = s == 0
    return s.masked_fill(zero, 1.0).sqrt().masked_fill(zero, 0.0)


CORRECT_NORM = {
    "double where": _double_where,
    "masked_fill": _masked_fill,
    "tiny epsilon": lambda v: ((v * v).sum(1) + 1e-12).sqrt(),
    "custom Function": SafeNorm.apply,
    "custom Function, built-in norm in forward": SafeNormBuiltInForward.apply,
}

LAZY_NORM = {
    "linalg.vector_norm": (
        lambda v: mg.linalg.vector_norm(v, dim=1),
        ("built-in norm", "LinalgVectorNormBackward0", "autograd.Function"),
        ("内置的范数", "LinalgVectorNormBackward0"),
    ),
    "normalize times v": (
        lambda v: (mg.nn.functional.normalize(v, dim=1) * v).sum(1),
        ("built-in norm",),
        ("内置的范数",),
    ),
    "numpy joined by * 0": (
        lambda v: mg.tensor(np.linalg.norm(v.detach().numpy(), axis=1)) + v.sum() * 0,
        ("every gradient is 0", "numpy"),
        ("所有梯度都是 0", "numpy"),
    ),
    "a big epsilon": (
        lambda v: ((v * v).sum(1) + 1e-8).sqrt(),
        ("not 0", "epsilon"),
        ("而不是 0", "epsilon"),
    ),
    "the first test's norms copied": (
        lambda v: mg.tensor([5.0, 0.0, 2**0.5]) + (v * v).sum(1) * 0,
        ("every gradient is 0",),
        ("所有梯度都是 0",),
    ),
    "values right for the first test only": (
        lambda v: _double_where(v[:, :2] if v.dtype == mg.float32 else v[:, :1]),
        ("on other rows",),
        ("换成其他行",),
    ),
}


@pytest.mark.parametrize("answer", CORRECT_NORM.values(), ids=CORRECT_NORM)
def test_11_safe_norm_accepts_correct_answers_including_a_custom_function(said, answer):
    out = said(lesson11.check_safe_norm, answer)
    assert passed(out), out


@pytest.mark.parametrize("name", LAZY_NORM)
def test_11_safe_norm_names_each_lazy_answer(said, name):
    answer, english, _ = LAZY_NORM[name]
    out = said(lesson11.check_safe_norm, answer)
    assert failed_with(out, *english), out


@pytest.mark.parametrize("name", LAZY_NORM)
def test_11_safe_norm_names_each_lazy_answer_in_chinese(chinese, said, name):
    answer, _, words = LAZY_NORM[name]
    out = said(lesson11.check_safe_norm, answer)
    assert out.startswith("✗ 不出 NaN 的范数：还没对。") and all(w in out for w in words), out
    chinese_only(out, *words)


def _copied_names(model):
    return ["unused.weight", "unused.bias", "detached.weight", "detached.bias"]


def test_11_params_without_grad_sees_through_names_copied_from_the_first_model(said):
    right = said(
        lesson11.check_params_without_grad,
        lambda m: [n for n, p in m.named_parameters() if p.grad is None],
    )
    assert passed(right)
    out = said(lesson11.check_params_without_grad, _copied_names)
    assert failed_with(out, "second model", "'gate'", "'shift'", "`.grad is None`"), out


def test_11_params_without_grad_copied_names_in_chinese(chinese, said):
    out = said(lesson11.check_params_without_grad, _copied_names)
    assert out.startswith("✗ 找出没有梯度的参数：还没对。") and "换一个模型" in out
    chinese_only(out)


# --- 12 --------------------------------------------------------------------------------------


def _count(root):
    counts, explored, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            counts[nxt] = counts.get(nxt, 0) + 1
            if nxt not in explored:
                explored.add(nxt)
                stack.append(nxt)
    return counts


def _recursive_count(root, counts=None, seen=None):
    counts = {root: 0} if counts is None else counts
    seen = set() if seen is None else seen
    seen.add(root)
    for nxt, _ in root.next_functions:
        if nxt is not None:
            counts[nxt] = counts.get(nxt, 0) + 1
            if nxt not in seen:
                _recursive_count(nxt, counts, seen)
    return counts


SHARED: dict = {}


def _count_into_a_shared_dict(root):
    SHARED.setdefault(root, 0)
    seen, stack = {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is not None:
                SHARED[nxt] = SHARED.get(nxt, 0) + 1
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
    return SHARED


def _count_unique_edges(root):
    """Counts (node, input_nr) pairs instead of edges: a * a's two edges become one."""
    counts, explored, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in set(node.next_functions):
            if nxt is None:
                continue
            counts[nxt] = counts.get(nxt, 0) + 1
            if nxt not in explored:
                explored.add(nxt)
                stack.append(nxt)
    return counts


def _post_order(root):
    post, done = [], set()

    def visit(node):
        done.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in done:
                visit(nxt)
        post.append(node)

    visit(root)
    return post[::-1]


def _kahn(root):
    counts, order, ready = _count(root), [], [root]
    while ready:
        node = ready.pop()
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] -= 1
                if counts[nxt] == 0:
                    ready.append(nxt)
    return order


def _reachable(root):
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack.extend(n for n, _ in node.next_functions)
    return seen


def _by_hidden_sequence_number(root):
    """Sorts by sequence number, reaching the method by a name the check cannot read."""
    number = getattr
    nodes = _reachable(root)
    leaves = [n for n in nodes if hasattr(n, "variable")]
    inner = [n for n in nodes if not hasattr(n, "variable")]
    return sorted(inner, key=lambda n: -number(n, "_sequence" + "_nr")()) + leaves


DONE: set = set()


def _order_with_a_shared_set(root):
    post = []

    def visit(node):
        DONE.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in DONE:
                visit(nxt)
        post.append(node)

    visit(root)
    return post[::-1]


@pytest.mark.parametrize("answer", [_count, _recursive_count], ids=["stack", "recursive"])
def test_12_count_dependencies_accepts_both_walks(said, answer):
    assert passed(said(lesson12.check_count_dependencies, answer))


@pytest.mark.parametrize("answer", [_post_order, _kahn], ids=["post-order", "Kahn"])
def test_12_topological_order_accepts_both_algorithms(said, answer):
    assert passed(said(lesson12.check_topological_order, answer))


def _engine_counts(root):
    from minigrad.autograd.engine import compute_dependencies

    counts, _ = compute_dependencies([root])
    return {root: 0, **counts}


def _engine_order(root):
    from minigrad.autograd.engine import compute_dependencies

    return compute_dependencies([root])[1]


LAZY_12 = {
    "the engine's own counts": (
        lesson12.check_count_dependencies,
        _engine_counts,
        ("library's own graph code", "compute_dependencies"),
        ("库自己的计算图代码", "compute_dependencies"),
    ),
    "the engine's own walk": (
        lesson12.check_topological_order,
        _engine_order,
        ("library's own graph code", "compute_dependencies"),
        ("库自己的计算图代码", "compute_dependencies"),
    ),
    "counts kept between calls": (
        lesson12.check_count_dependencies,
        _count_into_a_shared_dict,
        ("second graph", "keeps state between calls"),
        ("第二个计算图", "保留了状态"),
    ),
    "one count per (node, slot)": (
        lesson12.check_count_dependencies,
        _count_unique_edges,
        ("each (node, input_nr) pair once", "`a * a`", "every entry"),
        ("只数了一次", "`a * a`"),
    ),
    "sequence numbers under another name": (
        lesson12.check_topological_order,
        _by_hidden_sequence_number,
        ("sequence-number order", "AsStridedBackward0", "next_functions alone"),
        ("序号顺序", "AsStridedBackward0"),
    ),
    "visited set kept between calls": (
        lesson12.check_topological_order,
        _order_with_a_shared_set,
        ("called a second time", "keeps state"),
        ("再调用一次", "保留了状态"),
    ),
}


@pytest.mark.parametrize("name", LAZY_12)
def test_12_names_each_lazy_answer(said, name):
    check, answer, english, _ = LAZY_12[name]
    SHARED.clear()
    DONE.clear()
    out = said(check, answer)
    assert failed_with(out, *english), out


@pytest.mark.parametrize("name", LAZY_12)
def test_12_names_each_lazy_answer_in_chinese(chinese, said, name):
    check, answer, _, words = LAZY_12[name]
    SHARED.clear()
    DONE.clear()
    out = said(check, answer)
    assert out.startswith("✗ ") and "还没对。" in out and all(w in out for w in words), out
    chinese_only(out)


def test_12_the_second_graph_is_one_where_sequence_numbers_mislead():
    """The check's claim, in PyTorch too: the re-derived view's node is numbered after the exp
    that sends it a gradient, so newest-first is not a topological order there."""
    torch = pytest.importorskip("torch")
    for lib in (torch, mg):
        x = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
        h = x * 1
        window = h[:2]
        with lib.no_grad():
            h.add_(0.5)
        e = window.exp()
        view_node = e.grad_fn.next_functions[0][0]
        assert view_node.name() == "AsStridedBackward0"
        assert view_node._sequence_nr() > e.grad_fn._sequence_nr()
