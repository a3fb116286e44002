"""Karpathy's makemore lectures: bigram counts, the one-hot neural bigram, the character MLP,
batchnorm by hand and the manual backprop exercise, written afresh on synthetic names."""

from __future__ import annotations

import numpy as np
import pytest
from tutorials._support import check, parametrize

from ._data import NAMES, randn, stoi, summary

# matplotlib asks torch's Tensor.__array__ for copy=False, which torch 2.13 does not take yet
pytestmark = pytest.mark.filterwarnings(
    "ignore:__array__ implementation doesn't accept a copy keyword:DeprecationWarning"
)


def bigrams():
    """Every (previous, next) character index pair of the names, '.' marking start and end."""
    table = stoi()
    pairs = []
    for word in NAMES:
        chs = ["."] + list(word) + ["."]
        pairs += [(table[a], table[b]) for a, b in zip(chs, chs[1:])]
    return pairs


def dataset(torch, block_size=3):
    """makemore's MLP inputs: each character with the `block_size` characters before it."""
    table = stoi()
    X, Y = [], []
    for word in NAMES:
        context = [0] * block_size
        for ch in word + ".":
            X.append(context)
            Y.append(table[ch])
            context = context[1:] + [table[ch]]
    return torch.tensor(X), torch.tensor(Y)


def snip_bigram_counts(torch, out):
    N = torch.zeros((27, 27), dtype=torch.int32)
    for ix1, ix2 in bigrams():
        N[ix1, ix2] += 1
    out("counts", (N, N.sum(), N[0].argmax()))
    P = (N + 1).float()
    P /= P.sum(1, keepdims=True)
    out("rows", (P[0], P.sum(1)))
    log_likelihood = 0.0
    n = 0
    for ix1, ix2 in bigrams():
        logprob = torch.log(P[ix1, ix2])
        log_likelihood += logprob
        n += 1
    nll = -log_likelihood
    out("nll", (nll, f"{nll / n:.4f}", f"{log_likelihood=:.3f}"))


def snip_sampling_with_a_generator(torch, out):
    N = torch.ones((27, 27))
    for ix1, ix2 in bigrams():
        N[ix1, ix2] += 1
    P = N / N.sum(1, keepdim=True)
    g = torch.Generator().manual_seed(2147483647)
    words = []
    for _ in range(5):
        ix, drawn = 0, []
        while True:
            p = P[ix]
            ix = torch.multinomial(p, num_samples=1, replacement=True, generator=g).item()
            drawn.append(ix)
            if ix == 0:
                break
        words.append(drawn)
    out("samples", [(type(i).__name__, 0 <= i < 27, w[-1]) for w in words for i in w[:1]])
    p = torch.rand(3, generator=g)
    out("rand with a generator", summary(p / p.sum()))
    out("many draws", summary(torch.multinomial(P[0], 100, replacement=True, generator=g)))


def snip_one_hot_neural_bigram(torch, out):
    F = torch.nn.functional
    xs = torch.tensor([a for a, _ in bigrams()])
    ys = torch.tensor([b for _, b in bigrams()])
    num = xs.nelement()
    xenc = F.one_hot(xs, num_classes=27).float()
    out("one-hot", (xenc.shape, xenc.dtype, xenc[:2].argmax(1)))
    g = torch.Generator().manual_seed(2147483647)
    out("random W", summary(torch.randn((27, 27), generator=g, requires_grad=True)))
    W = randn(torch, 27, 27).requires_grad_()
    losses = []
    for _ in range(4):
        logits = xenc @ W
        counts = logits.exp()
        probs = counts / counts.sum(1, keepdims=True)
        loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
        W.grad = None
        loss.backward()
        W.data += -50 * W.grad
        losses.append(f"{loss.item():.4f}")
    out("losses", losses)
    out("trained", (W, probs[0].sum()))


