""" "Learning PyTorch with Examples", the tensor and autograd parts: fitting sin(x) with a cubic
by hand-written gradients, by autograd, and through a custom Function (the Legendre P3), and the
old two-layer nets (manual ReLU backward, autograd, a custom ReLU Function)."""

from __future__ import annotations

import math

from ._support import check, fixed, parametrize


def sine_data(torch, n=200):
    dtype = torch.float
    device = torch.device("cpu")
    x = torch.linspace(-math.pi, math.pi, n, device=device, dtype=dtype)
    return x, torch.sin(x)


def snip_polynomial_tensor(torch, out):
    # Gradients by hand: no autograd at all.
    x, y = sine_data(torch)
    a, b, c, d = (torch.tensor(v) for v in (0.1, -0.2, 0.3, -0.05))
    learning_rate = 1e-5
    for t in range(60):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        a -= learning_rate * grad_y_pred.sum()
        b -= learning_rate * (grad_y_pred * x).sum()
        c -= learning_rate * (grad_y_pred * x**2).sum()
        d -= learning_rate * (grad_y_pred * x**3).sum()
        if t % 20 == 19:
            out(f"loss at {t}", loss)
    out("fit", (a, b, c, d))


def snip_polynomial_autograd(torch, out):
    x, y = sine_data(torch)
    dtype = torch.float
    a, b, c, d = (torch.tensor(v, dtype=dtype, requires_grad=True) for v in (0.1, -0.2, 0.3, -0.05))
    learning_rate = 1e-5
    for t in range(60):
        y_pred = a + b * x + c * x**2 + d * x**3
        loss = (y_pred - y).pow(2).sum()
        if t % 20 == 19:
            out(f"loss at {t}", (loss.item(), type(loss.item()).__name__))
        loss.backward()
        with torch.no_grad():
            a -= learning_rate * a.grad
            b -= learning_rate * b.grad
            c -= learning_rate * c.grad
            d -= learning_rate * d.grad
            a.grad = None
            b.grad = None
            c.grad = None
            d.grad = None
    out("fit", (a, b, c, d))
    out("still leaves", (a.is_leaf, a.requires_grad, a.grad_fn is None, a._version))
    out("result line", f"y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2")


def snip_update_a_leaf_outside_no_grad(torch, out):
    a = torch.tensor(1.0, requires_grad=True)
    (a * 3).backward()
    with out.raises("in-place update of a leaf in grad mode"):
        a -= 0.1 * a.grad
    with out.raises("out-of-place update then backward"):
        a = a - 0.1 * a.grad
        (a * 2).backward()
        out("a is no longer a leaf", (a.is_leaf, a.grad_fn.name()))
        with out.warns("so its .grad stays None"):
            out("a.grad", a.grad)


def legendre(torch):
    class LegendrePolynomial3(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return 0.5 * (5 * input**3 - 3 * input)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            return grad_output * 1.5 * (5 * input**2 - 1)

    return LegendrePolynomial3


def snip_polynomial_custom_function(torch, out):
    LegendrePolynomial3 = legendre(torch)
    dtype = torch.float
    device = torch.device("cpu")
    x, y = sine_data(torch)
    a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
    c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
    d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)
    learning_rate = 5e-5
    for t in range(60):
        P3 = LegendrePolynomial3.apply
        y_pred = a + b * P3(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if t == 0:
            out("graph", (y_pred.grad_fn.name(), P3(c + d * x).grad_fn.name()))
        if t % 20 == 19:
            out(f"loss at {t}", loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    out("fit", (a, b, c, d))


def snip_legendre_gradcheck(torch, out):
    P3 = legendre(torch).apply
    x = torch.tensor([-0.7, 0.1, 0.9], dtype=torch.double, requires_grad=True)
    out("gradcheck", torch.autograd.gradcheck(P3, (x,)))
    out("derivative", torch.autograd.grad(P3(x).sum(), x))
    out(
        "backward is made of differentiable ops: double backward works",
        torch.autograd.gradgradcheck(P3, (x,)),
    )


def two_layer_data(torch, n=8, d_in=6, h=5, d_out=3):
    x = fixed(torch, n, d_in)
    y = fixed(torch, n, d_out, scale=0.7)
    w1 = fixed(torch, d_in, h, scale=0.4)
    w2 = fixed(torch, h, d_out, scale=0.3)
    return x, y, w1, w2


def snip_two_layer_net_tensor(torch, out):
    x, y, w1, w2 = two_layer_data(torch)
    learning_rate = 1e-2
    for _ in range(20):
        h = x.mm(w1)
        h_relu = h.clamp(min=0)
        y_pred = h_relu.mm(w2)
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        grad_w2 = h_relu.t().mm(grad_y_pred)
        grad_h_relu = grad_y_pred.mm(w2.t())
        grad_h = grad_h_relu.clone()
        grad_h[h < 0] = 0
        grad_w1 = x.t().mm(grad_h)
        w1 -= learning_rate * grad_w1
        w2 -= learning_rate * grad_w2
    out("last loss", loss)
    out("weights", (w1, w2))


def snip_two_layer_net_autograd(torch, out):
    x, y, w1, w2 = two_layer_data(torch)
    w1.requires_grad_(True)
    w2.requires_grad_(True)
    learning_rate = 1e-2
    for _ in range(20):
        y_pred = x.mm(w1).clamp(min=0).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    out("last loss", (loss, loss.grad_fn.name()))
    out("weights", (w1, w2))


def snip_two_layer_net_custom_relu(torch, out):
    class MyReLU(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input):
            ctx.save_for_backward(input)
            return input.clamp(min=0)

        @staticmethod
        def backward(ctx, grad_output):
            (input,) = ctx.saved_tensors
            grad_input = grad_output.clone()
            grad_input[input < 0] = 0
            return grad_input

    x, y, w1, w2 = two_layer_data(torch)
    w1.requires_grad_(True)
    w2.requires_grad_(True)
    learning_rate = 1e-2
    for t in range(20):
        relu = MyReLU.apply
        y_pred = relu(x.mm(w1)).mm(w2)
        loss = (y_pred - y).pow(2).sum()
        if t == 0:
            out("node name", relu(x.mm(w1)).grad_fn.name())
        loss.backward()
        with torch.no_grad():
            w1 -= learning_rate * w1.grad
            w2 -= learning_rate * w2.grad
            w1.grad.zero_()
            w2.grad.zero_()
    out("last loss", loss)
    out("weights", (w1, w2))


@parametrize(globals())
def test_examples_autograd(lib, snippet):
    check(snippet, lib)
