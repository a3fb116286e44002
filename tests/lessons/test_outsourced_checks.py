"""Checks that see when something else differentiates (lessons 10, 11, 17), and the capstone's
training, checkpointing and penalty checks tied to the method (issue 23, red team round 2).

Each cheat gets its own words in English and in Chinese: a complex-step derivative, PyTorch's
autograd, forward-mode AD, a built-in node kept on ctx and called by hand inside a custom
Function's backward; a custom SafeNorm whose backward runs autograd.grad of the built-in norm, or
raises; a model trained by PyTorch with a dummy minigrad backward per step (or a product with
gradients brought from elsewhere, or the right gradients injected at the model's output); the
saved-tensor hooks pushed on minigrad's core around the meter, or saving switched off (nothing
recomputed). Correct answers keep passing: numpy's 1 - tanh², 1/cosh², a saved output, a custom
checkpoint Function, a penalty through func.grad (a second forward, said to be one).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from labkit import lesson10, lesson11, lesson17
from test_chinese_lessons import chinese_only

import minigrad as mg
from minigrad.autograd import Function

fw = mg.autograd.forward_ad


def passed(out: str) -> bool:
    return out.startswith("✓") and "Traceback" not in out


def failed_with(out: str, *words: str) -> bool:
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


def _function(forward, backward, name="Answer"):
    return type(
        name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    )


# --- lesson 10: ScaledTanh ----------------------------------------------------------------------


def _saves_x(ctx, x, scale):
    ctx.save_for_backward(x)
    ctx.scale = scale
    return x.tanh() * scale


def _complex_step(ctx, g):
    (x,) = ctx.saved_tensors
    xn = x.numpy().astype(np.complex128)
    h = 1e-30
    d = np.imag(ctx.scale * np.tanh(xn + 1j * h)) / h
    return g * mg.tensor(d, dtype=x.dtype), None


def _complex_step_inline(ctx, g):
    (x,) = ctx.saved_tensors
    d = np.imag(np.tanh(x.numpy() + 1e-30j)) / 1e-30
    return g * ctx.scale * mg.tensor(d, dtype=x.dtype), None


def _complex_step_attribute(ctx, g):
    (x,) = ctx.saved_tensors
    return g * ctx.scale * mg.tensor(np.tanh(x.numpy() + 1e-30j).imag / 1e-30), None


def _complex_step_array(ctx, g):
    (x,) = ctx.saved_tensors
    z = np.array(x.numpy(), dtype=complex) + 1e-30j
    return g * ctx.scale * mg.tensor(np.tanh(z).imag / 1e-30), None


def _through_torch(ctx, g):
    import torch

    (x,) = ctx.saved_tensors
    xt = torch.tensor(x.numpy(), requires_grad=True)
    (d,) = torch.autograd.grad(ctx.scale * xt.tanh(), xt, torch.tensor(g.numpy()))
    return mg.tensor(d.numpy()), None


def _torch_backward_method(ctx, g):
    import torch

    (x,) = ctx.saved_tensors
    xt = torch.tensor(x.numpy(), requires_grad=True)
    (ctx.scale * xt.tanh()).backward(torch.tensor(g.numpy()))
    return mg.tensor(xt.grad.numpy()), None


def _forward_mode(ctx, g):
    (x,) = ctx.saved_tensors
    with fw.dual_level():
        d = fw.unpack_dual(fw.make_dual(x, g).tanh() * ctx.scale).tangent
    return d, None


def _func_jvp(ctx, g):
    (x,) = ctx.saved_tensors
    _, d = mg.func.jvp(lambda z: z.tanh() * ctx.scale, (x,), (g,))
    return d, None


def _keeps_graph(ctx, x, scale):
    with mg.enable_grad():
        out = x.detach().requires_grad_().tanh() * scale
    ctx.node = out.grad_fn
    ctx.save_for_backward(x)
    return out.detach()


def _walks_kept_nodes(ctx, g):
    node = ctx.node
    while True:
        r = node(g)
        r = r if isinstance(r, tuple) else (r,)
        nxt = [(n, gi) for (n, _), gi in zip(node.next_functions, r, strict=False) if n is not None]
        n, gi = nxt[0]
        if type(n).__name__ == "AccumulateGrad":
            return gi, None
        node, g = n, gi


def _keeps_graph_in_closure(ctx, x, scale):
    with mg.enable_grad():
        out = x.detach().requires_grad_().tanh() * scale
    node = out.grad_fn
    ctx.run = lambda g: node(g)
    return out.detach()


def _numpy_formula(ctx, g):
    (x,) = ctx.saved_tensors
    t = np.tanh(x.numpy())
    return g * mg.tensor(ctx.scale * (1 - t**2), dtype=x.dtype), None


def _saves_output(ctx, x, scale):
    y = x.tanh() * scale
    ctx.save_for_backward(y)
    ctx.scale = scale
    return y


def _from_output(ctx, g):
    (y,) = ctx.saved_tensors
    return g * (ctx.scale - y * y / ctx.scale), None


CORRECT = {
    "1 - tanh² in numpy": _function(_saves_x, _numpy_formula),
    "1/cosh²": _function(
        _saves_x, lambda ctx, g: (g * ctx.scale / ctx.saved_tensors[0].cosh() ** 2, None)
    ),
    "from the saved output": _function(_saves_output, _from_output),
}

OUTSOURCED = {
    # name: (answer, English words, Chinese words)
    "complex step": (
        _function(_saves_x, _complex_step),
        ("complex-step derivative", "numerical method"),
        ("复步长求导", "数值方法"),
    ),
    "complex step in one line": (
        _function(_saves_x, _complex_step_inline),
        ("complex-step derivative",),
        ("复步长求导",),
    ),
    "complex step, .imag of one expression": (
        _function(_saves_x, _complex_step_attribute),
        ("complex-step derivative",),
        ("复步长求导",),
    ),
    "complex step, np.array(dtype=complex)": (
        _function(_saves_x, _complex_step_array),
        ("complex-step derivative",),
        ("复步长求导",),
    ),
    "torch.autograd.grad": (
        _function(_saves_x, _through_torch),
        ("PyTorch's autograd", "torch.autograd.grad"),
        ("PyTorch 的 autograd", "torch.autograd.grad"),
    ),
    "torch Tensor.backward": (
        _function(_saves_x, _torch_backward_method),
        ("PyTorch's autograd", "backward"),
        ("PyTorch 的 autograd",),
    ),
    "forward-mode AD": (
        _function(_saves_x, _forward_mode),
        ("dual level", "forward-mode AD"),
        ("对偶层", "前向模式"),
    ),
    "func.jvp": (
        _function(_saves_x, _func_jvp),
        ("dual level",),
        ("对偶层",),
    ),
    "graph kept on ctx": (
        _function(_keeps_graph, _walks_kept_nodes),
        ("graph nodes on ctx", "ctx.node"),
        ("计算图的节点留在了 ctx 上", "ctx.node"),
    ),
    "node in a closure on ctx": (
        _function(_keeps_graph_in_closure, lambda ctx, g: (ctx.run(g), None)),
        ("graph nodes on ctx", "ctx.run"),
        ("计算图的节点留在了 ctx 上", "ctx.run"),
    ),
}


@pytest.mark.parametrize("answer", CORRECT.values(), ids=CORRECT)
def test_10_correct_backwards_pass(said, answer):
    assert passed(said(lesson10.check_scaled_tanh, answer))


@pytest.mark.parametrize("name", OUTSOURCED)
def test_10_each_outsourced_derivative_is_named(said, name):
    answer, english, _ = OUTSOURCED[name]
    out = said(lesson10.check_scaled_tanh, answer)
    assert failed_with(out, *english), out


@pytest.mark.parametrize("name", OUTSOURCED)
def test_10_each_outsourced_derivative_is_named_in_chinese(chinese, said, name):
    answer, _, words = OUTSOURCED[name]
    out = said(lesson10.check_scaled_tanh, answer)
    assert out.startswith("✗ 缩放的 tanh（ScaledTanh）：还没对。") and all(
        w in out for w in words
    ), out
    chinese_only(out)


def test_10_an_inherited_backward_is_watched_too(said):
    base = OUTSOURCED["torch.autograd.grad"][0]
    child = type("Child", (base,), {})
    out = said(lesson10.check_scaled_tanh, child)
    assert failed_with(out, "PyTorch's autograd"), out
    assert "backward" not in child.__dict__


def test_10_numpy_is_numpy_again_after_the_check(said):
    said(lesson10.check_scaled_tanh, CORRECT["1 - tanh² in numpy"])
    assert type(mg.ones(2).numpy()) is np.ndarray


def test_10_watch_leaves_the_class_as_it_was(said):
    answer = OUTSOURCED["torch.autograd.grad"][0]
    backward = answer.__dict__["backward"]
    said(lesson10.check_scaled_tanh, answer)
    assert answer.__dict__["backward"] is backward
    import sys

    assert sys.gettrace() is None or "outsourced" not in repr(sys.gettrace())


# --- lesson 11: safe_norm -----------------------------------------------------------------------


class _NormThroughAutograd(Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return v.norm(dim=1)

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        with mg.enable_grad():
            vv = v.detach().requires_grad_()
            (d,) = mg.autograd.grad(vv.norm(dim=1), vv, g)
        return mg.where(d != d, 0.0, d)


class _NormForwardMode(Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return v.norm(dim=1)

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        cols = []
        for j in range(v.shape[1]):
            e = mg.zeros_like(v)
            e[:, j] = 1.0
            with fw.dual_level():
                t = fw.unpack_dual(fw.make_dual(v, e).norm(dim=1)).tangent
            cols.append(mg.where(t != t, 0.0, t))
        return g.unsqueeze(1) * mg.stack(cols, dim=1)


class _NormRaising(Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        s = (v * v).sum(dim=1)
        return mg.where(s > 0, s, 1.0).sqrt() * (s > 0)

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        return mg.linalg.no_such_op(v) * g


NORM_CASES = {
    "autograd.grad of the built-in norm": (
        _NormThroughAutograd.apply,
        ("backward pass of its own", "v / |v|"),
        ("又跑了一次反向传播", "v / |v|"),
    ),
    "forward mode of the built-in norm": (
        _NormForwardMode.apply,
        ("dual level",),
        ("对偶层",),
    ),
    "a backward that raises": (
        _NormRaising.apply,
        ("backward through your result raised AttributeError", "no_such_op", "Function's backward"),
        ("抛出了 AttributeError", "backward 里"),
    ),
}


@pytest.mark.parametrize("name", NORM_CASES)
def test_11_safe_norm_names_outsourced_or_failing_backwards(said, name):
    fn, english, _ = NORM_CASES[name]
    out = said(lesson11.check_safe_norm, fn)
    assert failed_with(out, *english), out


@pytest.mark.parametrize("name", NORM_CASES)
def test_11_safe_norm_names_them_in_chinese(chinese, said, name):
    fn, _, words = NORM_CASES[name]
    out = said(lesson11.check_safe_norm, fn)
    assert out.startswith("✗") and all(w in out for w in words), out
    chinese_only(out, "no_such_op")


class _SafeNormByHand(Function):
    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return (v * v).sum(dim=1).sqrt()

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        n = (v * v).sum(dim=1, keepdim=True).sqrt()
        return g.unsqueeze(1) * mg.where(n > 0, v / mg.where(n > 0, n, 1.0), 0.0)


def test_11_a_hand_written_safe_norm_function_passes(said):
    assert passed(said(lesson11.check_safe_norm, _SafeNormByHand.apply))


# --- lesson 17: SiLU ----------------------------------------------------------------------------


class _SiluForwardMode(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x.sigmoid()

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        with fw.dual_level():
            d = fw.unpack_dual(
                (lambda z: z * z.sigmoid())(fw.make_dual(x, mg.ones_like(x)))
            ).tangent
        return g * d


def test_17_silu_rejects_forward_mode_in_backward(said):
    out = said(lesson17.check_silu, _SiluForwardMode)
    assert failed_with(out, "dual level", "σ(x)·(1 + x·(1 − σ(x)))"), out


def test_17_silu_rejects_forward_mode_in_backward_in_chinese(chinese, said):
    out = said(lesson17.check_silu, _SiluForwardMode)
    assert out.startswith("✗ 把 SiLU 写成 Function") and "对偶层" in out, out
    chinese_only(out)


# --- lesson 17: the training script -------------------------------------------------------------


def _torch_trains(model, x, y, steps, lr, inject="dummy"):
    import torch

    ps = list(model.parameters())
    tp = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in ps]
    tx, ty = torch.tensor(x.numpy()), torch.tensor(y.numpy())
    opt = torch.optim.SGD(tp, lr=lr)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        logits = (torch.tanh(tx @ tp[0].T + tp[1]) @ tp[2].T + tp[3]).squeeze(1)
        logits.retain_grad()
        p = logits.sigmoid().clamp(1e-6, 1 - 1e-6)
        loss = -(ty * p.log() + (1 - ty) * (1 - p).log()).mean()
        loss.backward()
        for q in ps:
            q.grad = None
        if inject == "dummy":
            sum((q * 0).sum() for q in ps).backward()
        elif inject == "product":
            total = sum((q * mg.tensor(t.grad.numpy())).sum() for q, t in zip(ps, tp, strict=True))
            (total + 0 * model(x).sum()).backward()
        else:  # the right gradient injected at the model's output, through the model's nodes
            out = model(x).squeeze(1)
            (out * mg.tensor(logits.grad.numpy())).sum().backward()
        opt.step()
        losses.append(loss.item())
    with mg.no_grad():
        for q, t in zip(ps, tp, strict=True):
            q.copy_(mg.tensor(t.detach().numpy()))
    return losses


TRAIN_CHEATS = {
    "dummy backward per step": (
        "dummy",
        ("step 1", "without going through a forward of that step computed from x"),
        ("第 1 步", "没有经过这一步从 x 算出来的前向"),
    ),
    "product with brought gradients": (
        "product",
        ("not each step's loss backward", "step by step"),
        ("并不是每一步对损失做的 backward", "逐步比较"),
    ),
    "right gradient injected at the output": (
        "output",
        ("not each step's loss backward", "step by step"),
        ("并不是每一步对损失做的 backward", "逐步比较"),
    ),
}


@pytest.mark.parametrize("name", TRAIN_CHEATS)
def test_17_train_rejects_training_done_elsewhere(said, name):
    inject, english, _ = TRAIN_CHEATS[name]
    out = said(lesson17.check_train, lambda *a: _torch_trains(*a, inject=inject))
    assert failed_with(out, *english), out


@pytest.mark.parametrize("name", TRAIN_CHEATS)
def test_17_train_rejects_training_done_elsewhere_in_chinese(chinese, said, name):
    inject, _, words = TRAIN_CHEATS[name]
    out = said(lesson17.check_train, lambda *a: _torch_trains(*a, inject=inject))
    assert out.startswith("✗ 训练脚本") and all(w in out for w in words), out
    chinese_only(out)


@pytest.mark.parametrize("kind", ["clamp", "bce", "logits"])
def test_17_train_still_passes_correct_loops(said, kind):
    assert passed(said(lesson17.check_train, lesson17._fixed(kind)))


# --- lesson 17: checkpointed blocks -------------------------------------------------------------


def _core_hooks(blocks, x):
    from minigrad.core.saved import pop_hooks, push_hooks

    push_hooks(lambda t: t, lambda t: t)
    try:
        h = x
        for b in blocks:
            h = b(h)
    finally:
        pop_hooks()
    return h


def _pairs_appended(blocks, x):
    from minigrad.core.saved import HOOKS

    HOOKS.pairs.append((lambda t: t, lambda t: t))
    try:
        h = x
        for b in blocks:
            h = b(h)
    finally:
        HOOKS.pairs.pop()
    return h


def _saving_off(blocks, x):
    from minigrad.core.saved import SavedTensorHooks

    opened = SavedTensorHooks.open
    SavedTensorHooks.open = 0
    try:
        h = x
        for b in blocks:
            h = b(h)
    finally:
        SavedTensorHooks.open = opened
    return h


class _Ckpt(Function):
    @staticmethod
    def forward(ctx, block, h, *params):
        ctx.block = block
        ctx.save_for_backward(h)
        with mg.no_grad():
            return block(h)

    @staticmethod
    def backward(ctx, g):
        (h,) = ctx.saved_tensors
        with mg.enable_grad():
            hh = h.detach().requires_grad_()
            out = ctx.block(hh)
            grads = mg.autograd.grad(out, [hh, *ctx.block.parameters()], g)
        return (None, *grads)


def _own_checkpoint(blocks, x):
    h = x
    for b in blocks:
        h = _Ckpt.apply(b, h, *b.parameters())
    return h


BLOCK_CHEATS = {
    "push_hooks from minigrad.core": (
        _core_hooks,
        ("saved-tensor hooks of its own",),
        ("自己打开了保存张量的钩子",),
    ),
    "HOOKS.pairs appended": (
        _pairs_appended,
        ("saved-tensor hooks of its own",),
        ("自己打开了保存张量的钩子",),
    ),
    "saving switched off": (
        _saving_off,
        ("each block ran once", "nothing was recomputed"),
        ("每个块都只运行了一次", "没有任何重算"),
    ),
}


@pytest.mark.parametrize("name", BLOCK_CHEATS)
def test_17_checkpointed_sees_the_meter_bypassed(said, name):
    fn, english, _ = BLOCK_CHEATS[name]
    out = said(lesson17.check_checkpointed, fn)
    assert failed_with(out, *english), out


@pytest.mark.parametrize("name", BLOCK_CHEATS)
def test_17_checkpointed_sees_the_meter_bypassed_in_chinese(chinese, said, name):
    fn, _, words = BLOCK_CHEATS[name]
    out = said(lesson17.check_checkpointed, fn)
    assert out.startswith("✗") and all(w in out for w in words), out
    chinese_only(out)


def test_17_checkpointed_leaves_the_hooks_machinery_as_it_was(said):
    import minigrad.autograd.graph as graph
    import minigrad.core.saved as saved

    before = (graph.push_hooks, saved.push_hooks, saved.SavedTensor._pack)
    said(lesson17.check_checkpointed, _core_hooks)
    assert (graph.push_hooks, saved.push_hooks, saved.SavedTensor._pack) == before


def test_17_checkpointed_accepts_a_checkpoint_function_of_ones_own(said):
    out = said(lesson17.check_checkpointed, _own_checkpoint)
    assert passed(out) and "5 recomputed" in out, out


# --- lesson 17: the penalty ---------------------------------------------------------------------


def _penalty_func_grad(model, loss_fn, x, y, weight):
    x = x.detach().requires_grad_()
    loss = loss_fn(model(x), y)
    g = mg.func.grad(lambda z: loss_fn(model(z), y))(x.detach())
    return loss + weight * (g * g).sum()


def test_17_penalty_through_func_grad_passes_and_says_it_took_a_second_forward(said):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = said(lesson17.check_penalty, _penalty_func_grad)
    assert passed(out) and "second forward" in out and "one forward" not in out, out


def test_17_penalty_through_func_grad_in_chinese(chinese, said):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = said(lesson17.check_penalty, _penalty_func_grad)
    assert out.startswith("✓") and "第二次前向" in out, out
    chinese_only(out)
