"""Custom autograd.Function: ctx API, outputs, dirty and non-differentiable tensors, errors."""

from __future__ import annotations

import pytest
from parity import assert_same

from semantics.snippets import collect, edges


def _functions(torch):
    Function = torch.autograd.Function  # noqa: N806

    class MulConst(Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.k = k
            ctx.save_for_backward(x)
            return x * k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.k, None

    class TwoOut(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    class Needs(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return (
                g * b if ctx.needs_input_grad[0] else None,
                g * a if ctx.needs_input_grad[1] else None,
            )

    return MulConst, TwoOut, Needs


def snip_basic_function(torch, out):
    MulConst, TwoOut, Needs = _functions(torch)  # noqa: N806
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = MulConst.apply(x, 3.0)
    out("name", (y.grad_fn.name(), edges(y.grad_fn), y.requires_grad))
    y.sum().backward()
    out("grad", x.grad)
    with out.raises("saved after free"):
        _ = y.grad_fn.saved_tensors
    a, b = TwoOut.apply(x)
    (a.sum() + b.sum()).backward()
    out(
        "two outputs",
        (x.grad, a.grad_fn is b.grad_fn, a.output_nr if hasattr(a, "output_nr") else None),
    )


def snip_needs_input_grad(torch, out):
    _, _, Needs = _functions(torch)  # noqa: N806
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor([3.0, 4.0])
    y = Needs.apply(a, b)
    out("needs", y.grad_fn.needs_input_grad)
    y.sum().backward()
    out("a.grad", a.grad)
    with torch.no_grad():
        z = Needs.apply(a, b)
    out("under no_grad", (z.requires_grad, z.grad_fn is None))


def snip_wrong_number_of_gradients(torch, out):
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1.0], requires_grad=True)
    with out.raises("too few"):
        Bad.apply(x, x).backward()

    class Extra(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, g

    with out.raises("too many"):
        Extra.apply(x).backward()

    class ExtraNone(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g, None

    ExtraNone.apply(x).backward()
    out("trailing None is fine", x.grad)


def snip_wrong_gradient_shape(torch, out):
    class BadShape(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return torch.ones(5)

    class Broadcast(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g.expand(4, 2)

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with out.raises("bad shape"):
        BadShape.apply(x).sum().backward()
    Broadcast.apply(x).sum().backward()
    out("expandable gradient is summed", x.grad)


def snip_mark_dirty(torch, out):
    class AddOneInplace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    z = AddOneInplace.apply(y)
    out("same object, rebased", (z is y, y.grad_fn.name(), y._version))
    z.sum().backward()
    out("grad", x.grad)
    with out.raises("leaf"):
        AddOneInplace.apply(x)

    class ForgotToReturn(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.clamp(min=0)

        @staticmethod
        def backward(ctx, g):
            return g

    with out.raises("dirty not returned"):
        ForgotToReturn.apply(x * 1)


def snip_mark_non_differentiable(torch, out):
    class SortLike(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            idx = torch.tensor([1.0, 0.0])
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            out("g_idx materialized", g_idx)
            return g * 2

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    v, i = SortLike.apply(x)
    out("flags", (v.requires_grad, i.requires_grad))
    v.sum().backward()
    out("grad", x.grad)

    class MarkInput(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x.detach()

        @staticmethod
        def backward(ctx, g):
            return g

    out("marking an input does nothing", MarkInput.apply(x).requires_grad)


def snip_materialize_grads(torch, out):
    def make(materialize):
        class TwoOut(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 1, x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                out(f"g2 with materialize={materialize}", g2)
                return g1 if g2 is None else g1 + g2

        return TwoOut

    for flag in (True, False):
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        a, _ = make(flag).apply(x)
        a.sum().backward()
        out(f"grad {flag}", x.grad)


def snip_returned_input_and_non_tensor_args(torch, out):
    class Identity(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale, name):
            ctx.scale = scale
            return x

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None, None

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Identity.apply(x, 5.0, "label")
    out("new tensor", (y is x, y.grad_fn.name(), edges(y.grad_fn)))
    y.sum().backward()
    out("grad", x.grad)


def snip_gradient_for_a_non_tensor_argument(torch, out):
    """backward returning a value (a tensor, a number) where forward got a float, an int, None,
    a string or a list: PyTorch refuses it, naming the 1-based position, in backward, in
    autograd.grad and with create_graph; None there, or fewer Nones at the end, is fine."""

    def make(second):
        class Scaled(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, scale, extra):
                ctx.scale = 2.0
                return x * ctx.scale

            @staticmethod
            def backward(ctx, g):
                return g * ctx.scale, second(g), None

        return Scaled

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for label, second in [
        ("a tensor", lambda g: g.sum()),
        ("a 0-d zero", lambda g: torch.tensor(0.0)),
        ("a number", lambda g: 1.0),
        ("a zero number", lambda g: 0),
        ("None", lambda g: None),
    ]:
        for scale in (2.5, 3, None, "two", [1, 2]):
            x.grad = None
            with out.raises(f"{label} for {scale!r}"):
                make(second).apply(x, scale, None).sum().backward()
            out(f"grad after {label} for {scale!r}", x.grad)
        with out.raises(f"{label}, autograd.grad"):
            out(f"{label}, grad", torch.autograd.grad(make(second).apply(x, 2.5, None).sum(), x))
        with out.raises(f"{label}, create_graph"):
            y = make(second).apply(x, 2.5, None).sum()
            out(f"{label}, grad", torch.autograd.grad(y, x, create_graph=True))

    class ForTheThird(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale, y):
            return x * scale + y

        @staticmethod
        def backward(ctx, g):
            return g, None, g, g.sum()

    y = torch.tensor([3.0, 4.0])  # a tensor that needs no gradient may still be given one
    with out.raises("third is a tensor, fourth extra"):
        ForTheThird.apply(x, 2.0, y).sum().backward()


def snip_double_backward_through_function(torch, out):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x**2

    x = torch.tensor([2.0], requires_grad=True)
    (g1,) = torch.autograd.grad(Cube.apply(x), x, create_graph=True)
    (g2,) = torch.autograd.grad(g1, x)
    out("grads", (g1, g2))


def snip_straight_through(torch, out):
    class RoundSTE(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return (
                torch.tensor((x.detach() + 0.5).tolist()).floor()
                if hasattr(torch.tensor(1.0), "floor")
                else x
            )

        @staticmethod
        def backward(ctx, g):
            return g

    class Step(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return (x > 0).float()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x.abs() <= 1).float()

    x = torch.tensor([-2.0, -0.5, 0.5, 3.0], requires_grad=True)
    y = Step.apply(x)
    y.sum().backward()
    out("step", (y, x.grad))


def snip_legacy_call_and_missing_backward(torch, out):
    class NoBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    x = torch.tensor([1.0], requires_grad=True)
    with out.raises("missing backward"):
        NoBackward.apply(x).backward()


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_custom_function(snippet):
    assert_same(snippet)
