""" "Double Backward with Custom Functions": saving an input (Square), saving an output (Exp),
returning intermediates as outputs so they stay differentiable (Sinh), what goes wrong when
they are stashed on ctx instead, a backward that is itself a custom Function (Cube), and
once_differentiable. gradcheck and gradgradcheck validate each."""

from __future__ import annotations

from ._support import check, parametrize


def grid(torch):
    return torch.tensor(
        [[0.1, 0.45, 0.8], [0.3, 0.65, 0.2], [0.9, 0.05, 0.55]],
        dtype=torch.double,
        requires_grad=True,
    )


def snip_square_saves_its_input(torch, out):
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 2 * x

    x = grid(torch)
    out("gradcheck", torch.autograd.gradcheck(Square.apply, x))
    out("gradgradcheck", torch.autograd.gradgradcheck(Square.apply, x))
    x = torch.tensor(1.0, requires_grad=True).clone()
    result = Square.apply(x)
    (grad_x,) = torch.autograd.grad(result, x, create_graph=True)
    out("grad_x is a function of x", (grad_x, grad_x.requires_grad, grad_x.grad_fn.name()))
    out("its edges", [n.name() if n else None for n, _ in grad_x.grad_fn.next_functions])
    out("second derivative", torch.autograd.grad(grad_x, x))


def snip_exp_saves_its_output(torch, out):
    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = torch.exp(x)
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            (result,) = ctx.saved_tensors
            return result * grad_out

    x = torch.tensor(1.0, requires_grad=True, dtype=torch.double).clone()
    out("gradcheck", torch.autograd.gradcheck(Exp.apply, x))
    out("gradgradcheck", torch.autograd.gradgradcheck(Exp.apply, x))
    result = Exp.apply(x)
    (grad_x,) = torch.autograd.grad(result, x, create_graph=True)
    out("grad_x", (grad_x, grad_x.grad_fn.name()))
    out("second derivative", torch.autograd.grad(grad_x, x))


def sinh_with_intermediate_outputs(torch):
    class Sinh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, grad_out_exp, grad_out_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += grad_out_exp * expx
            grad_input -= grad_out_negexp * expnegx
            return grad_input

    return Sinh


def snip_sinh_returns_its_intermediates(torch, out):
    Sinh = sinh_with_intermediate_outputs(torch)

    def sinh(x):
        return Sinh.apply(x)[0]

    x = grid(torch)
    out("gradcheck", torch.autograd.gradcheck(sinh, x))
    out("gradgradcheck", torch.autograd.gradgradcheck(sinh, x))
    result = sinh(x)
    (grad_x,) = torch.autograd.grad(result.sum(), x, create_graph=True)
    out("grad_x = cosh(x)", (grad_x, grad_x.grad_fn.name()))
    out("d(cosh)/dx = sinh", torch.autograd.grad(grad_x.sum(), x))
    outputs = Sinh.apply(x)
    out("three outputs, one node", [(o.grad_fn.name(), o.output_nr) for o in outputs])


def snip_sinh_stashed_on_ctx_is_not_differentiable(torch, out):
    class Sinh(torch.autograd.Function):  # what not to do
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.expx = expx
            ctx.expnegx = expnegx
            return (expx - expnegx) / 2

        @staticmethod
        def backward(ctx, grad_out):
            return grad_out * (ctx.expx + ctx.expnegx) / 2

    x = grid(torch)
    result = Sinh.apply(x)
    (grad_x,) = torch.autograd.grad(result.sum(), x, create_graph=True)
    out("first derivative is right", grad_x)
    out("but has no graph", (grad_x.requires_grad, grad_x.grad_fn is None))
    with out.raises("differentiating it again"):
        torch.autograd.grad(grad_x.sum(), x)
    out("gradcheck still passes", torch.autograd.gradcheck(Sinh.apply, x))
    out(
        "gradgradcheck catches it",
        torch.autograd.gradgradcheck(Sinh.apply, x, raise_exception=False),
    )


def cube(torch):
    class CubeBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return grad_out * 3 * x**2

        @staticmethod
        def backward(ctx, grad_out):
            x, saved_grad_out = ctx.saved_tensors
            dx = grad_out * saved_grad_out * 6 * x
            dgrad_out = grad_out * 3 * x**2
            return dgrad_out, dx

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return CubeBackward.apply(grad_out, x)

    return Cube


def snip_cube_with_a_custom_backward_function(torch, out):
    Cube = cube(torch)
    x = torch.tensor(2.0, requires_grad=True, dtype=torch.double)
    out("gradcheck", torch.autograd.gradcheck(Cube.apply, x))
    out("gradgradcheck", torch.autograd.gradgradcheck(Cube.apply, x))
    result = Cube.apply(x)
    (grad_x,) = torch.autograd.grad(result, x, create_graph=True)
    out("grad_x", (grad_x, grad_x.grad_fn.name()))
    (second,) = torch.autograd.grad(grad_x, x, create_graph=True)
    out("second derivative 6x", (second, second.grad_fn.name()))
    out("third derivative", torch.autograd.grad(second, x))


def snip_once_differentiable(torch, out):
    from_function = torch.autograd.function

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        @from_function.once_differentiable
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 2 * x

    x = torch.tensor([1.0, -2.0], dtype=torch.double, requires_grad=True)
    out("gradcheck", torch.autograd.gradcheck(Square.apply, x))
    (g,) = torch.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    out("first order", (g, g.requires_grad))
    with out.raises("the gradient has no graph"):
        torch.autograd.grad(g.sum(), x)
    v = torch.ones(2, dtype=torch.double, requires_grad=True)
    (g,) = torch.autograd.grad(Square.apply(x), x, v, create_graph=True)
    out("with a differentiable grad_output", (g, g.requires_grad, g.grad_fn.name()))
    out("behind an error node", [n.name() for n, _ in g.grad_fn.next_functions])
    with out.raises("its graph does not reach x"):
        torch.autograd.grad(g.sum(), x)
    with out.raises("differentiating twice"):
        g.sum().backward()
    out("nothing accumulated", (x.grad, v.grad))
    y = Square.apply(x)
    y.sum().backward()
    out("plain backward", x.grad)


@parametrize(globals())
def test_double_backward_function(lib, snippet):
    check(snippet, lib)
