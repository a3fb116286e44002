"""The "Extending PyTorch" notes, autograd and nn parts: a Linear Function in the classic style
(forward with ctx) and in the setup_context style, needs_input_grad, a Function with a
non-tensor argument, set_materialize_grads(False), an extra output kept differentiable for
double backward (MyCube), a Function computed in NumPy, mark_dirty, mark_non_differentiable,
the errors of save_for_backward and of a wrong number of gradients, and a Linear Module built
on the Function (register_parameter, extra_repr)."""

from __future__ import annotations

import numpy as np

from ._support import check, fixed, parametrize


def linear_classic(torch):
    class LinearFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            ctx.seen = ctx.needs_input_grad
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


def linear_setup_context(torch):
    class LinearFunction(torch.autograd.Function):
        @staticmethod
        def forward(input, weight, bias):
            output = input @ weight.T
            if bias is not None:
                output += bias
            return output

        @staticmethod
        def setup_context(ctx, inputs, output):
            input, weight, bias = inputs
            ctx.save_for_backward(input, weight, bias)

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output @ weight
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.T @ input
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


def linear_inputs(torch):
    input = fixed(torch, 4, 3, dtype=torch.double).requires_grad_(True)
    weight = fixed(torch, 2, 3, scale=0.5, dtype=torch.double).requires_grad_(True)
    bias = fixed(torch, 2, scale=0.2, dtype=torch.double).requires_grad_(True)
    return input, weight, bias


def snip_linear_function_classic(torch, out):
    LinearFunction = linear_classic(torch)
    linear = LinearFunction.apply
    input, weight, bias = linear_inputs(torch)
    out("gradcheck", torch.autograd.gradcheck(linear, (input, weight), eps=1e-6, atol=1e-4))
    out("with bias", torch.autograd.gradcheck(linear, (input, weight, bias)))
    y = linear(input, weight, bias)
    out("output", (y, y.grad_fn.name()))
    y.sum().backward()
    out("grads", (input.grad, weight.grad, bias.grad))
    frozen_input = input.detach()
    out("matches F.linear", torch.allclose(y, torch.nn.functional.linear(input, weight, bias)))
    seen = []

    class Spy(LinearFunction):
        @staticmethod
        def backward(ctx, grad_output):
            seen.append(ctx.needs_input_grad)
            return LinearFunction.backward(ctx, grad_output)

    Spy.apply(frozen_input, weight, bias).sum().backward()
    Spy.apply(frozen_input, weight).sum().backward()
    out("needs_input_grad", seen)


def snip_linear_function_setup_context(torch, out):
    LinearFunction = linear_setup_context(torch)
    input, weight, bias = linear_inputs(torch)
    out("gradcheck", torch.autograd.gradcheck(LinearFunction.apply, (input, weight, bias)))
    y = LinearFunction.apply(input, weight, bias)
    y.sum().backward()
    out("grads", (y.grad_fn.name(), input.grad, weight.grad, bias.grad))
    out("no bias", LinearFunction.apply(input, weight, None).shape)


def mul_constant(torch, materialize):
    class MulConstant(torch.autograd.Function):
        @staticmethod
        def forward(ctx, tensor, constant):
            ctx.set_materialize_grads(materialize)
            ctx.constant = constant
            return tensor * constant

        @staticmethod
        def backward(ctx, grad_output):
            if grad_output is None:
                return None, None
            return grad_output * ctx.constant, None

    return MulConstant


def snip_non_tensor_arguments(torch, out):
    MulConstant = mul_constant(torch, True)
    x = torch.tensor([1.0, -2.0], requires_grad=True)
    y = MulConstant.apply(x, 5.5)
    y.sum().backward()
    out("grad", (y, x.grad))

    class MulConstantSetup(torch.autograd.Function):
        @staticmethod
        def forward(tensor, constant):
            return tensor * constant

        @staticmethod
        def setup_context(ctx, inputs, output):
            _, constant = inputs
            ctx.constant = constant

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.constant, None

    x.grad = None
    MulConstantSetup.apply(x, 0.5).sum().backward()
    out("setup_context style", x.grad)


