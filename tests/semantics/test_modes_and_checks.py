"""Grad modes, detach, gradcheck/gradgradcheck and anomaly detection."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect


def snip_grad_modes(torch, out):
    x = torch.tensor([1.0], requires_grad=True)
    with torch.no_grad():
        a = x * 2
        with torch.enable_grad():
            b = x * 2
    out("no_grad / nested enable_grad", (a.requires_grad, b.requires_grad))
    with torch.set_grad_enabled(False):
        c = x * 2
    out("set_grad_enabled", (c.requires_grad, torch.is_grad_enabled()))
    torch.set_grad_enabled(False)
    d = x * 2
    torch.set_grad_enabled(True)
    out("as a function", (d.requires_grad, torch.is_grad_enabled()))

    @torch.no_grad()
    def infer(t):
        return t * 2

    out("decorator", (infer(x).requires_grad, torch.is_grad_enabled()))
    with torch.inference_mode():
        out("inference enables no grad", (torch.is_grad_enabled(), (x * 2).requires_grad))


def snip_detach(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x**2
    z = y.detach()
    out("detached", (z.requires_grad, z.is_leaf, z.grad_fn is None))
    with out.raises("backward from detached"):
        z.sum().backward()
    w = y.detach().requires_grad_()
    (w * 3).sum().backward()
    out("new leaf", (w.grad, x.grad))


def snip_gradcheck(torch, out):
    def f(x):
        return x**2 + x.sin()

    x = torch.tensor([[0.1, 0.2], [0.3, -0.4]], dtype=torch.float64, requires_grad=True)
    out("passes", torch.autograd.gradcheck(f, (x,)))

    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2x

    out(
        "catches wrong backward", torch.autograd.gradcheck(Wrong.apply, (x,), raise_exception=False)
    )
    with out.raises("raises"):
        torch.autograd.gradcheck(Wrong.apply, (x,))
    out("gradgradcheck", torch.autograd.gradgradcheck(f, (x,)))
    xf = torch.tensor([0.5], requires_grad=True)
    with out.warns("float32 warns"):
        torch.autograd.gradcheck(f, (xf,), eps=1e-3, atol=1e-2, raise_exception=False)


def snip_anomaly_nan(torch, out):
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    with torch.autograd.set_detect_anomaly(True):
        out("enabled", torch.is_anomaly_enabled())
        y = x.sqrt() * 0
        with out.raises("nan"):
            with out.warns("names the op"):
                y.sum().backward()
    out("disabled again", torch.is_anomaly_enabled())
    z = (x.sqrt() * 0).sum()
    z.backward()
    out("nan without anomaly mode", x.grad)


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_modes_and_checks(snippet):
    assert_same(snippet, warn_key=None)
