"""PyTorch's own tutorials and recipes beyond autograd: "Learn the Basics" tensors, "What is
torch.nn really?", the transfer-learning recipe, the saving and zeroing-gradients recipes,
parametrizations and pruning, rewritten on tiny synthetic images."""

from __future__ import annotations

import copy
import importlib
import math
import os
import tempfile

import numpy as np
from tutorials._support import check, fixed, parametrize, set_params

from ._data import randn, summary


def snip_tensor_basics(torch, out):
    data = [[1, 2], [3, 4]]
    x_data = torch.tensor(data)
    np_array = np.array(data)
    x_np = torch.from_numpy(np_array)
    x_ones = torch.ones_like(x_data)
    x_rand = torch.rand_like(x_data, dtype=torch.float)
    out(
        "from data",
        (x_data, x_np, x_ones, summary(x_rand), bool(((x_rand >= 0) & (x_rand < 1)).all())),
    )
    shape = (2, 3)
    out("from shape", (summary(torch.rand(shape)), torch.ones(shape), torch.zeros(shape)))
    tensor = torch.ones(4, 4)
    out("attributes", (tensor.shape, tensor.dtype, str(tensor.device)))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    tensor = tensor.to(device)
    tensor[:, 1] = 0
    out("indexing", (tensor[0], tensor[:, 0], tensor[..., -1]))
    t1 = torch.cat([tensor, tensor, tensor], dim=1)
    y1 = tensor @ tensor.T
    y2 = tensor.matmul(tensor.T)
    z1 = tensor * tensor
    z2 = tensor.mul(tensor)
    out("arithmetic", (t1.shape, y1, torch.equal(y1, y2), torch.equal(z1, z2)))
    agg = tensor.sum()
    agg_item = agg.item()
    out("single element", (agg_item, type(agg_item).__name__))
    tensor.add_(5)
    out("in place", tensor[0])
    t = torch.ones(5)
    n = t.numpy()
    t.add_(1)
    out("shares memory", n.tolist())
    n = np.ones(5)
    t = torch.from_numpy(n)
    np.add(n, 1, out=n)
    out("from numpy shares", t)


def snip_out_keyword(torch, out):
    tensor = torch.ones(4, 4)
    tensor[:, 1] = 0
    y3 = torch.rand_like(tensor)
    torch.matmul(tensor, tensor.T, out=y3)
    z3 = torch.rand_like(tensor)
    torch.mul(tensor, tensor, out=z3)
    out("written into", (y3, z3))


def mnist_like():
    """Four-by-four 'digits': numpy arrays, like the pickled MNIST the tutorial loads."""
    rng = np.random.default_rng(7)
    x = rng.random((40, 16)).astype(np.float32)
    y = (x[:, :4].sum(1) * 2).astype(np.int64) % 3
    return x[:30], y[:30], x[30:], y[30:]


def snip_nn_from_scratch(torch, out):
    x_train, y_train, x_valid, y_valid = map(torch.tensor, mnist_like())
    n, c = x_train.shape
    out("data", (x_train.shape, y_train.min(), y_train.max(), n, c))
    weights = randn(torch, 16, 3) / math.sqrt(16)
    weights.requires_grad_()
    bias = torch.zeros(3, requires_grad=True)

    def log_softmax(x):
        return x - x.exp().sum(-1).log().unsqueeze(-1)

    def model(xb):
        return log_softmax(xb @ weights + bias)

    def nll(input, target):  # noqa: A002 - the tutorial's name
        return -input[range(target.shape[0]), target].mean()

    def accuracy(out, yb):
        preds = torch.argmax(out, dim=1)
        return (preds == yb).float().mean()

    loss_func, bs, lr = nll, 8, 0.5
    out(
        "before",
        (loss_func(model(x_train[:bs]), y_train[:bs]), accuracy(model(x_train[:bs]), y_train[:bs])),
    )
    for _ in range(2):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            xb, yb = x_train[start_i : start_i + bs], y_train[start_i : start_i + bs]
            loss = loss_func(model(xb), yb)
            loss.backward()
            with torch.no_grad():
                weights -= weights.grad * lr
                bias -= bias.grad * lr
                weights.grad.zero_()
                bias.grad.zero_()
    F = torch.nn.functional
    out(
        "after",
        (loss_func(model(x_valid), y_valid), F.cross_entropy(x_valid @ weights + bias, y_valid)),
    )