def snip_set_materialize_grads(torch, out):
    seen = []

    def two_outputs(materialize):
        class Split(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen.append((materialize, g1 is None, g2 is None))
                total = g1 * 2 if g1 is not None else None
                if g2 is not None:
                    total = g2 * 3 if total is None else total + g2 * 3
                return total

        return Split

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for materialize in (True, False):
        first, _ = two_outputs(materialize).apply(x)
        first.sum().backward()
    out("what backward received", seen)
    out("grad", x.grad)
    MulConstant = mul_constant(torch, False)
    y = MulConstant.apply(x, 3.0)
    out("a single output gets its gradient anyway", torch.autograd.grad(y.sum(), x))


def snip_my_cube_keeps_dx_differentiable(torch, out):
    class MyCube(torch.autograd.Function):
        @staticmethod
        def forward(x):
            result = x**3
            dx = 3 * x**2
            return result, dx

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            result, dx = output
            ctx.save_for_backward(x, dx)

        @staticmethod
        def backward(ctx, grad_output, grad_dx):
            x, dx = ctx.saved_tensors
            return grad_output * dx + grad_dx * 6 * x

    def my_cube(x):
        result, dx = MyCube.apply(x)
        return result

    x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.double, requires_grad=True)
    out("gradcheck", torch.autograd.gradcheck(my_cube, x))
    out("gradgradcheck", torch.autograd.gradgradcheck(my_cube, x))
    (g,) = torch.autograd.grad(my_cube(x).sum(), x, create_graph=True)
    out("3x^2", (g, g.grad_fn.name()))
    out("6x", torch.autograd.grad(g.sum(), x))


