"""Dive into Deep Learning (PyTorch edition): lazy layers, LeNet, the synthetic regression data
and its DataLoader, parameter access and initialization, RNN/LSTM steps with gradient clipping,
activation gradients and saving parameters, written afresh."""

from __future__ import annotations

import os
import tempfile

from tutorials._support import check, parametrize, set_params

from ._data import randn, summary


def snip_lazy_linear(torch, out):
    nn = torch.nn
    net = nn.Sequential(nn.LazyLinear(16), nn.ReLU(), nn.LazyLinear(4))
    out("before", (isinstance(net[0].weight, nn.parameter.UninitializedParameter), len(net)))
    X = randn(torch, 2, 20)
    Y = net(X)
    out("after", (Y.shape, net[0].weight.shape, net[2].weight.shape, type(net[0]).__name__))
    out("state_dict", [(k, tuple(v.shape)) for k, v in net.state_dict().items()])
    set_params(torch, net)
    out("output", net(X))


def lenet(torch):
    nn = torch.nn
    return nn.Sequential(
        nn.LazyConv2d(6, kernel_size=5, padding=2),
        nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.LazyConv2d(16, kernel_size=5),
        nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.LazyLinear(120),
        nn.Sigmoid(),
        nn.LazyLinear(84),
        nn.Sigmoid(),
        nn.LazyLinear(10),
    )


def snip_lenet(torch, out):
    nn = torch.nn
    net = lenet(torch)
    X = randn(torch, 1, 1, 28, 28)
    shapes = []
    for layer in net:
        X = layer(X)
        shapes.append(f"{layer.__class__.__name__:12s} output shape:\t{tuple(X.shape)}")
    out("layer summary", shapes)

    def init_cnn(module):
        if type(module) is nn.Linear or type(module) is nn.Conv2d:
            nn.init.xavier_uniform_(module.weight)

    net.apply(init_cnn)
    bound = (6 / (6 * 25 + 1 * 25)) ** 0.5
    out("xavier", (summary(net[0].weight), bool((net[0].weight.abs() <= bound).all())))
    set_params(torch, net, 0.2)
    images = randn(torch, 3, 1, 28, 28, seed=2)
    logits = net(images)
    loss = nn.CrossEntropyLoss()(logits, torch.tensor([0, 3, 9]))
    loss.backward()
    out("forward", (logits, loss, net[0].weight.grad[0, 0, :2]))


def synthetic_data(torch, w, b, num_examples):
    """d2l's linear-regression data: y = Xw + b + noise."""
    X = torch.normal(0, 1, (num_examples, w.shape[0]))
    y = torch.matmul(X, w) + b
    y += torch.normal(0, 0.01, y.shape)
    return X, y.reshape((-1, 1))


def snip_synthetic_regression(torch, out):
    nn = torch.nn
    data = torch.utils.data
    true_w, true_b = torch.tensor([2, -3.4]), 4.2
    features, labels = synthetic_data(torch, true_w, true_b, 100)
    out("drawn", (summary(features), summary(labels)))
    features = randn(torch, 100, 2)
    labels = (torch.matmul(features, true_w) + true_b + randn(torch, 100, scale=0.01)).reshape(
        -1, 1
    )
    dataset = data.TensorDataset(features, labels)
    shuffled = data.DataLoader(dataset, batch_size=10, shuffle=True)
    batches = list(shuffled)
    total = torch.cat([X for X, _ in batches]).sum(0)
    out("shuffled", (len(batches), batches[0][0].shape, torch.allclose(total, features.sum(0))))
    net = nn.Sequential(nn.Linear(2, 1))
    net[0].weight.data.normal_(0, 0.01)
    net[0].bias.data.fill_(0)
    out("init", (summary(net[0].weight), net[0].bias))
    net[0].weight.data = torch.tensor([[0.01, -0.02]])
    loss = nn.MSELoss()
    trainer = torch.optim.SGD(net.parameters(), lr=0.03)
    for epoch in range(3):
        for X, y in data.DataLoader(dataset, batch_size=10):
            l = loss(net(X), y)  # noqa: E741 - d2l's name
            trainer.zero_grad()
            l.backward()
            trainer.step()
        l = loss(net(features), labels)  # noqa: E741
        out(f"epoch {epoch + 1}", f"loss {l:f}")
    w, b = net[0].weight.data, net[0].bias.data
    out("errors", (true_w - w.reshape(true_w.shape), true_b - b))


