"""Lesson 19 (autograd at scale): both checks pass the solutions and other correct answers, on
problems drawn per call, and name every foreseeable shortcut; the shared tools; the notebook.

The wrong answers are the ones a learner would write: a hook per parameter that ignores the
buckets, one reduction for everything at the end, ranks averaged without the collective, the
average done on leaving `no_sync`, gradients copied in, a `no_sync` that does nothing or leaves
the counts wrong, a backward run inside the hooks; GradScaler itself, no scaling, no unscaling,
clipping before unscaling, no inf check, a wrong return value.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from pathlib import Path

import nbformat
import numpy as np
import pytest
from labkit import feedback, lesson19
from labkit.lesson19_amp import check_scaled_step
from labkit.lesson19_ddp import _Problem, all_reduce, buckets_of, check_reducer

import minigrad as mg

NB = Path(__file__).resolve().parents[2] / "notebooks"
SEEDS = [0, 1, 2]


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    """A failed check that names the problem (every word present) and offers no traceback."""
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


# --- part 1: the bucketed reducer ---------------------------------------------------------------


class Reducer:
    """The lesson's solution."""

    def __init__(self, replicas, cap, all_reduce):
        self.replicas, self.all_reduce, self.sync = replicas, all_reduce, True
        self.params = [list(m.parameters()) for m in replicas]
        self.buckets = buckets_of(self.params[0], cap)
        self.bucket_of = {i: b for b, bucket in enumerate(self.buckets) for i in bucket}
        self.arrived = [0] * len(self.buckets)
        for params in self.params:
            for i, p in enumerate(params):
                p.register_post_accumulate_grad_hook(lambda p, i=i: self.ready(i, p))

    def ready(self, i, p):
        if not self.sync:
            return
        b = self.bucket_of[i]
        self.arrived[b] += 1
        if self.arrived[b] == len(self.buckets[b]) * len(self.replicas):
            self.arrived[b] = 0
            self.reduce(b)

    def reduce(self, b):
        self.all_reduce([[params[j].grad for j in self.buckets[b]] for params in self.params])

    @contextmanager
    def no_sync(self):
        self.sync = False
        try:
            yield
        finally:
            self.sync = True


class OwnBuckets(Reducer):
    """Correct too: its own buckets (DDP's rule, written as the shortest run of parameters, last
    first, that reaches the cap), not `buckets_of`'s."""

    def __init__(self, replicas, cap, all_reduce):
        super().__init__(replicas, cap, all_reduce)
        left, self.buckets = list(reversed(range(len(self.params[0])))), []
        while left:
            sizes = [self.params[0][i].numel() for i in left]
            take = next((n for n in range(1, len(left) + 1) if sum(sizes[:n]) >= cap), len(left))
            self.buckets.append(left[:take])
            left = left[take:]
        self.bucket_of = {i: b for b, bucket in enumerate(self.buckets) for i in bucket}


class PerParameter(Reducer):
    """Reduces each parameter as soon as every rank has it: no buckets."""

    def ready(self, i, p):
        if not self.sync:
            return
        self.count = getattr(self, "count", {})
        self.count[i] = self.count.get(i, 0) + 1
        if self.count[i] == len(self.replicas):
            self.count[i] = 0
            self.all_reduce([[params[i].grad] for params in self.params])


class AllAtTheEnd(Reducer):
    """Waits for the last gradient of the whole model, then reduces every bucket."""

    def ready(self, i, p):
        if not self.sync:
            return
        self.seen = getattr(self, "seen", 0) + 1
        if self.seen == len(self.bucket_of) * len(self.replicas):
            self.seen = 0
            for b in range(len(self.buckets)):
                self.reduce(b)


class ReadsOtherRanks(Reducer):
    """Averages the ranks' .grad directly: ranks meet outside the collective."""

    def reduce(self, b):
        all_reduce([[params[j].grad for j in self.buckets[b]] for params in self.params])


class OnLeavingNoSync(Reducer):
    """Averages everything when no_sync ends: after backward returned."""

    @contextmanager
    def no_sync(self):
        self.sync = False
        yield
        self.sync = True
        for b in range(len(self.buckets)):
            self.reduce(b)


