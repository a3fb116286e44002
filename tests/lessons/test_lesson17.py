"""Lesson 17 (capstone): each part's check passes the solution and correct answers written
differently, and names every foreseeable bug or shortcut; the notebook's frame.

The wrong answers below are the ones a learner would write: a bug left in, a fix that hides the
bug from the engine (`.data`, `.detach()`, try/except), a numpy loss, finite differences, the
library doing the work, a detached penalty, a checkpoint around everything, hooks of one's own.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest
from labkit import feedback, lesson17

import minigrad as mg
from minigrad.utils.checkpoint import checkpoint, checkpoint_sequential

NB = Path(__file__).resolve().parents[2] / "notebooks"
F = mg.autograd.Function


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    """A failed check that names the problem (every word present) and offers no traceback."""
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


# --- part 1: the training script ------------------------------------------------------------------


def script(zero=True, broadcast=False, write="out_of_place", catch=False):
    """The colleague's script with any of its bugs left in, or fixed in a given way."""

    def train(model, x, y, steps, lr):
        opt = mg.optim.SGD(model.parameters(), lr=lr)
        losses = []
        for _ in range(steps):
            if zero:
                opt.zero_grad()
            p = model(x).sigmoid()
            if write == "in_place":
                p.clamp_(1e-6, 1 - 1e-6)
            elif write == "detach":
                p.detach().clamp_(1e-6, 1 - 1e-6)
            elif write == "data":
                p.data.clamp_(1e-6, 1 - 1e-6)
            elif write == "numpy":
                shared = p.detach().numpy()  # the same memory, out of the counter's sight
                np.clip(shared, 1e-6, 1 - 1e-6, out=shared)
            elif write == "out_of_place":
                p = p.clamp(1e-6, 1 - 1e-6)
            if not broadcast:
                p = p.squeeze(1)
            loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
            if catch:
                try:
                    loss.backward()
                except RuntimeError:
                    pass
            else:
                loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses

    return train


def unsqueezed_labels(model, x, y, steps, lr):
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    out = []
    for _ in range(steps):
        p = model(x).sigmoid().clamp(1e-6, 1 - 1e-6)
        y1 = y.unsqueeze(1)
        loss = -(y1 * p.log() + (1 - y1) * (1 - p).log()).mean()
        model.zero_grad()  # after the forward, before backward: as good
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def with_logits(model, x, y, steps, lr):
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = mg.nn.functional.binary_cross_entropy_with_logits(model(x).view(-1), y)
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def cloned(model, x, y, steps, lr):
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    out = []
    for _ in range(steps):
        for param in model.parameters():
            param.grad = None
        p = model(x).sigmoid().clone()
        p.clamp_(1e-6, 1 - 1e-6)  # in place on a copy nobody saved: fine
        p = p[:, 0]
        loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def numpy_loss(model, x, y, steps, lr):
    out = []
    for _ in range(steps):
        p = model(x).sigmoid().detach().numpy()[:, 0].clip(1e-6, 1 - 1e-6)
        t = y.numpy()
        out.append(float(-(t * np.log(p) + (1 - t) * np.log(1 - p)).mean()))
    return out


def detached_probability(model, x, y, steps, lr):
    opt = mg.optim.SGD(model.parameters(), lr=lr)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        p = model(x).sigmoid().detach().squeeze(1)
        p.clamp_(1e-6, 1 - 1e-6)
        loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


def no_step(model, x, y, steps, lr):
    out = []
    for _ in range(steps):
        model.zero_grad()
        p = model(x).sigmoid().clamp(1e-6, 1 - 1e-6).squeeze(1)
        loss = -(y * p.log() + (1 - y) * (1 - p).log()).mean()
        loss.backward()
        out.append(loss.item())
    return out


def other_lr(model, x, y, steps, lr):
    return script()(model, x, y, steps, lr * 2)


def notebook_data(model, x, y, steps, lr):
    return script()(model, mg.randn(1347, 64), y, steps, lr)


def script_stub(model, x, y, steps, lr): ...


@pytest.mark.parametrize("train", [script(), unsqueezed_labels, with_logits, cloned])
def test_17_train_passes_every_correct_fix(said, train):
    assert passed(said(lesson17.check_train, train))


