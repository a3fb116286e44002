"""Anomaly mode with several roots: PyTorch hangs them under one GraphRoot node that returns the
seeds, and check_nan inspects that node first; a single root runs its own node first."""

from __future__ import annotations

import warnings

import pytest
from parity import assert_same

from semantics.snippets import collect

NAN = float("nan")


def _seeds(torch, outs, nan_at):
    return [
        torch.full_like(o, NAN) if i in nan_at else torch.ones_like(o) for i, o in enumerate(outs)
    ]


def _outcome(torch, out, label, fn, *args, **kwargs):
    """Record what `fn(*args, **kwargs)` raises under detect_anomaly(check_nan=True) and what
    it warns."""
    with torch.autograd.detect_anomaly(check_nan=True):
        with out.warns(f"{label}: warns"), out.raises(label):
            fn(*args, **kwargs)


def snip_several_roots_backward(torch, out):
    for nan_at in ((0,), (2,), (0, 1)):
        x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
        outs = x.chunk(3)
        seeds = _seeds(torch, outs, nan_at)
        _outcome(torch, out, f"nan at {nan_at}", torch.autograd.backward, outs, seeds)
        out(f"nan at {nan_at}: nothing accumulated", x.grad)


def snip_several_roots_grad(torch, out):
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    outs = x.unbind(1)
    seeds = _seeds(torch, outs, (1,))
    _outcome(torch, out, "autograd.grad", torch.autograd.grad, outs, [x], seeds)
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    outs = x.split([2, 3])
    seeds = _seeds(torch, outs, (1,))
    _outcome(torch, out, "split sizes", torch.autograd.backward, outs, seeds, inputs=[x])
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    outs = x.chunk(2)
    seeds = _seeds(torch, outs, (1,))
    _outcome(torch, out, "create_graph", torch.autograd.grad, outs, [x], seeds, create_graph=True)


def snip_one_root(torch, out):
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    part = x.chunk(3)[1]
    seeds = _seeds(torch, [part], (0,))
    _outcome(torch, out, "one output of chunk", torch.autograd.backward, [part], seeds)
    y = x * 2
    _outcome(torch, out, "Tensor.backward", y.backward, torch.full_like(y, NAN))
    _outcome(torch, out, "a leaf", torch.autograd.backward, [x], _seeds(torch, [x], (0,)))
    out("a leaf: its nan seed accumulated", x.grad)


def snip_roots_that_are_leaves_or_repeated(torch, out):
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, dtype=torch.float64, requires_grad=True)
    seeds = _seeds(torch, [x, w], (1,))
    _outcome(torch, out, "two leaves", torch.autograd.backward, [x, w], seeds)
    _outcome(torch, out, "two leaves, grad", torch.autograd.grad, [x, w], [x, w], seeds)
    y = x * 2
    seeds = _seeds(torch, [y, y], (1,))
    _outcome(torch, out, "one root twice", torch.autograd.backward, [y, y], seeds)
    seeds = _seeds(torch, [x, y], (0,))
    _outcome(torch, out, "a leaf and a non-leaf", torch.autograd.backward, [x, y], seeds)
    out("nothing accumulated", (x.grad, w.grad))


def snip_graph_root_runs_before_hooks(torch, out):
    x = torch.randn(4, dtype=torch.float64, requires_grad=True)
    a, b = x.chunk(2)
    a.register_hook(lambda g: torch.zeros_like(g))  # too late: the seeds were checked already
    seeds = _seeds(torch, [a, b], (0,))
    _outcome(torch, out, "hook on a root", torch.autograd.backward, [a, b], seeds)


def snip_finite_seeds_or_no_check(torch, out):
    x = torch.randn(5, 4, dtype=torch.float64, requires_grad=True)
    outs = x.chunk(3)
    inf_seeds = [torch.full_like(o, float("inf")) for o in outs]
    _outcome(torch, out, "inf seeds", torch.autograd.backward, outs, inf_seeds)
    out("inf seeds: grad", x.grad)
    x.grad = None
    with torch.autograd.detect_anomaly(check_nan=False):
        torch.autograd.backward(outs, _seeds(torch, outs, (1,)), retain_graph=True)
    out("check_nan=False: nan flows to .grad", x.grad)
    x.grad = None
    with torch.autograd.set_detect_anomaly(True):
        with out.warns("set_detect_anomaly(True): warns"), out.raises("set_detect_anomaly(True)"):
            torch.autograd.backward(outs, _seeds(torch, outs, (2,)))


def _anomaly_warnings(torch, build, run) -> list[tuple[str, bool, bool]]:
    """(first sentence, has a forward traceback, names the backward call) of each 'Error
    detected' warning, the error swallowed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with torch.autograd.set_detect_anomaly(True):
            args = build()
            try:
                run(*args)
            except (RuntimeError, ZeroDivisionError):
                pass
    texts = [str(w.message) for w in caught if "Error detected" in str(w.message)]
    return [
        (
            t.split(". ")[0],
            "Traceback of forward call" in t,
            "backward(outs, seeds)" in t,
        )
        for t in texts
    ]


def snip_what_the_warning_says(torch, out):
    def several():
        x = torch.randn(4, dtype=torch.float64, requires_grad=True)
        outs = x.chunk(2)
        return outs, _seeds(torch, outs, (1,))

    out(
        "GraphRoot: the backward call's trace",
        _anomaly_warnings(torch, several, lambda outs, seeds: torch.autograd.backward(outs, seeds)),
    )

    def untraced():
        x = torch.tensor([0.0, 1.0], requires_grad=True)
        with torch.autograd.set_detect_anomaly(False):
            loss = (x.sqrt() * 0).sum()  # SqrtBackward0 returns 0 / 0
        return (loss,)

    out(
        "a node made outside anomaly mode",
        _anomaly_warnings(torch, untraced, lambda loss: loss.backward()),
    )

    def hooked():
        x = torch.randn(4, dtype=torch.float64, requires_grad=True)
        y = x * 2
        y.register_hook(lambda g: 1 / 0)
        return (y,)

    out("a tensor hook raises", _anomaly_warnings(torch, hooked, lambda y: y.sum().backward()))


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_anomaly_roots(snippet):
    assert_same(snippet)
