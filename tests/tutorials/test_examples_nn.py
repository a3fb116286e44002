""" "Learning PyTorch with Examples", the nn and optim parts: the cubic as nn.Sequential with a
summed MSE, the same with RMSprop, as a custom Module, the dynamic net that reuses a weight in
a loop, and the old two-layer nets (nn, optim.Adam, a custom Module)."""

from __future__ import annotations

import math

from ._support import check, fixed, parametrize, set_params


def features(torch, n=200):
    x = torch.linspace(-math.pi, math.pi, n)
    y = torch.sin(x)
    p = torch.tensor([1, 2, 3])
    return x, y, x.unsqueeze(-1).pow(p)


def snip_polynomial_nn(torch, out):
    x, y, xx = features(torch)
    out("features", (xx.shape, xx.dtype, xx[:2]))
    model = set_params(torch, torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)))
    out("model", repr(model))
    loss_fn = torch.nn.MSELoss(reduction="sum")
    learning_rate = 1e-5
    for t in range(40):
        y_pred = model(xx)
        loss = loss_fn(y_pred, y)
        if t % 20 == 19:
            out(f"loss at {t}", (loss.item(), loss.grad_fn.name(), y_pred.shape))
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    linear_layer = model[0]
    out(
        "result",
        (
            linear_layer.bias.item(),
            linear_layer.weight[:, 0].item(),
            linear_layer.weight[:, 1].item(),
            linear_layer.weight[:, 2].item(),
        ),
    )


def snip_polynomial_optim_rmsprop(torch, out):
    x, y, xx = features(torch)
    model = set_params(torch, torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1)))
    loss_fn = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    for t in range(40):
        loss = loss_fn(model(xx), y)
        if t % 20 == 19:
            out(f"loss at {t}", loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out("params", list(model.parameters()))
    out("state", sorted(optimizer.state[model[0].weight].keys()))


def polynomial3(torch):
    class Polynomial3(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Parameter(torch.tensor(0.1))
            self.b = torch.nn.Parameter(torch.tensor(0.4))
            self.c = torch.nn.Parameter(torch.tensor(-0.1))
            self.d = torch.nn.Parameter(torch.tensor(-0.05))

        def forward(self, x):
            return self.a + self.b * x + self.c * x**2 + self.d * x**3

        def string(self):
            return f"y = {self.a.item():.5f} + {self.b.item():.5f} x + {self.c.item():.5f} x^2"

    return Polynomial3()


def snip_polynomial_module(torch, out):
    x, y, _ = features(torch)
    model = polynomial3(torch)
    out("parameters", [(name, p.shape, p.requires_grad) for name, p in model.named_parameters()])
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
    for t in range(40):
        loss = criterion(model(x), y)
        if t % 20 == 19:
            out(f"loss at {t}", loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out("result", model.string())


def snip_dynamic_net(torch, out):
    class DynamicNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            for name, value in zip("abcde", (0.1, 0.5, -0.1, -0.05, 0.01)):
                setattr(self, name, torch.nn.Parameter(torch.tensor(value)))

        def forward(self, x, orders):
            y = self.a + self.b * x + self.c * x**2 + self.d * x**3
            for exp in range(4, orders):  # the same weight, reused a varying number of times
                y = y + self.e * x**exp
            return y

    x, y, _ = features(torch)
    model = DynamicNet()
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
    for t in range(30):
        y_pred = model(x, 4 + t % 3)  # the tutorial draws 4..6 at random
        loss = criterion(y_pred, y)
        optimizer.zero_grad()
        loss.backward()
        if t < 3:
            out(f"e.grad with {4 + t % 3} orders", model.e.grad)
        optimizer.step()
    out("params", list(model.parameters()))


def two_layer_model(torch, d_in=6, h=5, d_out=3):
    return set_params(
        torch,
        torch.nn.Sequential(torch.nn.Linear(d_in, h), torch.nn.ReLU(), torch.nn.Linear(h, d_out)),
    )


def snip_two_layer_net_nn(torch, out):
    x, y = fixed(torch, 8, 6), fixed(torch, 8, 3, scale=0.7)
    model = two_layer_model(torch)
    loss_fn = torch.nn.MSELoss(reduction="sum")
    learning_rate = 1e-2
    for _ in range(15):
        loss = loss_fn(model(x), y)
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for param in model.parameters():
                param -= learning_rate * param.grad
    out("loss", loss.item())
    out("params", list(model.parameters()))
    out("grads after zero_grad()", (model.zero_grad(), [p.grad for p in model.parameters()]))


def snip_two_layer_net_optim_adam(torch, out):
    x, y = fixed(torch, 8, 6), fixed(torch, 8, 3, scale=0.7)
    model = two_layer_model(torch)
    loss_fn = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(15):
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out("loss", loss.item())
    out("params", list(model.parameters()))
    out("step count", optimizer.state[model[0].weight]["step"])


def snip_two_layer_net_module(torch, out):
    class TwoLayerNet(torch.nn.Module):
        def __init__(self, d_in, h, d_out):
            super().__init__()
            self.linear1 = torch.nn.Linear(d_in, h)
            self.linear2 = torch.nn.Linear(h, d_out)

        def forward(self, x):
            h_relu = self.linear1(x).clamp(min=0)
            return self.linear2(h_relu)

    x, y = fixed(torch, 8, 6), fixed(torch, 8, 3, scale=0.7)
    model = set_params(torch, TwoLayerNet(6, 5, 3))
    out("repr", repr(model))
    criterion = torch.nn.MSELoss(reduction="sum")
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-2)
    for _ in range(15):
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    out("loss", loss.item())
    out("state_dict", list(model.state_dict().items()))


@parametrize(globals())
def test_examples_nn(lib, snippet):
    check(snippet, lib)