class WrappedDataLoader:
    """The tutorial's generator wrapper: applies `func` to every batch of `dl`."""

    def __init__(self, dl, func):
        self.dl, self.func = dl, func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield self.func(*b)


def snip_nn_refactored(torch, out):
    nn, F, optim = torch.nn, torch.nn.functional, torch.optim
    TensorDataset, DataLoader = torch.utils.data.TensorDataset, torch.utils.data.DataLoader
    x_train, y_train, x_valid, y_valid = map(torch.tensor, mnist_like())
    train_ds, valid_ds = TensorDataset(x_train, y_train), TensorDataset(x_valid, y_valid)

    def get_data(bs):
        return DataLoader(train_ds, batch_size=bs, shuffle=True), DataLoader(
            valid_ds, batch_size=bs * 2
        )

    def preprocess(x, y):
        return x.view(-1, 1, 4, 4), y

    train_dl, valid_dl = get_data(8)
    train_dl, valid_dl = (
        WrappedDataLoader(train_dl, preprocess),
        WrappedDataLoader(valid_dl, preprocess),
    )
    xb, yb = next(iter(train_dl))
    out("batches", (len(train_dl), len(valid_dl), xb.shape, summary(yb)))

    class Lambda(nn.Module):
        def __init__(self, func):
            super().__init__()
            self.func = func

        def forward(self, x):
            return self.func(x)

    model = nn.Sequential(
        nn.Conv2d(1, 4, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.Conv2d(4, 3, kernel_size=3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        Lambda(lambda x: x.view(x.size(0), -1)),
    )
    set_params(torch, model)
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_func = F.cross_entropy

    def loss_batch(model, loss_func, xb, yb, opt=None):
        loss = loss_func(model(xb), yb)
        if opt is not None:
            loss.backward()
            opt.step()
            opt.zero_grad()
        return loss.item(), len(xb)

    ordered = WrappedDataLoader(DataLoader(train_ds, batch_size=8), preprocess)
    for _ in range(2):
        model.train()
        for xb, yb in ordered:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        out("val loss", float(val_loss))
    out("keys", list(model.state_dict().keys()))


def snip_transfer_learning(torch, out):
    nn, optim = torch.nn, torch.optim
    lr_scheduler = torch.optim.lr_scheduler
    torch.backends.cudnn.benchmark = True
    torch.cuda.manual_seed_all(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"

    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(4, 10)

        def forward(self, x):
            x = self.avgpool(torch.relu(self.bn(self.conv(x))))
            return self.fc(torch.flatten(x, 1))

    model_conv = set_params(torch, Backbone())
    for param in model_conv.parameters():
        param.requires_grad = False
    num_ftrs = model_conv.fc.in_features
    model_conv.fc = set_params(torch, nn.Linear(num_ftrs, 2))
    model_conv = model_conv.to(device)
    out("trainable", [name for name, p in model_conv.named_parameters() if p.requires_grad])
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model_conv.fc.parameters(), lr=0.001, momentum=0.9)
    exp_lr_scheduler = lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
    inputs = fixed(torch, 4, 3, 5, 5)
    labels = torch.tensor([0, 1, 1, 0])
    best_model_wts = copy.deepcopy(model_conv.state_dict())
    best_acc, history = 0.0, []
    for _ in range(16):
        for phase in ["train", "val"]:
            if phase == "train":
                model_conv.train()
            else:
                model_conv.eval()
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                outputs = model_conv(inputs)
                _, preds = torch.max(outputs, 1)
                loss = criterion(outputs, labels)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
            running_loss = loss.item() * inputs.size(0)
            running_corrects = torch.sum(preds == labels.data)
            if phase == "train":
                exp_lr_scheduler.step()
            epoch_acc = running_corrects.double() / len(labels)
            if phase == "val" and epoch_acc > best_acc:
                best_acc = epoch_acc
                best_model_wts = copy.deepcopy(model_conv.state_dict())
        history.append((f"{running_loss:.4f}", f"{epoch_acc:.4f}", optimizer.param_groups[0]["lr"]))
    out("history", history)
    out("scheduler", (exp_lr_scheduler.get_last_lr(), exp_lr_scheduler.last_epoch))
    model_conv.load_state_dict(best_model_wts)
    out(
        "best",
        (best_acc, epoch_acc.dtype, model_conv.bn.running_mean, model_conv.bn.num_batches_tracked),
    )


def recipe_net(torch):
    nn, F = torch.nn, torch.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 4, 3)
            self.pool = nn.MaxPool2d(2, 2)
            self.fc1 = nn.Linear(4 * 2 * 2, 6)
            self.fc2 = nn.Linear(6, 3)

        def forward(self, x):
            x = self.pool(F.relu(self.conv1(x)))
            x = torch.flatten(x, 1)
            return self.fc2(F.relu(self.fc1(x)))

    return set_params(torch, Net())


def snip_saving_and_zeroing_recipes(torch, out):
    nn, optim = torch.nn, torch.optim
    net = recipe_net(torch)
    optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
    out("model state", [(k, v.size()) for k, v in net.state_dict().items()])
    criterion = nn.CrossEntropyLoss()
    inputs, labels = fixed(torch, 6, 3, 6, 6), torch.tensor([0, 2, 1, 1, 0, 2])
    losses = []
    for i in range(3):
        optimizer.zero_grad()
        outputs = net(inputs[2 * i : 2 * i + 2])
        loss = criterion(outputs, labels[2 * i : 2 * i + 2])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    out("losses", losses)
    out("zeroed", (optimizer.zero_grad(), net.conv1.weight.grad))
    out(
        "optimizer state",
        (list(optimizer.state_dict()), sorted(optimizer.state_dict()["param_groups"][0].items())),
    )
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt")
        torch.save(
            {
                "epoch": 5,
                "model_state_dict": net.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(),
                "loss": loss,
            },
            path,
        )
        model = recipe_net(torch)
        opt2 = optim.SGD(model.parameters(), lr=0.5)
        checkpoint = torch.load(path, weights_only=True)
        model.load_state_dict(checkpoint["model_state_dict"])
        opt2.load_state_dict(checkpoint["optimizer_state_dict"])
    model.eval()
    _, preds = torch.max(model(inputs), 1)
    out("restored", (checkpoint["epoch"], checkpoint["loss"], opt2.param_groups[0]["lr"], preds))
    out("correct", (preds == labels).sum().item())


def snip_parametrizations(torch, out):
    nn = torch.nn
    parametrize = importlib.import_module(f"{torch.__name__}.nn.utils.parametrize")

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu(1)

    layer = set_params(torch, nn.Linear(3, 3))
    parametrize.register_parametrization(layer, "weight", Symmetric())
    A = layer.weight
    out("symmetric", (A, torch.dist(A, A.T), parametrize.is_parametrized(layer)))
    out("original", (layer.parametrizations.weight.original, list(layer.state_dict())))
    layer(fixed(torch, 2, 3)).sum().backward()
    out("grad", layer.parametrizations.weight.original.grad)
    with parametrize.cached():
        out("cached", layer.weight is layer.weight)
    parametrize.remove_parametrizations(layer, "weight")
    out("removed", (parametrize.is_parametrized(layer), type(layer.weight).__name__))
    skew = set_params(torch, nn.Linear(3, 3))
    parametrize.register_parametrization(skew, "weight", Skew())
    X = fixed(torch, 3, 3, scale=3.0)
    skew.weight = X - X.T
    out("right_inverse", (skew.weight, skew.parametrizations.weight.original))


def snip_parametrization_matrix_exp(torch, out):
    nn = torch.nn
    parametrize = importlib.import_module(f"{torch.__name__}.nn.utils.parametrize")

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

    class MatrixExponential(nn.Module):
        def forward(self, X):
            return torch.matrix_exp(X)

    layer = set_params(torch, nn.Linear(3, 3))
    parametrize.register_parametrization(layer, "weight", Skew())
    parametrize.register_parametrization(layer, "weight", MatrixExponential())
    Q = layer.weight
    out("orthogonal", (Q, torch.dist(Q.T @ Q, torch.eye(3)) < 1e-5))


def snip_custom_pruning_and_whole_models(torch, out):
    nn = torch.nn
    prune = importlib.import_module(f"{torch.__name__}.nn.utils.prune")

    class FooBarPruningMethod(prune.BasePruningMethod):
        """Prune every other entry of a tensor."""

        PRUNING_TYPE = "unstructured"

        def compute_mask(self, t, default_mask):
            mask = default_mask.clone()
            mask.view(-1)[::2] = 0
            return mask

    model = recipe_net(torch)
    FooBarPruningMethod.apply(model.fc2, "bias")
    out("foobar", (model.fc2.bias_mask, model.fc2.bias, list(model.state_dict().keys())))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "net.pt")
        torch.save(
            set_params(torch, nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))), path
        )
        whole = torch.load(path, weights_only=False)
        torch.save(whole.state_dict(), path)
        wider = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2), nn.Linear(2, 2))
        keys = wider.load_state_dict(torch.load(path, weights_only=True), strict=False)
    whole.eval()
    out("whole model", (type(whole).__name__, whole(fixed(torch, 2, 3)), wider[2].bias))
    out("warmstart", (sorted(keys.missing_keys), sorted(keys.unexpected_keys)))