class NoSyncDoesNothing(Reducer):
    @contextmanager
    def no_sync(self):
        yield


class CountsDuringNoSync(Reducer):
    """Skips the call under no_sync but keeps counting: the next step reduces too early."""

    def ready(self, i, p):
        b = self.bucket_of[i]
        self.arrived[b] += 1
        if self.sync and self.arrived[b] >= len(self.buckets[b]) * len(self.replicas):
            self.arrived[b] = 0
            self.reduce(b)


class CopiesAReference(Reducer):
    """Writes a gradient of its own (computed elsewhere) into .grad before reducing."""

    def ready(self, i, p):
        with mg.no_grad():
            p.grad.copy_(mg.ones_like(p.grad) * 0.01)
        super().ready(i, p)


class RecomputesInHooks(Reducer):
    """Runs a forward and backward of its own inside a hook."""

    def ready(self, i, p):
        if i == 0:
            with mg.enable_grad():
                w = mg.ones(2, requires_grad=True)
                mg.autograd.grad((w * w).sum(), w)
        super().ready(i, p)


class MixedOrder(Reducer):
    """Hands each rank's list in a different order."""

    def reduce(self, b):
        lists = [[params[j].grad for j in self.buckets[b]] for params in self.params]
        lists[0] = lists[0][::-1]
        self.all_reduce(lists)


class ReducesWhileBuilding(Reducer):
    def __init__(self, replicas, cap, all_reduce):
        super().__init__(replicas, cap, all_reduce)
        all_reduce([[p.grad for p in m.parameters()] for m in replicas])


class NoNoSync:
    def __init__(self, replicas, cap, all_reduce):
        pass


class StubReducer:
    """What a learner's copy holds before the exercise is done."""

    def __init__(self, replicas, cap, all_reduce): ...

    def ready(self, i): ...

    @contextmanager
    def no_sync(self): ...


class Raises(Reducer):
    def ready(self, i, p):
        raise KeyError(i)


REDUCER_SLIPS = [
    (PerParameter, ("One call per parameter ignores the buckets",)),
    (AllAtTheEnd, ("reduced late", "Waiting for the whole backward")),
    (ReadsOtherRanks, ("all_reduce was never called", "reading each other's .grad")),
    (OnLeavingNoSync, ("while no backward pass was running",)),
    (NoSyncDoesNothing, ("all_reduce ran inside no_sync",)),
    (CountsDuringNoSync, ("after two no_sync micro-steps", "before every rank had written")),
    (CopiesAReference, ("not the ranks' own gradients",)),
    (RecomputesInHooks, ("ran a forward or a backward pass of their own",)),
    (MixedOrder, ("not the same parameters in the same order",)),
    (ReducesWhileBuilding, ("while the reducer was being built",)),
    (NoNoSync, ("no `no_sync()` method",)),
    (Raises, ("raised KeyError",)),
    (StubReducer, ("all_reduce was never called",)),
    (..., ("still `...`",)),
]


def test_unseen_problems_vary_and_have_real_buckets():
    problems = [_Problem(np.random.default_rng(s)) for s in range(12)]
    assert len({(tuple(p.widths), p.k, p.cap) for p in problems}) > 6
    for p in problems:
        assert len(p.buckets) >= 2 and max(map(len, p.buckets)) >= 2


def test_buckets_follow_ddps_rule_and_all_reduce_averages():
    sizes = [96, 16, 256, 16, 48, 3]
    params = [mg.zeros(n) for n in sizes]
    assert buckets_of(params, 60) == [[5, 4, 3], [2], [1, 0]]
    assert buckets_of(params, 10_000) == [[5, 4, 3, 2, 1, 0]]
    a, b = [mg.tensor([1.0, 2.0])], [mg.tensor([3.0, 6.0])]
    all_reduce([a, b])
    assert a[0].tolist() == b[0].tolist() == [2.0, 4.0]


# --- part 2: the loss-scaled step --------------------------------------------------------------