TRAIN_SLIPS = [
    (script(write="in_place"), ("still changed in place", "Sigmoid")),
    (script(write="in_place", catch=True), ("still changed in place", "try/except")),
    (script(write="detach"), ("still changed in place", "`.detach()`")),
    (script(write="data"), ("behind the version counter", "`.data`", "gradient is wrong")),
    (script(write="numpy"), ("behind the version counter", "`.detach().numpy()`")),
    (script(write="none"), ("NaN", "clamp")),
    (script(broadcast=True), ("still broadcasts", "[23, 23]")),
    (script(zero=False), ("AccumulateGrad", "`opt.zero_grad()`")),
    (numpy_loss, ("no backward pass ran", "numpy")),
    (detached_probability, ("no graph", "`.detach()`")),
    (no_step, ("never changed", "`opt.step()`")),
    (other_lr, ("parameters differ", "three buggy lines")),
    (notebook_data, ("use only its arguments",)),
    (script_stub, ("still `...`",)),
    (..., ("still `...`",)),
]


@pytest.mark.parametrize("train, words", TRAIN_SLIPS)
def test_17_train_names_each_bug_and_each_way_of_hiding_it(said, train, words):
    assert failed_with(said(lesson17.check_train, train), *words)


def test_17_train_names_both_silent_bugs_when_both_are_left(said):
    out = said(lesson17.check_train, script(zero=False, broadcast=True))
    assert failed_with(out, "still broadcasts", "AccumulateGrad")


# --- part 2: SiLU as a Function -------------------------------------------------------------------


class Right(F):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x.sigmoid()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return grad * s * (1 + x * (1 - s))


class SavesOutput(F):  # another correct way: save the output too, recompute sigmoid
    @staticmethod
    def forward(ctx, x):
        y = x * mg.sigmoid(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        s = mg.sigmoid(x)
        return grad * (y + s * (1 - y))


class ExpForm(F):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + (-x).exp())

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = 1 / (1 + (-x).exp())
        return (s + x * s * (1 - s)) * grad


def _silu_forward(ctx, x):
    ctx.save_for_backward(x)
    return x * x.sigmoid()