def snip_pruning(torch, out):
    prune = importlib.import_module(f"{torch.__name__}.nn.utils.prune")
    model = recipe_net(torch)
    module = model.conv1
    out("before", ([n for n, _ in module.named_parameters()], list(module.named_buffers())))
    prune.random_unstructured(module, name="weight", amount=0.3)
    zeros = int((module.weight_mask == 0).sum())
    out(
        "random",
        ([n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()], zeros),
    )
    prune.l1_unstructured(module, name="bias", amount=3)
    out("l1", (module.bias, module.bias_mask, len(module._forward_pre_hooks)))
    prune.remove(module, "weight")
    out("removed", ([n for n, _ in module.named_parameters()], prune.is_pruned(module)))
    with torch.no_grad():  # rows of distinct norms: which of two equal rows goes is PyTorch's whim
        model.fc1.weight.copy_(randn(torch, 6, 16, seed=4))
    prune.ln_structured(model.fc1, name="weight", amount=0.5, n=2, dim=0)
    out("structured", model.fc1.weight_mask[:, 0])
    parameters_to_prune = ((model.fc1, "bias"), (model.fc2, "weight"))
    prune.global_unstructured(parameters_to_prune, pruning_method=prune.L1Unstructured, amount=0.2)
    sparsity = 100.0 * float(torch.sum(model.fc2.weight == 0)) / float(model.fc2.weight.nelement())
    out("global", (f"{sparsity:.2f}", model.fc2.weight_mask.sum()))


def snip_legacy_constructors(torch, out):
    a = torch.FloatTensor([1, 2, 3])
    b = torch.FloatTensor(2, 3)
    c = torch.LongTensor([1, 2])
    out("types", (a, b.shape, b.dtype, c, a.type()))


NEEDS: dict[str, str] = {}


@parametrize(globals(), xfail=NEEDS)
def test_pytorch_tutorials(lib, snippet):
    check(snippet, lib)