def scaled_step(loss, model, opt, scale, max_norm):
    """The lesson's solution."""
    (loss * scale).backward()
    params = [p for p in model.parameters() if p.grad is not None]
    finite = all(p.grad.isfinite().all().item() for p in params)
    with mg.no_grad():
        for p in params:
            p.grad.div_(scale)
    if not finite:
        return False
    mg.nn.utils.clip_grad_norm_(params, max_norm)
    opt.step()
    return True


def inf_from_the_norm(loss, model, opt, scale, max_norm):
    """Correct too: multiply by the reciprocal, and read the inf off clip's total norm."""
    (loss * scale).backward()
    with mg.no_grad():
        for p in model.parameters():
            p.grad.mul_(1.0 / scale)
    norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    if not bool(norm.isfinite().item()):
        return False
    opt.step()
    return True


def with_minigrads_scaler(loss, model, opt, scale, max_norm):
    scaler = mg.amp.GradScaler("cpu", init_scale=scale)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    return scaler.step(opt) is not None or True


def with_torchs_scaler(loss, model, opt, scale, max_norm):
    import torch

    torch.amp.GradScaler("cpu", init_scale=scale)
    return scaled_step(loss, model, opt, scale, max_norm)


def variant(mistake):
    def step(loss, model, opt, scale, max_norm):
        params = list(model.parameters())
        (loss if mistake == "no_scale" else loss * scale).backward()
        finite = all(p.grad.isfinite().all().item() for p in params)
        if mistake == "clip_first":
            mg.nn.utils.clip_grad_norm_(params, max_norm)
        with mg.no_grad():
            for p in params:
                if mistake not in ("no_scale", "no_unscale"):
                    p.grad.div_(scale)
        if not finite and mistake != "no_inf_check":
            return False
        if mistake != "clip_first":
            mg.nn.utils.clip_grad_norm_(params, max_norm)
        opt.step()
        return None if mistake == "no_return" else True

    return step


def stub(loss, model, opt, scale, max_norm):
    """What a learner's copy holds before the exercise is done."""


def raises(loss, model, opt, scale, max_norm):
    raise ValueError("oops")


SCALED_SLIPS = [
    (with_minigrads_scaler, ("GradScaler.__init__", "without GradScaler")),
    (with_torchs_scaler, ("called GradScaler", "without GradScaler")),
    (variant("no_scale"), ("UNSCALED loss", "underflowed")),
    (variant("no_unscale"), ("never divided by the scale",)),
    (variant("clip_first"), ("clipped BEFORE unscaling",)),
    (variant("no_inf_check"), ("stepped anyway", "isfinite")),
    (variant("no_return"), ("returned None",)),
    (raises, ("raised ValueError: oops",)),
    (stub, ("did not move",)),
    (..., ("still `...`",)),
]


# --- both checks, on problems drawn from each seed -------------------------------------------

CORRECT = [(check_reducer, Reducer), (check_reducer, OwnBuckets)]
CORRECT += [(check_scaled_step, scaled_step), (check_scaled_step, inf_from_the_norm)]
SLIPS = [(check_reducer, *slip) for slip in REDUCER_SLIPS]
SLIPS += [(check_scaled_step, *slip) for slip in SCALED_SLIPS]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("check, answer", CORRECT)
def test_each_check_accepts_correct_answers(said, seed, check, answer):
    out = said(check, answer, gen=np.random.default_rng(seed))
    assert passed(out), out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("check, answer, words", SLIPS)
def test_each_check_names_each_shortcut(said, seed, check, answer, words):
    out = said(check, answer, gen=np.random.default_rng(seed))
    assert failed_with(out, *words), out


