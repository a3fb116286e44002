"""Saved-tensor hooks (PyTorch's tutorial on them, and torch.autograd.graph): what is packed,
when it is unpacked, what is checked, and the errors, on both libraries."""

from __future__ import annotations

import threading

import pytest
from parity import assert_same

from semantics.snippets import collect


def _logging_hooks(log):
    def pack(x):
        log.append(("pack", tuple(x.shape)))
        return x

    def unpack(x):
        log.append(("unpack", tuple(x.shape)))
        return x

    return pack, unpack


def snip_pack_at_save_unpack_at_use(torch, out):
    log = []
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(*_logging_hooks(log)):
        y = (a * a).exp()
    out("after forward", list(log))
    y.sum().backward()
    out("after backward", log)
    out("a.grad", a.grad)


def snip_the_hooks_own_what_they_keep(torch, out):
    for name, pack in (("identity", lambda x: x), ("clone", lambda x: x.clone())):
        b = torch.tensor([1.0, 2.0], requires_grad=True)
        c = b * 1
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
            d = c * c
        c.add_(1)  # no version check: the hooks decide what comes back
        d.sum().backward()
        out(name, b.grad)
    with torch.autograd.graph.saved_tensors_hooks(
        lambda x: ("as a list", x.tolist()), lambda packed: torch.tensor(packed[1])
    ):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        w = (x * x).exp()
    w.sum().backward()
    out("packed into a Python list", x.grad)


def snip_raw_saved_tensors(torch, out):
    log = []
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    y = a * a
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(*_logging_hooks(log))
    out("packed at once", list(log))
    with out.raises("a second pair"):
        raw.register_hooks(lambda x: x, lambda x: x)
    y.sum().backward()
    out("unpacked by backward", log)
    with out.raises("after the graph was freed"):
        raw.register_hooks(lambda x: x, lambda x: x)
    with out.raises("no such saved tensor"):
        getattr(a.exp().grad_fn, "_raw_saved_foo")  # noqa: B009


def snip_custom_functions_and_save_on_cpu(torch, out):
    log = []

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * grad * x

    x = torch.tensor([1.0, 3.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(*_logging_hooks(log)):
        y = Square.apply(x)
    y.sum().backward()
    out("save_for_backward goes through the hooks", (log, x.grad))
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.save_on_cpu():
        z = (a * a).sin()
    z.sum().backward()
    out("save_on_cpu", a.grad)


def snip_when_hooks_apply(torch, out):
    log = []
    with torch.autograd.graph.saved_tensors_hooks(lambda x: log.append("outer") or x, lambda x: x):
        with torch.autograd.graph.saved_tensors_hooks(
            lambda x: log.append("inner") or x, lambda x: x
        ):
            torch.ones(2, requires_grad=True).exp()
        with torch.no_grad():
            torch.ones(2, requires_grad=True).exp()
        thread = threading.Thread(target=lambda: torch.ones(2, requires_grad=True).exp())
        thread.start()
        thread.join()
    out("innermost only; not under no_grad; not in another thread", log)
    log.clear()
    with torch.autograd.graph.saved_tensors_hooks(*_logging_hooks(log)):
        y = torch.ones(2, requires_grad=True).exp()
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    out("unpacked at each use", log)


def snip_python_numbers_are_not_packed(torch, out):
    log = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(*_logging_hooks(log)):
        y = (x * 2) / 3 + x**2 - 2.5 * x
    out("what was packed", log)
    y.sum().backward()
    out("x.grad", x.grad)


def snip_errors(torch, out):
    with out.raises("disabled"):
        with torch.autograd.graph.disable_saved_tensors_hooks("no hooks in this block"):
            with torch.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
    with out.raises("pack modifies its input"):
        with torch.autograd.graph.saved_tensors_hooks(lambda x: x.mul_(2), lambda x: x):
            (torch.ones(2, requires_grad=True) * 1).exp()
    with torch.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: 3):
        y = torch.ones(2, requires_grad=True).exp()
    with out.raises("unpack returns no tensor"):
        y.sum().backward()


def snip_unpacked_tensors_keep_their_place_in_the_graph(torch, out):
    """PyTorch's advice is a pack hook that detaches: what unpack returns still gets the saved
    tensor's grad_fn (or, for a leaf, its AccumulateGrad), so gradients through it survive."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        h = x * 3
        y = (h * x).sum()
    mul = y.grad_fn.next_functions[0][0]
    out("saved non-leaf", mul._saved_self.requires_grad, mul._saved_self.is_leaf)
    out("saved leaf", mul._saved_other.requires_grad, mul._saved_other.is_leaf)
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    g.sum().backward()
    out("second order through packed tensors", x.grad)
    x.grad = None
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        z = torch.utils.checkpoint.checkpoint(lambda a: (a.sin() * a).sum(), x, use_reentrant=False)
    z.backward()
    out("checkpoint under hooks", x.grad)


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_saved_tensor_hooks(snippet):
    assert_same(snippet)