class NoChainRule(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return s * (1 + x * (1 - s))


class SigmoidOnly(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.sigmoid()


class InNumpy(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        a = x.detach().numpy()
        s = 1 / (1 + np.exp(-a))
        return grad * mg.tensor(s * (1 + a * (1 - s)))


class BuiltinAutograd(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        with mg.enable_grad():
            leaf = x.detach().requires_grad_()
            (g,) = mg.autograd.grad(mg.nn.functional.silu(leaf), leaf, grad)
        return g


class CallsForward(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        h = 1e-6
        return (
            grad * (CallsForward.forward(ctx, x + h) - CallsForward.forward(ctx, x - h)) / (2 * h)
        )


class CallsBuiltinSilu(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        f, h = mg.nn.functional.silu, 1e-6
        return grad * (f(x + h) - f(x - h)) / (2 * h)


class QuotientInFloat64(F):  # a difference quotient done carefully: close, never exact
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        x, h = x.double(), 1e-4
        f = lambda t: t * t.sigmoid()  # noqa: E731
        return grad * ((f(x + h) - f(x - h)) / (2 * h)).to(grad.dtype)


class QuotientCoarse(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        h = 1e-4
        return grad * ((x + h) * (x + h).sigmoid() - (x - h) * (x - h).sigmoid()) / (2 * h)


class ThroughTorch(F):
    forward = staticmethod(_silu_forward)

    @staticmethod
    def backward(ctx, grad):
        import torch

        (x,) = ctx.saved_tensors
        leaf = torch.tensor(x.detach().numpy(), requires_grad=True)
        (g,) = torch.autograd.grad(torch.nn.functional.silu(leaf).sum(), leaf)
        return grad * mg.tensor(g.numpy())


class SavesSigmoid(F):  # right first derivative; the saved sigmoid is a constant to the second
    @staticmethod
    def forward(ctx, x):
        s = x.sigmoid()
        ctx.save_for_backward(x, s)
        return x * s

    @staticmethod
    def backward(ctx, grad):
        x, s = ctx.saved_tensors
        return grad * (s + x * s * (1 - s))


class OnCtx(F):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x.sigmoid()

    @staticmethod
    def backward(ctx, grad):
        s = ctx.x.sigmoid()
        return grad * s * (1 + ctx.x * (1 - s))


class Stubbed(F):
    @staticmethod
    def forward(ctx, x): ...

    @staticmethod
    def backward(ctx, grad): ...


class NotStatic(F):
    def forward(ctx, x):  # noqa: N805
        return x * x.sigmoid()


@pytest.mark.parametrize("cls", [Right, SavesOutput, ExpForm])
def test_17_silu_passes_every_correct_function(said, cls):
    assert passed(said(lesson17.check_silu, cls))


SILU_SLIPS = [
    (NoChainRule, ("gradcheck disagrees", "grad_out")),
    (SigmoidOnly, ("gradcheck disagrees", "product rule")),
    (InNumpy, ("gradgradcheck fails", "numpy")),
    (ThroughTorch, ("PyTorch's autograd", "torch.autograd.grad")),
    (BuiltinAutograd, ("backward pass of its own",)),
    (CallsForward, ("runs the forward again", "numerical differentiation")),
    (CallsBuiltinSilu, ("runs the forward again", "mg.nn.functional.silu")),
    (QuotientInFloat64, ("not exact", "difference")),
    (QuotientCoarse, ("not exact", "difference")),
    (SavesSigmoid, ("gradgradcheck fails", "computed inside forward")),
    (OnCtx, ("attributes", "save_for_backward")),
    (Stubbed, ("still `...`",)),
    (NotStatic, ("@staticmethod",)),
    (int, ("mg.autograd.Function",)),
    (..., ("still `...`",)),
]


@pytest.mark.parametrize("cls, words", SILU_SLIPS)
def test_17_silu_names_each_wrong_backward_and_each_shortcut(said, cls, words):
    assert failed_with(said(lesson17.check_silu, cls), *words)


def test_17_silu_check_leaves_the_class_and_the_library_as_they_were(said):
    forward, backward = Right.__dict__["forward"], Right.__dict__["backward"]
    silu = mg.nn.functional.silu
    said(lesson17.check_silu, Right)
    said(lesson17.check_silu, CallsBuiltinSilu)
    assert Right.__dict__["forward"] is forward and Right.__dict__["backward"] is backward
    assert mg.nn.functional.silu is silu


# --- part 3: the gradient penalty -----------------------------------------------------------------


def penalty(kind="right"):
    def penalized_loss(model, loss_fn, x, y, weight):
        if kind == "no_input_grad":
            loss = loss_fn(model(x), y)
            (g,) = mg.autograd.grad(loss, x, create_graph=True)
            return loss + weight * g.pow(2).sum()
        if kind == "in_place_flag":
            x.requires_grad_(True)
        else:
            x = x.detach().requires_grad_()
        loss = loss_fn(model(x), y)
        if kind == "backward":
            loss.backward(create_graph=True)
            g = x.grad
        else:
            (g,) = mg.autograd.grad(
                [loss], [x], create_graph=kind != "no_create_graph", retain_graph=True
            )
        pen = {
            "norm": lambda: g.norm(),
            "detach": lambda: g.pow(2).sum().detach(),
            "item": lambda: g.pow(2).sum().item(),
            "numpy": lambda: float((g.detach().numpy() ** 2).sum()),
            "norm_squared": lambda: g.norm() ** 2,
        }.get(kind, lambda: (g * g).sum())()
        return loss + (1.0 if kind == "unweighted" else weight) * pen

    return penalized_loss


def on_parameters(model, loss_fn, x, y, weight):
    loss = loss_fn(model(x), y)
    grads = mg.autograd.grad(loss, list(model.parameters()), create_graph=True)
    return loss + weight * sum(g.pow(2).sum() for g in grads)


def finite_differences(model, loss_fn, x, y, weight):
    loss = loss_fn(model(x), y)
    h, base = 1e-3, x.detach().numpy()
    g = np.zeros_like(base)
    with mg.no_grad():
        for idx in np.ndindex(*base.shape):
            up, down = base.copy(), base.copy()
            up[idx] += h
            down[idx] -= h
            g[idx] = loss_fn(model(mg.tensor(up)), y).item() - loss_fn(model(mg.tensor(down)), y)
            g[idx] /= 2 * h
    return loss + weight * float((g**2).sum())


def one_batched_difference(model, loss_fn, x, y, weight):
    """Finite differences with one forward of all nudged copies, kept differentiable."""
    n, d = x.shape
    h = 1e-2
    nudges = mg.eye(d).repeat(n, 1) * h
    xs = x.repeat_interleave(d, dim=0)
    logits = model(mg.cat([x, xs + nudges, xs - nudges]))
    loss = loss_fn(logits[:n], y)
    per = mg.nn.functional.cross_entropy(
        logits[n:], y.repeat_interleave(d).repeat(2), reduction="none"
    )
    g = (per[: n * d] - per[n * d :]) / (2 * h) / n
    return loss + weight * g.pow(2).sum()


def loss_only(model, loss_fn, x, y, weight):
    return loss_fn(model(x), y)


def penalty_stub(model, loss_fn, x, y, weight): ...


@pytest.mark.parametrize("fn", [penalty(), penalty("in_place_flag"), penalty("norm_squared")])
def test_17_penalty_passes_every_correct_way(said, fn):
    assert passed(said(lesson17.check_penalty, fn))


PENALTY_SLIPS = [
    (penalty("no_create_graph"), ("without create_graph=True", "adds nothing")),
    (penalty("detach"), ("detached", "zero")),
    (penalty("item"), ("detached", "zero")),
    (penalty("numpy"), ("detached", "zero")),
    (penalty("backward"), ("already have a `.grad`", "autograd.grad")),
    (penalty("norm"), ("norm, not its square",)),
    (penalty("unweighted"), ("not multiplied by weight",)),
    (penalty("no_input_grad"), ("requires grad", "requires_grad_()")),
    (on_parameters, ("with respect to the parameters",)),
    (finite_differences, ("finite differences",)),
    (one_batched_difference, ("no backward pass ran", "finite differences")),
    (loss_only, ("no backward pass ran",)),
    (penalty_stub, ("still `...`",)),
    (..., ("still `...`",)),
]


@pytest.mark.parametrize("fn, words", PENALTY_SLIPS)
def test_17_penalty_names_each_way_of_losing_the_second_order_graph(said, fn, words):
    assert failed_with(said(lesson17.check_penalty, fn), *words)


# --- part 4: checkpointed blocks ------------------------------------------------------------------


def per_block(blocks, x):
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=False)
    return h


def sequential_per_block(blocks, x):
    return checkpoint_sequential(mg.nn.Sequential(*blocks), len(blocks), x, use_reentrant=False)


def two_segments(blocks, x):
    return checkpoint_sequential(mg.nn.Sequential(*blocks), 2, x, use_reentrant=False)


def plain(blocks, x):
    for block in blocks:
        x = block(x)
    return x


def whole_chain(blocks, x):
    return checkpoint(lambda h: plain(blocks, h), x, use_reentrant=False)


def reentrant(blocks, x):
    h = x
    for block in blocks:
        h = checkpoint(block, h, use_reentrant=True)
    return h


def reentrant_by_default(blocks, x):
    h = x
    for block in blocks:
        h = checkpoint(block, h)  # use_reentrant left out: a warning, then the reentrant variant
    return h


def under_no_grad(blocks, x):
    with mg.no_grad():
        return plain(blocks, x)


def in_half(blocks, x):
    return per_block(blocks, x).half().float()


def dropping_hooks(blocks, x):
    with mg.autograd.graph.saved_tensors_hooks(lambda t: None, lambda p: None):
        return plain(blocks, x)


def compressing_hooks(blocks, x):
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.half(), lambda p: p.float()):
        return plain(blocks, x)


def detached_midway(blocks, x):
    h = x
    for i, block in enumerate(blocks):
        h = checkpoint(block, h, use_reentrant=False)
        if i == 1:
            h = h.detach()
    return h


def skips_the_last(blocks, x):
    return per_block(list(blocks)[:-1], x)


def backward_inside(blocks, x):
    out = per_block(blocks, x)
    out.sum().backward(retain_graph=True)
    return out


def blocks_stub(blocks, x): ...


@pytest.mark.parametrize("fn", [per_block, sequential_per_block])
def test_17_checkpointed_passes_per_block_checkpointing(said, fn):
    out = said(lesson17.check_checkpointed, fn)
    assert passed(out) and "recomputed block forwards" in out


CHECKPOINT_SLIPS = [
    (plain, ("over the budget", "each block ran once")),
    (whole_chain, ("over the budget", "during backward", "separately")),
    (two_segments, ("over the budget", "each one separately")),
    (reentrant, ("use_reentrant=True", "use_reentrant=False")),
    (reentrant_by_default, ("leave use_reentrant out", "use_reentrant=False")),
    (under_no_grad, ("no graph", "`no_grad()`")),
    (in_half, ("lower precision",)),
    (dropping_hooks, ("saved-tensor hooks of its own",)),
    (compressing_hooks, ("saved-tensor hooks of its own", "not checkpointing")),
    (detached_midway, ("got no gradient", "`.detach()`")),
    (skips_the_last, ("every block",)),
    (backward_inside, ("runs a backward pass itself",)),
    (blocks_stub, ("still `...`",)),
    (..., ("still `...`",)),
]


@pytest.mark.parametrize("fn, words", CHECKPOINT_SLIPS)
def test_17_checkpointed_names_each_way_of_missing_the_budget(said, fn, words):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = said(lesson17.check_checkpointed, fn)
    assert failed_with(out, *words)


def test_17_saved_bytes_meter_gives_back_what_the_graph_frees():
    w = mg.randn(4, 4, requires_grad=True)
    with lesson17.SavedBytes() as meter:
        loss = (mg.randn(8, 4) @ w).tanh().sum()
        held = meter.held
        loss.backward()
    assert held > 0 and meter.peak >= held and meter.held == 0


# --- the notebook's frame ------------------------------------------------------------------------


@pytest.fixture(scope="module", params=["", "zh"])
def notebook(request):
    return nbformat.read(NB / request.param / "17_capstone.ipynb", as_version=4)


def test_17_frame_imports_hint_and_solution_and_ends_with_summary_and_next(notebook):
    code = [c.source for c in notebook.cells if c.cell_type == "code"]
    assert re.search(r"from labkit import hint, lesson17, solution\b", code[0])
    last = [c.source for c in notebook.cells if c.cell_type == "markdown"][-1]
    assert last.splitlines()[0] in ("## Summary", "## 小结")
    closing = last.rstrip().split("\n\n")[-1]  # the last paragraph
    assert closing.startswith(("Next:", "下一课："))
    assert "(18_build_your_own_autograd.ipynb)" in closing  # lesson 18 follows on the map
    assert "next_steps.ipynb" in closing and "explorer_demo.ipynb" in closing


def test_17_the_four_parts_are_exercises_checked_in_order(notebook):
    calls = re.findall(r"lesson17\.(check_\w+)\(", "\n".join(c.source for c in notebook.cells))
    assert calls == ["check_train", "check_silu", "check_penalty", "check_checkpointed"]
    solutions = [c for c in notebook.cells if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) == 4


def test_17_no_wall_clock_no_lingering_hooks_no_clicking(notebook):
    code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    prose = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
    assert not re.search(r"\btime\.|perf_counter|seconds", code)
    assert code.count("register_post_accumulate_grad_hook") == 1 and "handle.remove()" in code
    assert "click" not in prose.lower() and "点击" not in prose and "内核" not in prose
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert outputs and not any(o.output_type == "error" for o in outputs)


def test_17_cells_after_an_exercise_wait_for_its_check_to_pass(said, monkeypatch):
    monkeypatch.setattr(feedback, "PASSED", set())
    with pytest.raises(lesson17.NotYet, match="the training script"):
        lesson17.needs(1)
    said(lesson17.check_train, script(zero=False))  # a failed check opens nothing
    with pytest.raises(lesson17.NotYet) as caught:
        lesson17.needs(1)
    assert caught.value._render_traceback_() == [str(caught.value)]  # no traceback shown
    assert passed(said(lesson17.check_train, script()))
    lesson17.needs(1)
    with pytest.raises(lesson17.NotYet, match="SiLU as a Function"):
        lesson17.needs(1, 2)
