"""Learn the Basics, "Build the Neural Network" and "Optimizing Model Parameters": the
Flatten/Sequential classifier, softmax and argmax predictions, the train and test loops with
CrossEntropyLoss, every optimizer the tutorials name, zero_grad, and lr schedulers."""

from __future__ import annotations

from ._support import check, fixed, parametrize, set_params


def classifier(torch):
    nn = torch.nn

    class NeuralNetwork(nn.Module):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.linear_relu_stack = nn.Sequential(
                nn.Linear(4 * 4, 12), nn.ReLU(), nn.Linear(12, 12), nn.ReLU(), nn.Linear(12, 5)
            )

        def forward(self, x):
            x = self.flatten(x)
            return self.linear_relu_stack(x)

    return set_params(torch, NeuralNetwork())


def batches(torch):
    images = fixed(torch, 6, 1, 4, 4)
    labels = torch.tensor([0, 3, 1, 4, 2, 3])
    return [(images[:3], labels[:3]), (images[3:], labels[3:])]


def snip_build_the_network(torch, out):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = classifier(torch).to(device)
    out("repr", repr(model))
    x = fixed(torch, 1, 4, 4, scale=2.0)
    logits = model(x)
    pred_probab = torch.nn.Softmax(dim=1)(logits)
    y_pred = pred_probab.argmax(1)
    out("logits", (logits, logits.grad_fn.name()))
    out("probabilities", (pred_probab, pred_probab.sum()))
    out("predicted class", y_pred)
    out(
        "named_parameters",
        [(name, tuple(p.size()), p[:2].shape) for name, p in model.named_parameters()],
    )
    out("layers", (repr(model.linear_relu_stack[0]), len(model.linear_relu_stack)))


def snip_device_from_the_accelerator_api(torch, out):
    # The current Learn-the-Basics preamble picks a device through torch.accelerator.
    device = (
        torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
    )
    out("device", device)
    model = classifier(torch).to(device)
    out("parameters on it", [p.device.type for p in model.parameters()][:1])


def snip_default_device(torch, out):
    torch.set_default_device("cpu")
    out("default", str(torch.get_default_device()))
    x = torch.ones(2)
    out("new tensors follow it", (x.device.type, torch.nn.Linear(2, 2).weight.device.type))
    out("device objects", (str(torch.device("cpu")), torch.device("cpu").type))


def snip_train_and_test_loops(torch, out):
    model = classifier(torch)
    loss_fn = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train_loop(dataloader):
        model.train()
        for X, y in dataloader:
            pred = model(X)
            loss = loss_fn(pred, y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        return loss.item()

    def test_loop(dataloader):
        model.eval()
        test_loss, correct = 0, 0
        with torch.no_grad():
            for X, y in dataloader:
                pred = model(X)
                test_loss += loss_fn(pred, y).item()
                correct += (pred.argmax(1) == y).type(torch.float).sum().item()
        return test_loss / len(dataloader), correct

    for epoch in range(3):
        out(f"epoch {epoch}", (train_loop(batches(torch)), test_loop(batches(torch))))
    out("training flag", (model.training, model.linear_relu_stack[0].training))
    out("grads were reset to None", [p.grad for p in model.parameters()])


def run_optimizer(torch, out, name, **options):
    model = set_params(torch, torch.nn.Linear(3, 2))
    optimizer = getattr(torch.optim, name)(model.parameters(), **options)
    x = fixed(torch, 4, 3)
    for step in range(3):
        optimizer.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        optimizer.step()
        out(f"{name} step {step}", (loss, model.weight.detach().clone(), model.bias.detach()))
    out(f"{name} param_groups", sorted(optimizer.param_groups[0].keys()))


def snip_sgd(torch, out):
    run_optimizer(torch, out, "SGD", lr=0.1)
    run_optimizer(torch, out, "SGD", lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)


def snip_adam(torch, out):
    run_optimizer(torch, out, "Adam", lr=0.05)
    run_optimizer(torch, out, "Adam", lr=0.05, betas=(0.8, 0.9), amsgrad=True, weight_decay=0.1)


def snip_adamw(torch, out):
    run_optimizer(torch, out, "AdamW", lr=0.05)


def snip_rmsprop(torch, out):
    run_optimizer(torch, out, "RMSprop", lr=0.01)
    run_optimizer(torch, out, "RMSprop", lr=0.01, momentum=0.5, centered=True)


def snip_adagrad(torch, out):
    run_optimizer(torch, out, "Adagrad", lr=0.1)
    run_optimizer(torch, out, "Adagrad", lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)


def snip_adadelta(torch, out):
    run_optimizer(torch, out, "Adadelta", lr=1.0)
    run_optimizer(torch, out, "Adadelta", lr=0.5, rho=0.8, weight_decay=0.1)


def snip_adadelta_details(torch, out):
    model = set_params(torch, torch.nn.Linear(3, 2))
    optimizer = torch.optim.Adadelta(model.parameters(), maximize=True)
    out("repr", repr(optimizer))
    out("no state before a step", len(optimizer.state))
    model(fixed(torch, 4, 3)).sum().backward()
    optimizer.step()
    out("state", sorted(optimizer.state[model.weight].items()))
    out("maximize climbs", model.bias)
    out("state_dict", sorted(optimizer.state_dict()["param_groups"][0].items()))
    for bad in ({"lr": -1.0}, {"rho": 1.5}, {"eps": -1.0}, {"weight_decay": -0.1}):
        with out.raises(f"invalid {bad}"):
            torch.optim.Adadelta(model.parameters(), **bad)


def snip_zero_grad(torch, out):
    model = set_params(torch, torch.nn.Linear(2, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model(fixed(torch, 3, 2)).sum().backward()
    grad = model.weight.grad
    optimizer.zero_grad(set_to_none=False)
    out("set_to_none=False zeroes in place", (model.weight.grad is grad, model.weight.grad))
    optimizer.zero_grad()
    out("the default sets None", (model.weight.grad, model.bias.grad))
    model(fixed(torch, 3, 2)).sum().backward()
    model.zero_grad()
    out("Module.zero_grad too", model.weight.grad)


def snip_lr_schedulers(torch, out):
    from_sched = torch.optim.lr_scheduler
    model = set_params(torch, torch.nn.Linear(2, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = from_sched.StepLR(optimizer, step_size=2, gamma=0.7)
    lrs = []
    for _ in range(5):
        model(fixed(torch, 3, 2)).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
        lrs.append((scheduler.get_last_lr(), optimizer.param_groups[0]["lr"]))
    out("StepLR", lrs)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
    scheduler = from_sched.ExponentialLR(optimizer, gamma=0.5)
    for _ in range(3):
        optimizer.step()
        scheduler.step()
    out("ExponentialLR", (scheduler.get_last_lr(), scheduler.last_epoch))
    out("state_dict", sorted(scheduler.state_dict().keys()))


def snip_scheduler_before_optimizer_warns(torch, out):
    model = set_params(torch, torch.nn.Linear(2, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    with out.warns("scheduler.step() before optimizer.step()"):
        scheduler.step()
    out("lr", optimizer.param_groups[0]["lr"])


@parametrize(globals())
def test_optimization_tutorial(lib, snippet):
    check(snippet, lib)
