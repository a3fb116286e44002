"""The current custom-Function style from PyTorch's extending notes: `forward` without ctx and a
separate `setup_context(ctx, inputs, output)`, beside the classic style."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect


def snip_forward_then_setup_context(torch, out):
    class ScaledMul(torch.autograd.Function):
        @staticmethod
        def forward(x, y, scale=1.0):
            return x * y * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, y, scale = inputs
            ctx.save_for_backward(x, y)
            ctx.scale = scale

        @staticmethod
        def backward(ctx, grad):
            x, y = ctx.saved_tensors
            return grad * y * ctx.scale, grad * x * ctx.scale, None

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0], requires_grad=True)
    z = ScaledMul.apply(x, y, 2.0)
    z.sum().backward()
    out("result and grads", (z, x.grad, y.grad, z.grad_fn.name()))
    out("keyword and default arguments", (ScaledMul.apply(x, y, scale=3.0), ScaledMul.apply(x, y)))


def snip_setup_context_sees_inputs_and_outputs(torch, out):
    class Split(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2, x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_non_differentiable(output[1])
            ctx.seen = (type(inputs).__name__, len(inputs), type(output).__name__)

        @staticmethod
        def backward(ctx, g_first, g_second):
            return g_first * 2

    x = torch.ones(2, requires_grad=True)
    first, second = Split.apply(x)
    first.sum().backward()
    out("what it saw", first.grad_fn.seen)
    out("non-differentiable output", second.requires_grad)
    out("x.grad", x.grad)


def snip_dirty_inputs_and_materialize_grads(torch, out):
    class AddOne(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x.add_(1)

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.mark_dirty(inputs[0])

        @staticmethod
        def backward(ctx, grad):
            return grad

    a = torch.ones(2, requires_grad=True)
    b = a * 1
    c = AddOne.apply(b)
    c.sum().backward()
    out("mark_dirty", (c, a.grad, c.grad_fn.name(), b._version))

    class Pair(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2, x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.set_materialize_grads(False)

        @staticmethod
        def backward(ctx, g1, g2):
            return (g1 if g1 is not None else 0) + (g2 if g2 is not None else 0)

    x = torch.ones(2, requires_grad=True)
    first, _ = Pair.apply(x)
    first.sum().backward()
    out("set_materialize_grads(False)", x.grad)


def snip_when_setup_context_runs(torch, out):
    calls = []

    class Double(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            calls.append(ctx.needs_input_grad)

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    Double.apply(torch.ones(2, requires_grad=True))
    with torch.no_grad():
        Double.apply(torch.ones(2, requires_grad=True))
    Double.apply(torch.ones(2))
    out("every call, with or without grad", calls)


def snip_double_backward_and_once_differentiable(torch, out):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(x):
            return x**3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x**2 * grad

    x = torch.tensor([2.0], requires_grad=True)
    (g,) = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
    out("second derivative", (g, torch.autograd.grad(g, x)))

    class Square(Cube):
        @staticmethod
        def forward(x):
            return x**2

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    (g,) = torch.autograd.grad(Square.apply(x), x, create_graph=True)
    out("once_differentiable", g)
    with out.raises("its gradient has no graph"):
        g.backward()


def snip_errors(torch, out):
    class TakesCtx(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, grad):
            return grad

    with out.raises("forward takes a ctx as well"):
        TakesCtx.apply(torch.ones(2, requires_grad=True))
    with out.raises("base setup_context"):
        torch.autograd.Function.setup_context(None, (), None)


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_function_setup_context(snippet):
    assert_same(snippet)
