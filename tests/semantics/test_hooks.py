"""Tensor, node and post-accumulate hooks: what they see, what they may change, their order."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect


def snip_tensor_hook_replaces_gradient(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()))
    y.register_hook(lambda g: g * 2)
    y.register_hook(lambda g: seen.append(g.clone()))
    (y * y).sum().backward()
    out("seen", seen)
    out("x.grad", x.grad)


def snip_leaf_hook(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    h = x.register_hook(lambda g: g + 100)
    (x * 2).sum().backward()
    out("changed before accumulation", x.grad)
    h.remove()
    (x * 2).sum().backward()
    out("removed", x.grad)


def snip_hook_order_and_kinds(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    log = []
    y = x.exp()
    y.retain_grad()
    y.register_hook(lambda g: log.append("tensor hook y") or g * 2)
    y.grad_fn.register_prehook(lambda go: log.append("prehook exp") or None)
    y.grad_fn.register_hook(lambda gi, go: log.append("posthook exp") or None)
    x.register_hook(lambda g: log.append("tensor hook x") or None)
    x.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate x"))
    z = (y * 2).sum()
    z.grad_fn.register_prehook(lambda go: log.append("prehook sum") or None)
    z.backward()
    out("order", log)
    out("retained grad sees the hook's change", y.grad)
    out("x.grad", x.grad)


def snip_node_hooks_change_values(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, gi[1]))
    y.sum().backward()
    out("x.grad", x.grad)


def snip_hook_wrong_shape(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: torch.ones(3))
    with out.raises("wrong shape"):
        y.sum().backward()
    out("x.grad untouched", x.grad)


def snip_hook_on_constant(torch, out):
    with out.raises("no grad"):
        torch.tensor([1.0]).register_hook(lambda g: g)
    x = torch.tensor([1.0], requires_grad=True)
    with out.raises("post accumulate on non-leaf"):
        (x * 2).register_post_accumulate_grad_hook(lambda t: None)


def snip_hooks_survive_tensor_deletion(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.clone()))
    z = (y**2).sum()
    del y
    z.backward()
    out("seen", seen)


def snip_gradient_clipping_by_hook(torch, out):
    w = torch.tensor([3.0, -4.0], requires_grad=True)
    w.register_hook(lambda g: g.clamp(-1, 1))
    (w * torch.tensor([10.0, -0.5])).sum().backward()
    out("clipped", w.grad)


def snip_post_accumulate_sees_grad(torch, out):
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    w.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.clone()))
    (w * 3).sum().backward()
    (w * 3).sum().backward()
    out("seen", seen)


def snip_handles(torch, out):
    x = torch.tensor([1.0], requires_grad=True)
    calls = []
    with x.register_hook(lambda g: calls.append(1)):
        (x * 2).backward()
    (x * 2).backward()
    out("context manager removes", len(calls))


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_hook_semantics(snippet):
    assert_same(snippet)
