"""backward(), autograd.backward and autograd.grad: arguments, results and errors."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect


def snip_scalar_and_one_element(torch, out):
    x = torch.tensor([2.0], requires_grad=True)
    (x**3).backward()
    out("shape [1] works", x.grad)
    y = torch.tensor([1.0, 2.0], requires_grad=True)
    with out.raises("non-scalar"):
        (y * 2).backward()
    (y * 2).backward(torch.tensor([1.0, 0.5]))
    out("vjp", y.grad)
    with out.raises("shape mismatch"):
        (y * 2).backward(torch.ones(3))
    with out.raises("no grad"):
        torch.tensor([1.0]).sum().backward()


def snip_gradient_is_vjp(torch, out):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = torch.stack([x[0] * x[1], x[1] ** 2, x[2].exp()])
    v = torch.tensor([1.0, -1.0, 0.5])
    y.backward(v)
    out("J^T v", x.grad)


def snip_accumulation(torch, out):
    x = torch.tensor([1.0], requires_grad=True)
    (x * 2).backward()
    g = x.grad
    (x * 3).backward()
    out("accumulated", x.grad)
    out("same tensor object", g is x.grad)
    out("version of grad bumped", x.grad._version > 0)


def snip_inputs_argument(torch, out):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0], requires_grad=True)
    m = a * b
    loss = (m * m).sum()
    loss.backward(inputs=[a], retain_graph=True)
    out("only a", (a.grad, b.grad))
    loss.backward(inputs=[m])
    out("non-leaf input gets .grad", m.grad)
    with out.raises("empty"):
        (a * 2).sum().backward(inputs=[])


def snip_autograd_backward_many(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.sum() * 3
    torch.autograd.backward([z, y], [torch.tensor(1.0), torch.tensor([1.0, 10.0])])
    out("both roots", x.grad)
    with out.raises("count mismatch"):
        torch.autograd.backward([x.sum()], [torch.tensor(1.0), torch.tensor(1.0)])


def snip_grad_function(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0], requires_grad=True)
    f = (x**2).sum() + y.sum() * 0
    (gx,) = torch.autograd.grad(f, x, retain_graph=True)
    out("grad", gx)
    out(".grad untouched", (x.grad, y.grad))
    out("tuple", type(torch.autograd.grad(f, [x, y], retain_graph=True)).__name__)
    h = x.sum()
    with out.raises("unused"):
        torch.autograd.grad(h, [x, y], retain_graph=True)
    out("allow_unused", torch.autograd.grad(h, [x, y], allow_unused=True, retain_graph=True))
    out("materialize", torch.autograd.grad(h, [x, y], materialize_grads=True))
    v = x * 3
    out("grad_outputs", torch.autograd.grad(v, x, grad_outputs=torch.tensor([1.0, 2.0])))
    with out.raises("input without grad"):
        torch.autograd.grad((x * 2).sum(), torch.tensor([1.0]))


def snip_grad_wrt_non_leaf(torch, out):
    x = torch.ones(3, requires_grad=True)
    w = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
    y = w * x
    z = y.sum()
    out("dz/dy", torch.autograd.grad(z, y))


def snip_second_backward_rules(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for name, fn in [
        ("add", lambda t: (t + 1).sum()),
        ("mul", lambda t: (t * 2).sum()),
        ("exp", lambda t: t.exp().sum()),
        ("view", lambda t: t.view(2, 1).sum()),
        ("mean", lambda t: t.mean()),
        ("neg", lambda t: (-t).sum()),
        ("div", lambda t: (t / 2).sum()),
        ("pow", lambda t: (t**2).sum()),
    ]:
        y = fn(x)
        y.backward()
        with out.raises(name):
            y.backward()
    x.grad = None
    y = (x**3).sum()
    y.backward(retain_graph=True)
    y.backward()
    out("retain_graph then again", x.grad)
    with out.raises("freed saved tensor access"):
        _ = y.grad_fn.next_functions[0][0]._saved_self


def snip_higher_order(torch, out):
    x = torch.tensor([2.0], requires_grad=True)
    y = x**3
    (g1,) = torch.autograd.grad(y, x, create_graph=True)
    out("first", (g1, g1.requires_grad, g1.grad_fn is not None))
    (g2,) = torch.autograd.grad(g1, x, create_graph=True)
    (g3,) = torch.autograd.grad(g2, x)
    out("second, third", (g2, g3))
    z = torch.tensor([1.0, 2.0], requires_grad=True)
    (z.sin() * z).sum().backward(create_graph=True)
    out("grad has graph", z.grad.requires_grad)
    (gg,) = torch.autograd.grad(z.grad.sum(), z)
    out("grad of grad", gg)


def snip_relu_gradient_is_an_op(torch, out):
    x = torch.tensor([1.0, -1.0, 0.0, float("nan")], requires_grad=True)
    y = x.relu()
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    fn = g.grad_fn
    out("gradient", (g, g.requires_grad, fn.name(), fn._saved_threshold))
    out("edges", [None if n is None else n.name() for n, _ in fn.next_functions])
    g.sum().backward()
    out("flat in the result", x.grad)
    x2 = torch.tensor([1.0, -1.0, 2.0], requires_grad=True)
    r = x2.relu()
    (g2,) = torch.autograd.grad((r * r).sum(), x2, create_graph=True)
    out("second order", (g2, torch.autograd.grad(g2.sum(), x2)))


def snip_functional(torch, out):
    F = torch.autograd.functional  # noqa: N806

    def f(x):
        return torch.stack([x[0] * x[1], x[1].sin(), x[0] ** 2])

    x = torch.tensor([1.0, 2.0])
    out("jacobian", F.jacobian(f, x))

    def g(x, y):
        return (x * y).sum() + (x**2).sum()

    xs = (torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0]))
    out("jacobian tuple", F.jacobian(g, xs))
    out("hessian", F.hessian(lambda v: (v**3).sum() + v[0] * v[1], x))
    out("hessian tuple", F.hessian(g, xs))
    out("vjp", F.vjp(f, x, torch.tensor([1.0, 1.0, 1.0])))
    out("jvp", F.jvp(f, x, torch.tensor([1.0, 0.0])))
    out("hvp", F.hvp(lambda v: (v**3).sum(), x, torch.tensor([1.0, 1.0])))
    out("vhp", F.vhp(lambda v: (v**3).sum(), x, torch.tensor([1.0, 1.0])))


# --- found while writing the lessons (issue 12) -----------------------------------------------
def snip_inference_tensors_outside_inference_mode(torch, out):
    with torch.inference_mode():
        f = torch.ones(2)
    w = torch.ones(2, requires_grad=True)
    out("an add works", (f + w).sum().backward() is None and w.grad)
    with out.raises("requires_grad_"):
        f.requires_grad_()
    with out.raises("version"):
        out("version", f._version)
    with out.raises("saved"):
        (f * w).sum().backward()
    out("requires_grad_(False) is fine", f.requires_grad_(False).requires_grad)


def snip_backward_inputs_non_leaf_retains_its_grad(torch, out):
    x = torch.ones(2, requires_grad=True)
    h = x * 2
    (h * h).sum().backward(inputs=[h], retain_graph=True)
    out("h.grad, once", h.grad, h.retains_grad, x.grad)
    h.retain_grad()
    (h * h).sum().backward(inputs=[h, x])
    out("retain_grad too: still counted once", h.grad, x.grad)


def snip_grad_is_grads_batched(torch, out):
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    z = torch.ones(2, requires_grad=True)
    y = x * x
    rows = torch.autograd.grad(y, [x, z], torch.eye(3)[:2], True, False, True, True, True)
    out("one vjp per row, unused None", rows)
    with out.raises("batch dimension"):
        torch.autograd.grad(y, x, torch.ones(3), is_grads_batched=True)


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_backward_api(snippet):
    assert_same(snippet)


def test_create_graph_backward_keeps_a_graph_on_grad():
    def snippet(torch, out):
        import warnings

        x = torch.tensor([2.0], requires_grad=True)
        with warnings.catch_warnings():  # warned once per process: not comparable across runs
            warnings.simplefilter("ignore")
            (x**3).sum().backward(create_graph=True)
            out("first", (x.grad, x.grad.grad_fn.name()))
            (x**3).sum().backward(create_graph=True)
        out("accumulated", (x.grad, x.grad.grad_fn.name()))

    assert_same(snippet)