def snip_a_function_in_numpy(torch, out):
    class NumpySquare(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return torch.from_numpy(np.square(x.numpy()))

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return torch.from_numpy(2 * x.detach().numpy() * grad_output.detach().numpy())

    class NumpyInBackward(NumpySquare):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return torch.from_numpy(2 * x.numpy() * grad_output.numpy())

    x = torch.tensor([1.5, -2.0], dtype=torch.double, requires_grad=True)
    y = NumpySquare.apply(x)
    out("forward", (y, y.grad_fn.name(), y.dtype))
    y.sum().backward()
    out("backward", x.grad)
    out("gradcheck", torch.autograd.gradcheck(NumpySquare.apply, x))
    (g,) = torch.autograd.grad(NumpySquare.apply(x).sum(), x, create_graph=True)
    out("no graph through NumPy", g.requires_grad)
    NumpyInBackward.apply(x).sum().backward()
    out("numpy() in a plain backward", x.grad)
    with out.raises("numpy() in a backward that records (create_graph)"):
        torch.autograd.grad(NumpyInBackward.apply(x).sum(), x, create_graph=True)


def snip_mark_dirty(torch, out):
    class AddOne_(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    c = AddOne_.apply(b)
    out("same tensor, new history", (c is b, b.grad_fn.name(), b._version, b))
    (c * c).sum().backward()
    out("grad", a.grad)
    with out.raises("on a leaf that requires grad"):
        AddOne_.apply(torch.ones(2, requires_grad=True))

    class Forgetful(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output

    with out.raises("dirty input not returned"):
        Forgetful.apply(torch.ones(2, requires_grad=True) * 1)


def snip_mark_non_differentiable(torch, out):
    class SortWithIndices(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            values, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return values, indices

        @staticmethod
        def backward(ctx, grad_values, grad_indices):
            (indices,) = ctx.saved_tensors
            grad = torch.zeros_like(grad_values)
            grad[indices] = grad_values
            return grad

    x = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, indices = SortWithIndices.apply(x)
    out("flags", (values.requires_grad, indices.requires_grad, indices.grad_fn, indices.dtype))
    (values * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
    out("grad", x.grad)

    class ScaleBoth(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            half = x * 0.5
            ctx.mark_non_differentiable(half)
            return x * 2, half

        @staticmethod
        def backward(ctx, g, g_half):
            out("a non-differentiable output's gradient is zeros", g_half)
            return g * 2

    doubled, half = ScaleBoth.apply(x)
    (doubled.sum() + half.sum()).backward()
    out("float output marked", (half.requires_grad, x.grad))


def snip_save_for_backward_errors(torch, out):
    class SavesANumber(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * 3

    with out.raises("a non-tensor"):
        SavesANumber.apply(torch.ones(2, requires_grad=True))

    class SavesAnIntermediate(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            t = x * 3
            ctx.save_for_backward(t)
            return t + 1

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * t

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = SavesAnIntermediate.apply(x)
    y.sum().backward()
    out("an intermediate may be saved", x.grad)
    (g,) = torch.autograd.grad(SavesAnIntermediate.apply(x).sum(), x, create_graph=True)
    out("but carries no graph", g.requires_grad)
    with out.raises("saved_tensors after backward"):
        y.grad_fn.saved_tensors  # noqa: B018

    class SavesInput(torch.autograd.Function):
        @staticmethod
        def forward(ctx, v):
            ctx.save_for_backward(v)
            return v * 2

        @staticmethod
        def backward(ctx, g):
            (v,) = ctx.saved_tensors
            return g * v

    w = x * 1
    s = SavesInput.apply(w)
    w.add_(1)
    with out.raises("input modified in place after saving"):
        s.sum().backward()


def snip_wrong_number_of_gradients(torch, out):
    def function(n_grads):
        class Fn(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x * y

            @staticmethod
            def backward(ctx, g):
                return (g,) * n_grads

        return Fn

    x = torch.ones(2, requires_grad=True)
    y = torch.ones(2, requires_grad=True)
    with out.raises("one gradient for two inputs"):
        function(1).apply(x, y).sum().backward()
    with out.raises("three gradients for two inputs"):
        function(3).apply(x, y).sum().backward()
    function(2).apply(x, y).sum().backward()
    out("two is right", (x.grad, y.grad))

    class ExtraNones(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x.grad = None
    ExtraNones.apply(x).sum().backward()
    out("trailing Nones are dropped", x.grad)

    class WrongShape(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return torch.ones(3)

    with out.raises("a gradient of the wrong shape"):
        WrongShape.apply(x).sum().backward()


def snip_gradcheck_catches_a_wrong_backward(torch, out):
    class WrongSquare(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * x  # forgot the factor 2

    x = torch.tensor([0.5, -1.5], dtype=torch.double, requires_grad=True)
    with out.raises("gradcheck raises"):
        torch.autograd.gradcheck(WrongSquare.apply, (x,))
    out(
        "raise_exception=False",
        torch.autograd.gradcheck(WrongSquare.apply, (x,), raise_exception=False),
    )
    try:
        torch.autograd.gradcheck(WrongSquare.apply, (x,))
    except RuntimeError as error:
        out("a RuntimeError", type(error).__name__)
    single = torch.tensor([0.5, -1.5], requires_grad=True)
    with out.warns("float32 inputs"):
        out(
            "float32, loose tolerance",
            torch.autograd.gradcheck(lambda t: t * 3, (single,), eps=1e-3, atol=1e-2),
        )
    with out.raises("no input requires grad"):
        torch.autograd.gradcheck(lambda t: t * 3, (x.detach(),))
    with out.raises("gradgradcheck of a wrong backward"):
        torch.autograd.gradgradcheck(WrongSquare.apply, (x,))


def snip_vjp_is_an_alias_of_backward(torch, out):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    x = torch.tensor([1.0, 3.0], requires_grad=True)
    Double.apply(x).sum().backward()
    out("grad", x.grad)

    class Both(Double):
        @staticmethod
        def backward(ctx, g):
            return g

    with out.raises("defining both backward and vjp"):
        Both.apply(x).sum().backward()


def snip_linear_module_on_the_function(torch, out):
    nn = torch.nn
    LinearFunction = linear_classic(torch)

    class Linear(nn.Module):
        def __init__(self, input_features, output_features, bias=True):
            super().__init__()
            self.input_features = input_features
            self.output_features = output_features
            self.weight = nn.Parameter(torch.empty(output_features, input_features))
            if bias:
                self.bias = nn.Parameter(torch.empty(output_features))
            else:
                self.register_parameter("bias", None)
            self.weight.data.uniform_(-0.1, 0.1)
            if self.bias is not None:
                self.bias.data.uniform_(-0.1, 0.1)

        def forward(self, input):
            return LinearFunction.apply(input, self.weight, self.bias)

        def extra_repr(self):
            return (
                f"input_features={self.input_features}, "
                f"output_features={self.output_features}, bias={self.bias is not None}"
            )

    layer = Linear(3, 2)
    out("uniform_ bounds", bool((layer.weight.abs() <= 0.1).all()))
    out("repr", (repr(layer), repr(Linear(3, 2, bias=False))))
    out("parameters", [name for name, _ in layer.named_parameters()])
    no_bias = Linear(3, 2, bias=False)
    out("bias=False", ([name for name, _ in no_bias.named_parameters()], no_bias.bias))
    with torch.no_grad():
        layer.weight.copy_(fixed(torch, 2, 3))
        layer.bias.copy_(fixed(torch, 2, scale=0.3))
    y = layer(fixed(torch, 4, 3))
    y.pow(2).sum().backward()
    out("trains", (y, layer.weight.grad, layer.bias.grad))
    with out.raises("register_parameter with a non-parameter"):
        layer.register_parameter("scale", torch.ones(1))


@parametrize(globals())
def test_extending_notes(lib, snippet):
    check(snippet, lib)