def snip_parameter_access_and_init(torch, out):
    nn = torch.nn
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
    out("params", [(name, param.shape) for name, param in net.named_parameters()])
    out("access", (type(net[2].bias).__name__, net[2].weight.grad is None))

    def init_normal(module):
        if type(module) is nn.Linear:
            nn.init.normal_(module.weight, mean=0, std=0.01)
            nn.init.zeros_(module.bias)

    def init_constant(module):
        if type(module) is nn.Linear:
            nn.init.constant_(module.weight, 1)
            nn.init.zeros_(module.bias)

    def init_xavier(module):
        if type(module) is nn.Linear:
            nn.init.xavier_uniform_(module.weight)

    net.apply(init_normal)
    out("normal", (summary(net[0].weight), net[0].bias))
    net.apply(init_constant)
    out("constant", (net[0].weight[0], net[0].bias[0]))
    net[0].apply(init_xavier)
    out("xavier", bool((net[0].weight.abs() <= (6 / 12) ** 0.5).all()))
    net[0].weight.data = randn(torch, 8, 4, scale=6.0)
    net[0].weight.data *= net[0].weight.data.abs() >= 5
    out("custom", net[0].weight[:2])
    net[0].weight.data[:] += 1
    net[0].weight.data[0, 0] = 42
    out("direct", net[0].weight.data[0])
    shared = nn.LazyLinear(8)
    net = nn.Sequential(
        nn.LazyLinear(8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.LazyLinear(1)
    )
    net(randn(torch, 2, 4))
    net[2].weight.data[0, 0] = 100
    out(
        "shared",
        ((net[2].weight.data[0] == net[4].weight.data[0]).all(), len(list(net.parameters()))),
    )


def snip_rnn_and_lstm_steps(torch, out):
    nn, F = torch.nn, torch.nn.functional
    vocab, hiddens, batch = 6, 5, 2
    tokens = torch.tensor([[0, 3, 5, 1], [2, 2, 4, 0]])
    X = F.one_hot(tokens.T, vocab).float()
    out("inputs", (X.shape, X.dtype))
    rnn = set_params(torch, nn.RNN(vocab, hiddens))
    state = torch.zeros((1, batch, hiddens))
    Y, state_new = rnn(X, state)
    out("rnn", (Y.shape, state_new.shape, Y[-1], torch.allclose(Y[-1], state_new[0])))
    lstm = set_params(torch, nn.LSTM(vocab, hiddens))
    H, C = torch.zeros((1, batch, hiddens)), torch.zeros((1, batch, hiddens))
    Y, (H, C) = lstm(X, (H, C))
    out("lstm", (Y[0], H, C))
    head = set_params(torch, nn.Linear(hiddens, vocab))
    loss = F.cross_entropy(head(Y.reshape(-1, hiddens)), tokens.T.reshape(-1)) * 20
    loss.backward()
    params = [p for p in lstm.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum(p.grad**2) for p in params))
    out("norm", norm)
    clipped = nn.utils.clip_grad_norm_(lstm.parameters(), 1)
    out("clipped", (clipped, torch.sqrt(sum(torch.sum(p.grad**2) for p in params))))
    theta = 0.5
    if norm > theta:
        for p in params:
            p.grad[:] *= theta / norm
    out("manual clip", lstm.weight_hh_l0.grad[0])


