"""The 60-minute blitz, "A Gentle Introduction to torch.autograd" (and its older edition):
a training step, Q = 3a^3 - b^2 with an external gradient, requires_grad propagation,
freezing a model but its new classifier, the doubling loop, no_grad and detach."""

from __future__ import annotations

from ._support import check, fixed, parametrize, set_params


def snip_one_training_step(torch, out):
    # A small stand-in for the pretrained resnet: images in, 10 scores out.
    model = set_params(torch, torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 10)))
    data = fixed(torch, 2, 3, 2, 2)
    labels = fixed(torch, 2, 10, scale=0.3)
    prediction = model(data)
    loss = (prediction - labels).sum()
    loss.backward()
    out("prediction", (prediction, prediction.grad_fn.name()))
    out("loss", (loss, loss.grad_fn.name()))
    optim = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    optim.step()
    out("after one step", [p.detach().clone() for p in model.parameters()])
    optim.zero_grad()
    model(data).sum().backward()
    optim.step()
    out("momentum carries over", [p.detach().clone() for p in model.parameters()])


def snip_external_gradient(torch, out):
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([6.0, 4.0], requires_grad=True)
    q = 3 * a**3 - b**2
    out("Q", (q, q.grad_fn.name()))
    with out.raises("a vector output needs a gradient"):
        q.backward()
    external_grad = torch.tensor([1.0, 1.0])
    q.backward(gradient=external_grad)
    out("grads", (a.grad, b.grad))
    out("checks", ((9 * a**2 == a.grad).tolist(), (-2 * b == b.grad).tolist()))
    out("q.sum() matches", torch.equal(a.grad, 9 * a.detach() ** 2))


def snip_requires_grad_propagates(torch, out):
    x = fixed(torch, 5, 5)
    y = fixed(torch, 5, 5, scale=2.0)
    z = torch.ones((5, 5), requires_grad=True)
    a = x + y
    b = x + z
    out("a", (a.requires_grad, a.grad_fn is None, a.is_leaf))
    out("b", (b.requires_grad, b.grad_fn.name(), b.is_leaf))


def snip_freeze_all_but_the_classifier(torch, out):
    nn = torch.nn

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
            self.fc = nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(self.features(x))

    model = set_params(torch, Backbone())
    for param in model.parameters():
        param.requires_grad = False
    model.fc = set_params(torch, nn.Linear(8, 3), scale=0.25)  # new layers train by default
    out("trainable", [name for name, p in model.named_parameters() if p.requires_grad])
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    frozen = model.features[0].weight.detach().clone()
    x = fixed(torch, 4, 6)
    hidden = model.features(x)
    out("no graph through the frozen part", (hidden.requires_grad, hidden.grad_fn is None))
    loss = model(x).pow(2).mean()
    loss.backward()
    optimizer.step()
    out("frozen grads", [p.grad for p in model.features.parameters()])
    out("frozen weights unchanged", torch.equal(model.features[0].weight, frozen))
    out("classifier moved", (model.fc.weight.detach(), model.fc.bias.detach()))


def snip_old_blitz_first_graph(torch, out):
    x = torch.ones(2, 2, requires_grad=True)
    out("x", repr(x))
    y = x + 2
    out("y", (repr(y), y.grad_fn.name()))
    z = y * y * 3
    result = z.mean()
    out("z, out", (repr(z), repr(result)))
    result.backward()
    out("d(out)/dx", x.grad)


def snip_old_blitz_requires_grad_(torch, out):
    a = fixed(torch, 2, 2) * 3
    a = (a * 3) / (a - 1)
    out("before", a.requires_grad)
    returned = a.requires_grad_(True)
    out("after", (a.requires_grad, returned is a))
    b = (a * a).sum()
    out("b.grad_fn", b.grad_fn.name())
    a.requires_grad_()  # the flag defaults to True
    out("default flag", a.requires_grad)
    with out.raises("on a non-leaf"):
        b.requires_grad_(False)


def snip_old_blitz_doubling_loop(torch, out):
    x = torch.tensor([0.3, -1.2, 2.0], requires_grad=True)
    y = x * 2
    steps = 1
    while y.data.norm() < 1000:
        y = y * 2
        steps += 1
    out("y", (y, steps, y.grad_fn.name()))
    gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
    y.backward(gradients)
    out("x.grad", x.grad)
    out("no_grad", (x.requires_grad, (x**2).requires_grad))
    with torch.no_grad():
        out("inside no_grad", (x**2).requires_grad)
    y2 = x.detach()
    out("detach", (y2.requires_grad, torch.equal(x, y2), y2.is_leaf))


def snip_old_blitz_eq(torch, out):
    x = torch.tensor([0.5, -1.0], requires_grad=True)
    y = x.detach()
    out("x.eq(y).all()", x.eq(y).all())
    out("eq to a number", (x.eq(0.5), torch.eq(x, y)))


def snip_old_blitz_backward_shape_errors(torch, out):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    with out.raises("wrong gradient shape"):
        y.backward(torch.ones(2))
    with out.raises("a gradient for a tensor without grad"):
        torch.ones(3).backward(torch.ones(3))
    y.backward(torch.tensor([1.0, 0.5, 0.25]), retain_graph=True)
    y.backward(torch.tensor([1.0, 0.5, 0.25]))
    out("accumulated", x.grad)


@parametrize(globals())
def test_blitz_autograd(lib, snippet):
    check(snippet, lib)