def test_the_reference_is_torchs_grad_scaler():
    """The check's reference (minigrad's GradScaler) steps as torch.amp.GradScaler does, on a
    float16 forward whose small gradients underflow unscaled, and skips the overflowing step."""
    import torch
    from labkit.lesson19_amp import _Case, _params, _variant

    case = _Case(np.random.default_rng(5))
    case.lr = 1e5
    model, _, _ = case.setup()
    twin = torch.nn.Sequential(
        torch.nn.Linear(case.d, case.h), torch.nn.Tanh(), torch.nn.Linear(case.h, 1)
    )
    with torch.no_grad():
        for mine, theirs in zip(model.parameters(), twin.parameters(), strict=True):
            theirs.copy_(torch.tensor(mine.detach().numpy()))
    for scale, stepped_want in ((2.0**16, True), (2.0**60, False)):
        want, stepped = _variant(case, scale, 1e-6, "right")
        twin_copy = [p.detach().clone() for p in twin.parameters()]
        opt = torch.optim.SGD(twin.parameters(), lr=case.lr, momentum=0.9)
        scaler = torch.amp.GradScaler("cpu", init_scale=scale)
        with torch.autocast("cpu", dtype=torch.float16):
            out = twin(torch.tensor(case.x))
            loss = torch.nn.functional.mse_loss(out, torch.tensor(case.y)) * case.small
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(twin.parameters(), 1e-6)
        scaler.step(opt)
        assert stepped is stepped_want
        for got, theirs in zip(want, twin.parameters(), strict=True):
            np.testing.assert_allclose(got, theirs.detach().numpy(), rtol=1e-3, atol=1e-5)
        with torch.no_grad():
            for p, old in zip(twin.parameters(), twin_copy, strict=True):
                p.copy_(old)
    assert _params(model)  # (the model itself was only read)


# --- the shared tools ----------------------------------------------------------------------------


def test_needs_waits_for_the_check(capsys):
    feedback.PASSED.clear()
    with pytest.raises(lesson19.NotYet, match="the bucketed reducer"):
        lesson19.needs(1)
    lesson19.check_reducer(Reducer)
    lesson19.check_scaled_step(scaled_step)
    assert passed(capsys.readouterr().out)
    lesson19.needs(1, 2)


def test_quiet_stderr_hides_descriptor_2_and_puts_it_back(capfd):
    os.write(2, b"before\n")
    with lesson19.quiet_stderr():
        os.write(2, b"hidden\n")  # as PyTorch's profiler writes, past sys.stderr
    os.write(2, b"after\n")
    err = capfd.readouterr().err
    assert "before" in err and "after" in err and "hidden" not in err


def test_aot_graphs_hand_the_saved_tensors_from_forward_to_backward():
    import torch

    x, w = torch.randn(4, 3), torch.randn(3, 2, requires_grad=True)
    graphs = lesson19.aot_graphs(lambda x, w: torch.tanh(x @ w).sum(), x, w)
    (output,) = [n for n in graphs["forward"].graph.nodes if n.op == "output"]
    handed = [list(n.meta["val"].shape) for n in output.args[0][1:]]
    taken = [n.name for n in graphs["backward"].graph.nodes if n.op == "placeholder"]
    assert handed == [[4, 3], [4, 2]] and taken[-1] == "tangents_1" and len(taken) == 3
    assert "tanh_backward" in graphs["backward"].code


# --- the notebook ---------------------------------------------------------------------------


@pytest.mark.parametrize("folder", [NB, NB / "zh"])
def test_notebook_frame(folder):
    nb = nbformat.read(folder / "19_autograd_at_scale.ipynb", as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    solutions = [c for c in code if "solution" in c.metadata.get("tags", [])]
    assert len(solutions) == 2 and all("# BEGIN SOLUTION" in c.source for c in solutions)
    checks = [c for c in code if re.search(r"lesson19\.check_\w+\(", c.source)]
    assert [c.outputs[0]["text"][0] for c in checks] == ["✓", "✓"]
    assert all(c.outputs or c in solutions or not c.source.strip() for c in code[1:])
    for c in code:
        assert not any(o.get("output_type") == "error" for o in c.outputs), c.source[:60]
        assert "USDT" not in str(c.outputs)
    assert sum("<details>" in c.source for c in nb.cells if c.cell_type == "markdown") >= 6


def test_aot_graphs_leaves_torch_distributions_checking_their_arguments():
    """torch.compile turns Distribution's default validate_args off for the whole process; the
    lesson's helper puts it back, so later code (and later tests) still get PyTorch's errors."""
    import torch

    lesson19.aot_graphs(lambda x: (x * 2).sum(), torch.randn(3, requires_grad=True))
    assert torch.distributions.Distribution._validate_args is True
    with pytest.raises(ValueError, match="scale"):
        torch.distributions.Normal(0.0, -1.0)