def snip_mlp_training(torch, out):
    F = torch.nn.functional
    X, Y = dataset(torch)
    C = randn(torch, 27, 10, seed=1)
    W1 = randn(torch, 30, 64, seed=2, scale=0.2)
    b1 = randn(torch, 64, seed=3, scale=0.01)
    W2 = randn(torch, 64, 27, seed=4, scale=0.1)
    b2 = torch.zeros(27)
    parameters = [C, W1, b1, W2, b2]
    out("parameter count", sum(p.nelement() for p in parameters))
    for p in parameters:
        p.requires_grad = True
    lre = torch.linspace(-3, 0, 1000)
    lrs = 10**lre
    out("learning rates", (lre[::333], lrs[::333]))
    ix = torch.randint(0, X.shape[0], (32,))
    out("minibatch", (summary(ix), bool(((ix >= 0) & (ix < X.shape[0])).all())))
    lossi = []
    for i in range(6):
        ix = torch.arange(32) * (i + 1) % X.shape[0]
        emb = C[X[ix]]
        h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
        logits = h @ W2 + b2
        loss = F.cross_entropy(logits, Y[ix])
        for p in parameters:
            p.grad = None
        loss.backward()
        lr = 0.1 if i < 3 else 0.01
        for p in parameters:
            p.data += -lr * p.grad
        lossi.append(loss.log10().item())
    out("log10 losses", lossi)
    emb = C[X]
    out("embedding", (emb.shape, emb.view(emb.shape[0], 30).shape, emb.view(-1, 30)[0]))
    out("full loss", F.cross_entropy(torch.tanh(emb.view(-1, 30) @ W1 + b1) @ W2 + b2, Y))


def snip_batchnorm_by_hand(torch, out):
    X, _ = dataset(torch)
    C = randn(torch, 27, 10, seed=1)
    W1 = randn(torch, 30, 64, seed=2, scale=(5 / 3) / 30**0.5)
    bngain = torch.ones((1, 64), requires_grad=True)
    bnbias = torch.zeros((1, 64), requires_grad=True)
    bnmean_running = torch.zeros((1, 64))
    bnstd_running = torch.ones((1, 64))
    embcat = C[X].view(C[X].shape[0], -1)
    W1.requires_grad_()
    for _ in range(2):
        hpreact = embcat @ W1
        bnmeani = hpreact.mean(0, keepdim=True)
        bnstdi = hpreact.std(0, keepdim=True)
        hpreact = bngain * (hpreact - bnmeani) / bnstdi + bnbias
        with torch.no_grad():
            bnmean_running = 0.999 * bnmean_running + 0.001 * bnmeani
            bnstd_running = 0.999 * bnstd_running + 0.001 * bnstdi
        h = torch.tanh(hpreact)
        h.square().mean().backward()
    out("running", (bnmean_running, bnstd_running, bnmean_running.requires_grad))
    out("grads", (bngain.grad, bnbias.grad, W1.grad[:2]))
    out("saturation", ((h.abs() > 0.97).float().mean(), hpreact.mean(0)[:4], hpreact.std(0)[:4]))


