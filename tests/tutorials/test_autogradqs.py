"""Learn the Basics, "Automatic Differentiation with torch.autograd": a one-layer net with a
logistic loss, grad_fn, leaf gradients, retain_graph, disabling tracking, Jacobian products
and gradient accumulation."""

from __future__ import annotations

from ._support import check, fixed, parametrize


def one_layer(torch):
    x = torch.ones(5)
    y = torch.zeros(3)
    w = fixed(torch, 5, 3).requires_grad_(True)
    b = fixed(torch, 3, scale=0.5).requires_grad_(True)
    return x, y, w, b


def snip_bce_with_logits_graph(torch, out):
    x, y, w, b = one_layer(torch)
    z = torch.matmul(x, w) + b
    loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
    out("grad_fns", (z.grad_fn.name(), loss.grad_fn.name()))
    loss.backward()
    out("w.grad, b.grad", (w.grad, b.grad))


def snip_hand_written_logistic_loss(torch, out):
    x, y, w, b = one_layer(torch)
    z = torch.matmul(x, w) + b
    # log(1 + exp(-|z|)) + max(z, 0) - z*y: the stable form of the same loss
    loss = ((1 + (-z.abs()).exp()).log() + z.clamp(min=0) - z * y).mean()
    out("z", (z, z.grad_fn.name(), z.requires_grad))
    out("loss", (loss, loss.grad_fn.name()))
    out("edges of z", [n.name() for n, _ in z.grad_fn.next_functions])
    loss.backward()
    out("w.grad, b.grad", (w.grad, b.grad))
    with out.warns("a non-leaf's .grad"):
        out("z.grad", z.grad)
    with out.raises("backward twice"):
        loss.backward()


def snip_retain_graph_for_two_backwards(torch, out):
    x, y, w, b = one_layer(torch)
    loss = (torch.matmul(x, w) + b).sigmoid().sum()
    loss.backward(retain_graph=True)
    first = w.grad.clone()
    loss.backward()
    out("second backward adds", (first, w.grad, torch.allclose(w.grad, 2 * first)))
    with out.raises("third backward, graph freed"):
        loss.backward()


def snip_disabling_tracking(torch, out):
    x, y, w, b = one_layer(torch)
    z = torch.matmul(x, w) + b
    out("tracked", z.requires_grad)
    with torch.no_grad():
        z = torch.matmul(x, w) + b
    out("in no_grad", (z.requires_grad, z.grad_fn is None, z.is_leaf))
    z = torch.matmul(x, w) + b
    z_det = z.detach()
    out("detached", (z_det.requires_grad, z_det.is_leaf, z_det.grad_fn is None))
    z_det.add_(1)  # shares storage with z
    out("detach shares data", (z.detach(), z._version, z_det._version))


def snip_graph_is_rebuilt_each_iteration(torch, out):
    w = torch.tensor([0.5, -0.5], requires_grad=True)
    for step in range(4):
        h = w * (step + 1)
        loss = h.sum() if step % 2 else (h * h).sum()  # a different graph every time
        loss.backward()
        out(f"step {step}", (loss.grad_fn.name(), w.grad.clone()))
        w.grad = None


def snip_jacobian_products(torch, out):
    inp = torch.eye(4, 5, requires_grad=True)
    result = (inp + 1).pow(2).t()
    out("out", (result.shape, result.grad_fn.name()))
    result.backward(torch.ones_like(result), retain_graph=True)
    out("first call", inp.grad.clone())
    result.backward(torch.ones_like(result), retain_graph=True)
    out("second call", inp.grad.clone())
    inp.grad.zero_()
    result.backward(torch.ones_like(result), retain_graph=True)
    out("after zeroing", inp.grad)
    out("backward() is backward(tensor(1.))", _scalar_seed(torch))


def _scalar_seed(torch):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    (a * a).sum().backward()
    implicit = a.grad.clone()
    a.grad = None
    (a * a).sum().backward(torch.tensor(1.0))
    return implicit, a.grad


def snip_accumulation_without_zeroing(torch, out):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for _ in range(3):
        (x**2).sum().backward()
    out("three backward passes accumulate", x.grad)
    x.grad.zero_()
    out("zero_ keeps the tensor", (x.grad, x.grad.requires_grad))


@parametrize(globals())
def test_autogradqs(lib, snippet):
    check(snippet, lib)
