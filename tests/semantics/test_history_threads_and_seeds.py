"""Where hooks and retain_grad go when a tensor's history changes in place, grad modes per
thread, and how backward checks and casts the gradients it is seeded with."""

from __future__ import annotations

import threading

import pytest
from parity import assert_same

from semantics.snippets import collect


def snip_hooks_before_and_after_an_inplace_op(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    seen = []
    y.register_hook(lambda g: seen.append(("registered before", g.clone())))
    y.mul_(3)
    y.register_hook(lambda g: seen.append(("registered after", g.clone())))
    (y * y).sum().backward()
    out("each hook once, on its own version", seen)
    out("x.grad", x.grad)


def snip_hook_then_inplace_on_a_view(torch, out):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()))
    y[0:2].mul_(2)
    y.register_hook(lambda g: seen.append(("after", g.clone())))
    (y * y).sum().backward()
    out("seen", seen)
    out("x.grad", x.grad)


def snip_retain_grad_moves_with_inplace_history(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.mul_(2)
    (y * y).sum().backward()
    out("y.grad is for the new value", y.grad)
    z = x * 1
    z.retain_grad()
    z[0:1].mul_(5)
    (z * z).sum().backward()
    out("also through a view", z.grad)


def snip_removed_hook_before_inplace(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    handle = y.register_hook(lambda g: g * 100)
    y.add_(1)
    handle.remove()
    y.sum().backward()
    out("x.grad", x.grad)


def snip_too_few_gradients(torch, out):
    a = torch.ones(2, requires_grad=True)
    with out.raises("backward"):
        torch.autograd.backward([(a * 2).sum(), (a * 3).sum()], [torch.tensor(1.0)])
    with out.raises("grad"):
        torch.autograd.grad([(a * 2).sum(), (a * 3).sum()], [a], [torch.tensor(1.0)])
    with out.raises("empty list"):
        torch.autograd.backward([(a * 2).sum()], [])
    torch.autograd.backward([(a * 2).sum()], [torch.tensor(1.0), torch.tensor(5.0)])
    out("extra gradients are ignored", a.grad)


def snip_seed_dtype_is_cast_to_the_output(torch, out):
    a = torch.ones(2, requires_grad=True)
    a.backward(torch.ones(2, dtype=torch.float64))
    out("a leaf root", a.grad)
    b = torch.ones(2, requires_grad=True)
    (b * 3).backward(torch.full((2,), 1 / 3, dtype=torch.float64))
    out("a non-leaf root", b.grad)
    c = torch.ones(2, dtype=torch.float64, requires_grad=True)
    out("grad", torch.autograd.grad(c * 2, c, torch.ones(2))[0])


def snip_inplace_on_zero_dim_results(torch, out):
    a = torch.tensor(2.0, requires_grad=True)
    b = a * 3
    alias = b.detach()
    b.add_(1)
    out("the detached alias sees the write", alias)
    b.backward()
    out("a.grad", a.grad)
    c = torch.tensor(4.0).sqrt()
    c.mul_(2)
    out("0-d without grad", c)


def _in_thread(fn):
    result = []
    thread = threading.Thread(target=lambda: result.append(fn()))
    thread.start()
    thread.join()
    return result[0]


def snip_grad_mode_belongs_to_a_thread(torch, out):
    def records():
        x = torch.ones(2, requires_grad=True)
        return (x * 2).requires_grad, torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    with torch.no_grad():
        out("other thread under no_grad", _in_thread(records))
        out("this thread", torch.is_grad_enabled())
    with torch.inference_mode():
        out("other thread under inference_mode", _in_thread(records))
    torch.set_grad_enabled(False)
    try:
        out("other thread after set_grad_enabled(False)", _in_thread(records))
    finally:
        torch.set_grad_enabled(True)

    def no_grad_there():
        with torch.no_grad():
            return _in_thread(records)

    out("a thread's no_grad does not reach its own child thread", _in_thread(no_grad_there))


def snip_inference_mode_false_inside(torch, out):
    with torch.inference_mode():
        with torch.inference_mode(False):
            y = torch.ones(2)
            out(
                "inside",
                (y.is_inference(), torch.is_grad_enabled(), torch.is_inference_mode_enabled()),
            )
        out("back", (torch.ones(2).is_inference(), torch.is_grad_enabled()))
    with torch.no_grad():
        with torch.inference_mode(False):
            out("under no_grad", torch.is_grad_enabled())


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_history_threads_and_seeds(snippet):
    assert_same(snippet)


def test_the_process_wide_counts_return_to_zero():
    """minigrad reads `Anywhere` before the thread's own flags (a speed path): every way of
    switching modes must leave the counts as it found them, or ops would pay the slow read."""
    import minigrad as mg
    from minigrad.core.grad_mode import Anywhere

    x = mg.ones(2, requires_grad=True)
    with mg.no_grad(), mg.enable_grad(), mg.inference_mode(), mg.inference_mode(False):
        pass
    with pytest.raises(ValueError), mg.no_grad():
        raise ValueError
    mg.no_grad()(lambda: None)()
    mg.set_grad_enabled(False)
    mg.set_grad_enabled(True)
    (x * x).sum().backward()
    _in_thread(lambda: mg.set_grad_enabled(False))  # a thread may end with grad off ...
    assert (x * 2).requires_grad  # ... and this thread still records
    Anywhere.grad_off.pop()  # (that dead thread's entry, removed by hand)
    assert (Anywhere.grad_off, Anywhere.inference_blocks) == ([], [])