def snip_manual_backprop(torch, out):
    F = torch.nn.functional
    n = 8
    Yb = torch.tensor([1, 5, 0, 26, 3, 3, 9, 12])
    logits = randn(torch, n, 27, seed=5).requires_grad_()
    logit_maxes = logits.max(1, keepdim=True).values
    norm_logits = logits - logit_maxes
    counts = norm_logits.exp()
    counts_sum = counts.sum(1, keepdims=True)
    counts_sum_inv = counts_sum**-1
    probs = counts * counts_sum_inv
    logprobs = probs.log()
    loss = -logprobs[range(n), Yb].mean()
    for t in [logprobs, probs, counts_sum_inv, counts_sum, counts, norm_logits, logit_maxes]:
        t.retain_grad()
    loss.backward()

    def cmp(s, dt, t):
        ex = torch.all(dt == t.grad).item()
        app = torch.allclose(dt, t.grad)
        maxdiff = (dt - t.grad).abs().max().item()
        return f"{s:15s} | approximate: {str(app):5s} | small: {maxdiff < 1e-6}", ex or app

    dlogprobs = torch.zeros_like(logprobs)
    dlogprobs[range(n), Yb] = -1.0 / n
    dprobs = (1.0 / probs) * dlogprobs
    dcounts_sum_inv = (counts * dprobs).sum(1, keepdim=True)
    dcounts = counts_sum_inv * dprobs
    dcounts_sum = (-(counts_sum**-2)) * dcounts_sum_inv
    dcounts += torch.ones_like(counts) * dcounts_sum
    dnorm_logits = counts * dcounts
    dlogit_maxes = (-dnorm_logits).sum(1, keepdim=True)
    dlogits = dnorm_logits.clone()
    dlogits += F.one_hot(logits.max(1).indices, num_classes=logits.shape[1]) * dlogit_maxes
    out(
        "by hand",
        [
            cmp("logprobs", dlogprobs, logprobs),
            cmp("probs", dprobs, probs),
            cmp("counts_sum_inv", dcounts_sum_inv, counts_sum_inv),
            cmp("counts", dcounts, counts),
            cmp("logit_maxes", dlogit_maxes, logit_maxes),
            cmp("logits", dlogits, logits),
        ],
    )
    logits.grad = None
    loss_fast = F.cross_entropy(logits, Yb)
    loss_fast.backward()
    out(
        "fast loss",
        (f"{loss_fast.item():.4f}", f"{loss:.4f}", (loss_fast - loss).abs().item() < 1e-6),
    )
    dlogits = F.softmax(logits, 1)
    dlogits[range(n), Yb] -= 1
    dlogits /= n
    out("softmax backward", (dlogits, torch.allclose(dlogits, logits.grad, atol=1e-7)))
    out("maxdiff", (dlogits - logits.grad).abs().max().item() < 1e-6)


def snip_sampling_from_the_mlp(torch, out):
    F = torch.nn.functional
    C = randn(torch, 27, 10, seed=1)
    W1 = randn(torch, 30, 64, seed=2, scale=0.2)
    W2 = randn(torch, 64, 27, seed=4, scale=0.1)
    g = torch.Generator().manual_seed(2147483647 + 10)
    lengths = []
    for _ in range(3):
        context, drawn = [0] * 3, []
        while len(drawn) < 20:
            emb = C[torch.tensor([context])]
            h = torch.tanh(emb.view(1, -1) @ W1)
            probs = F.softmax(h @ W2, dim=1)
            ix = torch.multinomial(probs, num_samples=1, generator=g).item()
            context = context[1:] + [ix]
            drawn.append(ix)
            if ix == 0:
                break
        lengths.append(all(isinstance(i, int) and 0 <= i < 27 for i in drawn))
    out("samples are characters", lengths)
    out("probabilities", (probs.shape, probs.sum()))


