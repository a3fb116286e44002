"""Introduction to PyTorch (the video series), "The Fundamentals of Autograd": sin over a
linspace that requires grad, walking next_functions back to the leaf, a tiny model's gradients
before and after a step, accumulation across backward calls, turning autograd off and on
(requires_grad = False, no_grad as block and decorator, enable_grad, detach), the in-place
error on a leaf, and the high-level API (jacobian, hessian, vjp, jvp, hvp, vhp)."""

from __future__ import annotations

import math

from ._support import check, fixed, parametrize, set_params


def snip_walk_the_graph(torch, out):
    a = torch.linspace(0.0, 2.0 * math.pi, steps=25, requires_grad=True)
    b = torch.sin(a)
    c = 2 * b
    d = c + 1
    result = d.sum()
    out("a", (a[:3], a.requires_grad, a.is_leaf))
    out("printed", (repr(b[:2]), repr(result)))
    chain = []
    node = result.grad_fn
    while node is not None:
        chain.append(node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    out("from out back to a", chain)
    out("grad_fns", (d.grad_fn.name(), c.grad_fn.name(), b.grad_fn.name(), a.grad_fn))
    result.backward()
    out("d(out)/da = 2 cos(a)", (a.grad, torch.allclose(a.grad, 2 * torch.cos(a.detach()))))
    out("detach for plotting", (a.detach().requires_grad, b.detach().numpy().shape))
    with out.warns("c is not a leaf"):
        out("c.grad", c.grad)


def tiny_model(torch):
    class TinyModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer1 = torch.nn.Linear(10, 6)
            self.relu = torch.nn.ReLU()
            self.layer2 = torch.nn.Linear(6, 3)

        def forward(self, x):
            x = self.layer1(x)
            x = self.relu(x)
            return self.layer2(x)

    return set_params(torch, TinyModel())


def snip_autograd_in_training(torch, out):
    some_input = fixed(torch, 4, 10, scale=2.0)
    ideal_output = fixed(torch, 4, 3)
    model = tiny_model(torch)
    out("before", (model.layer2.weight[0][0:4], model.layer2.weight.grad))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
    prediction = model(some_input)
    loss = (ideal_output - prediction).pow(2).sum()
    out("loss", loss)
    loss.backward()
    out("grads, weights unchanged", (model.layer2.weight[0][0:4], model.layer2.weight.grad[0]))
    optimizer.step()
    out("after step", model.layer2.weight[0][0:4])
    for _ in range(5):
        prediction = model(some_input)
        loss = (ideal_output - prediction).pow(2).sum()
        loss.backward()
    out("accumulated over 5 more passes", model.layer2.weight.grad[0])
    optimizer.zero_grad()
    out("after zero_grad", model.layer2.weight.grad)


def snip_turning_autograd_off_and_on(torch, out):
    a = torch.ones(2, 3, requires_grad=True)
    b1 = 2 * a
    a.requires_grad = False
    b2 = 2 * a
    out("flag on a leaf", (repr(b1), repr(b2)))
    a = torch.ones(2, 3, requires_grad=True) * 2
    b = torch.ones(2, 3, requires_grad=True) * 3
    c1 = a + b
    with torch.no_grad():
        c2 = a + b
    c3 = a * b
    out("no_grad block", (c1.grad_fn.name(), c2.grad_fn, c3.grad_fn.name()))
    with out.raises("requires_grad on a non-leaf"):
        c1.requires_grad = False

    def add_tensors1(x, y):
        return x + y

    @torch.no_grad()
    def add_tensors2(x, y):
        return x + y

    out(
        "decorators",
        (
            add_tensors1(a, b).requires_grad,
            add_tensors2(a, b).requires_grad,
            add_tensors2.__name__,
        ),
    )

    @torch.enable_grad()
    def doubler(x):
        return x * 2

    with torch.no_grad():
        out("enable_grad inside no_grad", (doubler(a).requires_grad, (a * 2).requires_grad))
    x = fixed(torch, 5).requires_grad_(True)
    y = x.detach()
    out("detach", (repr(x), repr(y)))


def snip_decorators_without_parentheses(torch, out):
    a = torch.ones(2, requires_grad=True)

    @torch.no_grad
    def add_one(x):
        return x + 1

    @torch.inference_mode
    def add_two(x):
        return x + 2

    out("no_grad", (add_one(a).requires_grad, add_one.__name__))
    out("inference_mode", (add_two(a).requires_grad, add_two(a).is_inference()))


def snip_inplace_on_a_leaf(torch, out):
    a = torch.linspace(0.0, 2.0 * math.pi, steps=5, requires_grad=True)
    with out.raises("torch.sin_ on a leaf"):
        torch.sin_(a)
    with out.raises("a.sin_() on a leaf"):
        a.sin_()
    with torch.no_grad():
        a.sin_()
    out("allowed under no_grad", (a, a._version, a.requires_grad))


def exp_adder(x, y):
    return 2 * x.exp() + 3 * y


def snip_jacobian(torch, out):
    F = torch.autograd.functional
    inputs = (torch.tensor([0.25]), torch.tensor([0.75]))
    out("one element each", F.jacobian(exp_adder, inputs))
    inputs = (torch.tensor([0.1, 0.5, 0.9]), torch.tensor([0.3, 0.2, 0.6]))
    out("three each", F.jacobian(exp_adder, inputs))
    out("a single input", F.jacobian(lambda x: x**2, torch.tensor([1.0, 2.0])))
    out("inputs untouched", (inputs[0].requires_grad, inputs[0].grad))


def snip_hessian(torch, out):
    F = torch.autograd.functional

    def f(x):
        return (x**3).sum() + x[0] * x[1]

    out("hessian", F.hessian(f, torch.tensor([1.0, 2.0])))

    def g(x, y):
        return (x * y * y).sum()

    out("two inputs", F.hessian(g, (torch.tensor([1.0, 2.0]), torch.tensor([0.5, -1.0]))))


def do_some_doubling(x):
    y = x * 2
    while y.data.norm() < 1000:
        y = y * 2
    return y


def snip_vector_products(torch, out):
    F = torch.autograd.functional
    inputs = torch.tensor([0.3, -1.2, 2.0])
    my_gradients = torch.tensor([0.1, 1.0, 0.0001])
    out("vjp", F.vjp(do_some_doubling, inputs, v=my_gradients))
    out("jvp", F.jvp(do_some_doubling, inputs, v=my_gradients))

    def f(x):
        return (x**3).sum()

    v = torch.tensor([1.0, 0.5, -1.0])
    out("hvp", F.hvp(f, inputs, v))
    out("vhp", F.vhp(f, inputs, v))


def snip_functional_errors(torch, out):
    F = torch.autograd.functional
    with out.raises("hessian of a vector function"):
        F.hessian(lambda x: x**2, torch.tensor([1.0, 2.0]))
    with out.raises("vjp without v for a vector output"):
        F.vjp(lambda x: x * 2, torch.tensor([1.0, 2.0]))
    with out.raises("jvp v of the wrong shape"):
        F.jvp(lambda x: x * 2, torch.tensor([1.0, 2.0]), torch.ones(3))


def snip_functional_options(torch, out):
    F = torch.autograd.functional

    def f(x, y):
        return x * y.exp(), (x**2).sum()

    inputs = (torch.tensor([1.0, 2.0]), torch.tensor([0.5, -0.5]))
    jac = F.jacobian(f, inputs)
    out("tuple of outputs by tuple of inputs", jac)
    jac = F.jacobian(lambda x: x.sin(), inputs[0], create_graph=True)
    out("create_graph", (jac.requires_grad, jac.grad_fn.name()))
    out("hessian create_graph", F.hessian(lambda t: (t**3).sum(), inputs[0], create_graph=True))
    with out.raises("forward-mode needs vectorize"):
        F.jacobian(lambda t: t**2, inputs[0], strategy="forward-mode")
    with out.raises("an empty output"):
        F.jacobian(lambda t: t[:0], inputs[0])
    out("vectorize", F.jacobian(lambda x: x.sin(), inputs[0], vectorize=True))
    value, vjp = F.vjp(lambda x: (x**2).sum(), inputs[0])
    out("v may be None for a scalar", (value, vjp))
    out(
        "vjp create_graph",
        F.vjp(lambda x: x**2, inputs[0], torch.ones(2), create_graph=True)[1].requires_grad,
    )
    out("independent input gives zeros", F.jacobian(lambda x, y: x * 2, inputs))
    with out.raises("strict: an input the output ignores"):
        F.jacobian(lambda x, y: x * 2, inputs, strict=True)
    with out.raises("strict: an output that does not require grad"):
        F.vjp(lambda x: torch.ones(2), inputs[0], torch.ones(2), strict=True)
    with out.raises("strict: a linear function's hessian"):
        F.hessian(lambda x: (x * 2).sum(), inputs[0], strict=True)
    with out.raises("a list is not a tuple of tensors"):
        F.jacobian(lambda x: x, [1.0, 2.0])
    with out.raises("a function returning a number"):
        F.vjp(lambda x: 3.0, inputs[0])
    with out.raises("v of the wrong length"):
        F.vjp(lambda x, y: x * y, inputs, (torch.ones(2), torch.ones(2)))
    with out.raises("hvp of a function returning a tuple"):
        F.hvp(lambda x: ((x**2).sum(), x.sum()), inputs[0], torch.ones(2))
    with out.raises("an unknown strategy"):
        F.jacobian(lambda x: x, inputs[0], strategy="sideways")


@parametrize(globals())
def test_autogradyt(lib, snippet):
    check(snippet, lib)