def snip_activation_gradients(torch, out):
    x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
    out("range", (x.shape, x.dtype, x[78:83]))
    y = torch.relu(x)
    y.backward(torch.ones_like(x), retain_graph=True)
    out("relu grad", x.grad)
    x.grad.data.zero_()
    torch.sigmoid(x).backward(torch.ones_like(x))
    out("sigmoid grad", x.grad[::20])
    x.grad.zero_()
    torch.tanh(x).backward(torch.ones_like(x))
    out("tanh grad", x.grad[::20])
    y = torch.relu(torch.tensor([-1.0, 0.0, 2.0], requires_grad=True))
    y.sum().backward()
    out("at zero", y.grad_fn.name())
    z = torch.tensor([0.0], requires_grad=True)
    torch.relu(z).backward()
    out("relu'(0)", z.grad)


def snip_save_and_load(torch, out):
    nn, F = torch.nn, torch.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.LazyLinear(8)
            self.output = nn.LazyLinear(3)

        def forward(self, x):
            return self.output(F.relu(self.hidden(x)))

    net = MLP()
    X = randn(torch, 2, 5)
    net(X)
    set_params(torch, net)
    Y = net(X)
    with tempfile.TemporaryDirectory() as tmp:
        x, y = torch.arange(4), torch.zeros(4)
        torch.save(x, os.path.join(tmp, "x-file"))
        out("tensor", torch.load(os.path.join(tmp, "x-file")))
        torch.save([x, y], os.path.join(tmp, "x-files"))
        x2, y2 = torch.load(os.path.join(tmp, "x-files"))
        torch.save({"x": x, "y": y}, os.path.join(tmp, "mydict"))
        out("list and dict", ((x2, y2), torch.load(os.path.join(tmp, "mydict"))["y"]))
        torch.save(net.state_dict(), os.path.join(tmp, "mlp.params"))
        clone = MLP()
        clone(X)
        clone.load_state_dict(torch.load(os.path.join(tmp, "mlp.params")))
    clone.eval()
    out("clone", (clone(X) == Y, list(clone.state_dict())))


def snip_preliminaries(torch, out):
    x = torch.arange(12, dtype=torch.float32)
    X = x.reshape(3, 4)
    out("basics", (x.numel(), x.shape, X.reshape(-1, 4).shape, torch.zeros((2, 3, 4)).shape))
    Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
    out("elementwise", (torch.exp(x)[:3], X**Y, X == Y, X.sum()))
    out("cat", (torch.cat((X, Y), dim=0).shape, torch.cat((X, Y), dim=1).shape))
    a, b = torch.arange(3).reshape((3, 1)), torch.arange(2).reshape((1, 2))
    out("broadcast", a + b)
    Z = torch.zeros_like(Y)
    before = id(Z)
    Z[:] = X + Y
    X += Y
    out("in place", (id(Z) == before, Z[0]))
    A = X.numpy()
    B = torch.from_numpy(A)
    a = torch.tensor([3.5])
    out("conversion", (type(A).__name__, type(B).__name__, a.item(), float(a), int(a)))
    A = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    out(
        "reductions",
        (A.sum(axis=0), A.sum(axis=[0, 1]), A.mean(axis=0), A.sum(axis=1, keepdims=True)),
    )
    out("cumsum", A.cumsum(axis=0))
    u, v = torch.tensor([3.0, -4.0]), torch.ones(3)
    out(
        "products",
        (torch.dot(v, v), torch.mv(A, v), torch.mm(A, A.T), torch.norm(u), torch.abs(u).sum()),
    )
    out("matrix norm", torch.ones((4, 9)).norm())
    x = torch.arange(4.0, requires_grad=True)
    y = 2 * torch.dot(x, x)
    y.backward()
    out("grad", (x.grad, x.grad == 4 * x))
    x.grad.zero_()
    y = x * x
    u = y.detach()
    z = u * x
    z.sum().backward()
    out("detach", x.grad == u)