def snip_layers_by_hand(torch, out):
    """Part 3 and 5: Linear/BatchNorm1d/Tanh as plain classes, activation and update statistics,
    and WaveNet's FlattenConsecutive."""

    class Linear:
        def __init__(self, fan_in, fan_out, seed, bias=True):
            self.weight = randn(torch, fan_in, fan_out, seed=seed) / fan_in**0.5
            self.bias = torch.zeros(fan_out) if bias else None

        def __call__(self, x):
            self.out = x @ self.weight
            if self.bias is not None:
                self.out += self.bias
            return self.out

        def parameters(self):
            return [self.weight] + ([] if self.bias is None else [self.bias])

    class BatchNorm1d:
        def __init__(self, dim, eps=1e-5, momentum=0.1):
            self.eps, self.momentum, self.training = eps, momentum, True
            self.gamma, self.beta = torch.ones(dim), torch.zeros(dim)
            self.running_mean, self.running_var = torch.zeros(dim), torch.ones(dim)

        def __call__(self, x):
            if self.training:
                dim = 0 if x.ndim == 2 else (0, 1)
                xmean = x.mean(dim, keepdim=True)
                xvar = x.var(dim, keepdim=True)
            else:
                xmean, xvar = self.running_mean, self.running_var
            xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
            self.out = self.gamma * xhat + self.beta
            if self.training:
                with torch.no_grad():
                    m = self.momentum
                    self.running_mean = (1 - m) * self.running_mean + m * xmean
                    self.running_var = (1 - m) * self.running_var + m * xvar
            return self.out

        def parameters(self):
            return [self.gamma, self.beta]

    class Tanh:
        def __call__(self, x):
            self.out = torch.tanh(x)
            return self.out

        def parameters(self):
            return []

    class FlattenConsecutive:
        def __init__(self, n):
            self.n = n

        def __call__(self, x):
            B, T, C = x.shape
            x = x.view(B, T // self.n, C * self.n)
            if x.shape[1] == 1:
                x = x.squeeze(1)
            self.out = x
            return x

        def parameters(self):
            return []

    F = torch.nn.functional
    X, Y = dataset(torch, block_size=4)
    C = randn(torch, 27, 6, seed=1)
    layers = [
        FlattenConsecutive(2),
        Linear(12, 16, 2, bias=False),
        BatchNorm1d(16),
        Tanh(),
        FlattenConsecutive(2),
        Linear(32, 16, 3, bias=False),
        BatchNorm1d(16),
        Tanh(),
        Linear(16, 27, 4),
    ]
    with torch.no_grad():
        layers[-1].weight *= 0.1
    parameters = [C] + [p for layer in layers for p in layer.parameters()]
    for p in parameters:
        p.requires_grad = True
    ud = []
    for _ in range(2):
        x = C[X[:32]]
        for layer in layers:
            x = layer(x)
        loss = F.cross_entropy(x, Y[:32])
        for layer in layers:
            layer.out.retain_grad()
        for p in parameters:
            p.grad = None
        loss.backward()
        for p in parameters:
            p.data += -0.1 * p.grad
        with torch.no_grad():
            ud.append(
                [((0.1 * p.grad).std() / p.data.std()).log10().item() for p in parameters[:3]]
            )
    out("loss and update ratios", (loss, ud))
    stats = []
    for layer in layers:
        if isinstance(layer, Tanh):
            t = layer.out
            saturated = (t.abs() > 0.97).float().mean() * 100
            stats.append(f"mean {t.mean():+.2f}, std {t.std():.2f}, saturated: {saturated:.2f}%")
            hy, hx = torch.histogram(t, density=True)
            stats.append((hx[:-1].detach().shape, hy.sum()))
            mean = round(t.grad.mean().item(), 6) + 0.0  # (rounding noise around 0: no sign)
            stats.append(f"grad mean {mean:+f}, std {t.grad.std():e}")
    out("activations", stats)
    out("shapes", [tuple(layer.out.shape) for layer in layers])
    w = torch.empty(16, 8)
    torch.nn.init.kaiming_normal_(w, mode="fan_in", nonlinearity="tanh")
    out("kaiming", (summary(w), torch.nn.init.calculate_gain("tanh")))


def snip_backprop_ninja_more(torch, out):
    """Part 4: bessel-corrected batch variance, batchnorm's backward in one line, and the
    embedding gradient scattered back by hand."""
    n = 6
    hprebn = randn(torch, n, 5, seed=6).requires_grad_()
    bngain = (randn(torch, 1, 5, seed=7) * 0.1 + 1.0).requires_grad_()
    bnmeani = 1 / n * hprebn.sum(0, keepdim=True)
    bndiff = hprebn - bnmeani
    bndiff2 = bndiff**2
    bnvar = 1 / (n - 1) * bndiff2.sum(0, keepdim=True)
    bnvar_inv = (bnvar + 1e-5) ** -0.5
    bnraw = bndiff * bnvar_inv
    hpreact = bngain * bnraw
    h = torch.tanh(hpreact)
    dh = randn(torch, n, 5, seed=8)
    h.backward(dh)
    out(
        "variance",
        (
            torch.allclose(bnvar, hprebn.var(0, keepdim=True, unbiased=True)),
            torch.allclose(bnvar, torch.var(hprebn, 0, keepdim=True, correction=1)),
        ),
    )
    dhpreact = (1.0 - h**2) * dh
    dhprebn = (
        bngain
        * bnvar_inv
        / n
        * (n * dhpreact - dhpreact.sum(0) - n / (n - 1) * bnraw * (dhpreact * bnraw).sum(0))
    )
    out(
        "dhprebn",
        (
            torch.allclose(dhprebn, hprebn.grad, atol=1e-6),
            (dhprebn - hprebn.grad).abs().max() < 1e-5,
        ),
    )
    C = randn(torch, 27, 4, seed=9).requires_grad_()
    Xb = torch.tensor([[0, 0, 5], [0, 5, 13], [5, 13, 13]])
    emb = C[Xb]
    demb = randn(torch, *emb.shape, seed=10)
    emb.backward(demb)
    dC = torch.zeros_like(C)
    for k in range(Xb.shape[0]):
        for j in range(Xb.shape[1]):
            ix = Xb[k, j]
            dC[ix] += demb[k, j]
    out("dC", (torch.allclose(dC, C.grad), dC[13]))
    dC2 = torch.zeros_like(C).index_add_(0, Xb.view(-1), demb.view(-1, 4))
    out("index_add", torch.allclose(dC2, C.grad))


def snip_plotting(torch, out):
    """The lectures plot counts, losses and activations: matplotlib reads tensors through numpy."""
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    N = torch.zeros((4, 4), dtype=torch.int32)
    N[0, 1] += 3
    out(
        "imshow",
        (ax.imshow(N, cmap="Blues").get_array().tolist(), ax.text(0, 1, N[0, 1].item()).get_text()),
    )
    h = torch.tensor([[0.5, 0.995], [-0.999, 0.1]], requires_grad=True)
    out("hist", ax.hist(h.view(-1).tolist(), 4)[0].tolist())
    out("imshow bool", ax.imshow(h.abs() > 0.99, cmap="gray").get_array().tolist())
    lossi = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    out("plot", ax.plot(lossi.view(-1, 2).mean(1))[0].get_ydata().tolist())
    out("scatter .data", ax.scatter(h[:, 0].data, h[:, 1].data).get_offsets().tolist())


def snip_numpy_refuses_a_tensor_that_requires_grad(torch, out):
    h = torch.tensor([0.5, -1.0], requires_grad=True)
    with out.raises("np.asarray"):
        np.asarray(h)
    out("detached", np.asarray(h.detach()).tolist())


def snip_printing_the_counts(torch, out):
    N = torch.zeros((3, 27), dtype=torch.int32)
    for ix1, ix2 in bigrams()[:40]:
        N[ix1 % 3, ix2] += 1
    out("repr", repr(N))
    out("float rows", repr(torch.full((1, 20), 0.1234)))


def snip_formatting_a_loss(torch, out):
    t = torch.tensor(2.302585)
    out("0-d format", (f"{t:.4f}", f"{t.item():.4f}", f"{t:8.3f}", f"{t:.2e}"))
    out("int format", f"{3:7d}/{200000:7d}: {t.item():.4f}")
    out("log10", (t.log10(), t.log10().item()))


NEEDS: dict[str, str] = {}


@parametrize(globals(), xfail=NEEDS)
def test_makemore(lib, snippet):
    check(snippet, lib)
