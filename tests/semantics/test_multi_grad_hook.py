"""torch.autograd.graph.register_multi_grad_hook on both libraries: once per backward with the
gradients the pass reaches ("all"), or the first one ("any")."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect


def _values(grads):
    return [None if g is None else g.tolist() for g in grads]


def snip_all_mode(torch, out):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    c = torch.tensor([5.0], requires_grad=True)
    calls = []
    handle = torch.autograd.graph.register_multi_grad_hook(
        (a, b, c), lambda grads: calls.append(_values(grads)) or (None, None, None)
    )
    (a * b).sum().backward()
    out("c is not reached", list(calls))
    (a * 2).sum().backward()
    out("only a", list(calls))
    x, y = a * 1, b * 1
    inner = torch.autograd.graph.register_multi_grad_hook(
        (x, y), lambda g: calls.append(_values(g))
    )
    (x * y).sum().backward()
    out("non-leaves too", list(calls))
    inner.remove()
    handle.remove()
    (a * b).sum().backward()
    out("removed", calls)
    out("the return value is ignored", a.grad)


def snip_any_mode_and_errors(torch, out):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    calls = []
    torch.autograd.graph.register_multi_grad_hook(
        (a, b), lambda g: calls.append(g.tolist()), mode="any"
    )
    (a * b).sum().backward()
    (a * b).sum().backward()
    out("once per backward", calls)
    with out.raises("unknown mode"):
        torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: None, mode="foo")
    torch.autograd.graph.register_multi_grad_hook((a, b), lambda g: None)
    with out.raises("leaves under autograd.grad"):
        torch.autograd.grad((a * b).sum(), (a,))


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_multi_grad_hook(snippet):
    assert_same(snippet)