def snip_softmax_from_scratch(torch, out):
    def softmax(X):
        X_exp = torch.exp(X)
        partition = X_exp.sum(1, keepdims=True)
        return X_exp / partition

    def cross_entropy(y_hat, y):
        return -torch.log(y_hat[list(range(len(y_hat))), y]).mean()

    def accuracy(y_hat, y):
        if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
            y_hat = y_hat.argmax(axis=1)
        cmp = y_hat.type(y.dtype) == y
        return float(cmp.type(y.dtype).sum())

    X = randn(torch, 2, 5)
    X_prob = softmax(X)
    out("softmax", (X_prob, X_prob.sum(1)))
    y = torch.tensor([0, 2])
    y_hat = torch.tensor([[0.1, 0.3, 0.6], [0.3, 0.2, 0.5]])
    out("pick", (y_hat[[0, 1], y], cross_entropy(y_hat, y), accuracy(y_hat, y) / len(y)))
    W = torch.normal(0, 0.01, size=(16, 3), requires_grad=True)
    b = torch.zeros(3, requires_grad=True)
    out("params", (summary(W), W.requires_grad, b))


def snip_modern_cnn_blocks(torch, out):
    nn, F = torch.nn, torch.nn.functional

    class Residual(nn.Module):
        def __init__(self, num_channels, use_1x1conv=False, strides=1):
            super().__init__()
            self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1, stride=strides)
            self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
            self.conv3 = (
                nn.LazyConv2d(num_channels, kernel_size=1, stride=strides) if use_1x1conv else None
            )
            self.bn1, self.bn2 = nn.LazyBatchNorm2d(), nn.LazyBatchNorm2d()

        def forward(self, X):
            Y = F.relu(self.bn1(self.conv1(X)))
            Y = self.bn2(self.conv2(Y))
            if self.conv3:
                X = self.conv3(X)
            return F.relu(Y + X)

    net = nn.Sequential(
        nn.LazyConv2d(4, kernel_size=3, stride=2, padding=1),
        nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
        Residual(4),
        Residual(6, use_1x1conv=True, strides=2),
        nn.AdaptiveAvgPool2d((1, 1)),
        nn.Flatten(),
        nn.Dropout(0.5),
        nn.LazyLinear(3),
    )
    X = randn(torch, 2, 1, 16, 16)
    out("shapes", [tuple((X := layer(X)).shape) for layer in net])
    set_params(torch, net, 0.3)
    for module in net.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.reset_running_stats()
    net[:6](randn(torch, 4, 1, 16, 16, seed=3))
    out(
        "running", (net[2].bn1.running_mean, net[3].bn2.running_var, net[3].bn2.num_batches_tracked)
    )
    net.eval()
    out("eval", net(randn(torch, 2, 1, 16, 16, seed=1)))
    gru = set_params(torch, nn.GRU(3, 4))
    Y, H = gru(randn(torch, 5, 2, 3, seed=2))
    out("gru", (Y.shape, H, torch.allclose(Y[-1], H[0])))


def snip_attention_masked_softmax(torch, out):
    nn = torch.nn

    def masked_softmax(X, valid_lens):
        def sequence_mask(X, valid_len, value=0):
            maxlen = X.size(1)
            mask = torch.arange((maxlen), dtype=torch.float32)[None, :] < valid_len[:, None]
            X[~mask] = value
            return X

        if valid_lens is None:
            return nn.functional.softmax(X, dim=-1)
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)

    X = randn(torch, 2, 2, 4)
    out("2-d lens", masked_softmax(X, torch.tensor([[1, 3], [2, 4]])))
    out("1-d lens", masked_softmax(X, torch.tensor([2, 3])))


def snip_probability(torch, out):
    fair_probs = torch.ones(6) / 6
    counts = torch.distributions.multinomial.Multinomial(1000, fair_probs).sample()
    out("counts", (summary(counts), counts.sum()))


NEEDS: dict[str, str] = {}


@parametrize(globals(), xfail=NEEDS)
def test_d2l(lib, snippet):
    check(snippet, lib)
