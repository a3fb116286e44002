"""The nn layers of issue 21 against PyTorch: activations, LayerNorm, GroupNorm, Embedding,
pooling, Unflatten, Conv2d's padding modes, ParameterList/ParameterDict and the lazy modules.

Each snippet runs on both libraries (tests/parity.py) with the same parameter values copied in:
outputs, grad_fn names, gradients of the input and of every parameter, state_dict keys, reprs
and PyTorch's errors. Initial values are compared as distributions (bounds, means), never
bitwise.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same

torch_lib = pytest.importorskip("torch")


def values(torch: ModuleType, *shape: int, seed: int = 0, low: float = -2.0, high: float = 2.0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(low, high, shape), dtype=torch.float64)


def indices(torch: ModuleType, *shape: int, high: int = 5, seed: int = 0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.integers(0, high, shape), dtype=torch.int64)


# name: (module factory, input shape or "idx" for indices)
LAYERS: dict[str, tuple[Any, tuple]] = {
    "GELU": (lambda nn: nn.GELU(), (3, 4)),
    "GELU(tanh)": (lambda nn: nn.GELU("tanh"), (3, 4)),
    "LeakyReLU": (lambda nn: nn.LeakyReLU(0.2), (3, 4)),
    "ELU": (lambda nn: nn.ELU(0.5), (3, 4)),
    "SiLU": (lambda nn: nn.SiLU(), (3, 4)),
    "Softplus": (lambda nn: nn.Softplus(2, 1), (3, 4)),
    "Hardtanh": (lambda nn: nn.Hardtanh(-0.5, 0.5), (3, 4)),
    "ReLU6": (lambda nn: nn.ReLU6(), (3, 4)),
    "Mish": (lambda nn: nn.Mish(), (3, 4)),
    "Softsign": (lambda nn: nn.Softsign(), (3, 4)),
    "LogSigmoid": (lambda nn: nn.LogSigmoid(), (3, 4)),
    "Hardswish": (lambda nn: nn.Hardswish(), (3, 4)),
    "Hardsigmoid": (lambda nn: nn.Hardsigmoid(), (3, 4)),
    "Softmax": (lambda nn: nn.Softmax(dim=1), (3, 4)),
    "LogSoftmax": (lambda nn: nn.LogSoftmax(dim=0), (3, 4)),
    "LayerNorm": (lambda nn: nn.LayerNorm(4), (2, 3, 4)),
    "LayerNorm(3,4),no-affine": (
        lambda nn: nn.LayerNorm((3, 4), elementwise_affine=False),
        (2, 3, 4),
    ),
    "LayerNorm,no-bias": (lambda nn: nn.LayerNorm([4], eps=1e-3, bias=False), (3, 4)),
    "GroupNorm": (lambda nn: nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    "GroupNorm,no-affine": (lambda nn: nn.GroupNorm(1, 4, affine=False), (2, 4, 5)),
    "Embedding": (lambda nn: nn.Embedding(5, 3), "idx"),
    "Embedding,pad,freq": (
        lambda nn: nn.Embedding(5, 3, padding_idx=-2, scale_grad_by_freq=True),
        "idx",
    ),
    "Embedding,max_norm": (lambda nn: nn.Embedding(5, 3, max_norm=1.0), "idx"),
    "AvgPool2d": (lambda nn: nn.AvgPool2d(2), (2, 3, 6, 6)),
    "AvgPool2d,ceil": (lambda nn: nn.AvgPool2d(3, 2, 1, True, False), (2, 3, 6, 7)),
    "AvgPool2d,divisor": (lambda nn: nn.AvgPool2d((2, 3), divisor_override=2), (3, 6, 6)),
    "AdaptiveAvgPool2d": (lambda nn: nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 5, 7)),
    "AdaptiveAvgPool2d(None)": (lambda nn: nn.AdaptiveAvgPool2d((None, 2)), (3, 5, 7)),
    "AdaptiveMaxPool2d": (lambda nn: nn.AdaptiveMaxPool2d((3, None)), (2, 3, 5, 7)),
    "AvgPool1d": (lambda nn: nn.AvgPool1d(3, 2, 1), (2, 3, 8)),
    "MaxPool1d": (lambda nn: nn.MaxPool1d(2), (2, 3, 8)),
    "Unflatten": (lambda nn: nn.Unflatten(1, (2, 2)), (3, 4)),
    "Unflatten(-1)": (lambda nn: nn.Unflatten(-1, [2, -1]), (3, 4)),
    **{
        f"Conv2d,{mode}": (
            lambda nn, mode=mode: nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode=mode),
            (2, 2, 5, 6),
        )
        for mode in ("reflect", "replicate", "circular")
    },
    "Conv2d,same,reflect": (
        lambda nn: nn.Conv2d(2, 3, (2, 3), padding="same", padding_mode="reflect"),
        (2, 2, 5, 6),
    ),
    "Conv2d,valid,circular": (
        lambda nn: nn.Conv2d(2, 3, 3, padding="valid", padding_mode="circular", bias=False),
        (1, 2, 5, 6),
    ),
}


def _set_parameters(torch: ModuleType, module: Any) -> None:
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(values(torch, *p.shape, seed=10 + i).to(p.dtype))


@pytest.mark.parametrize("name", LAYERS)
def test_layer_matches_torch(name: str) -> None:
    make, shape = LAYERS[name]

    def snippet(torch: ModuleType, out: Recorder) -> None:
        module = make(torch.nn).double()
        _set_parameters(torch, module)
        out("repr", repr(module))
        out("state_dict keys", list(module.state_dict()))
        out("parameter shapes", [(n, tuple(p.shape)) for n, p in module.named_parameters()])
        if shape == "idx":
            x = indices(torch, 2, 3)
            leaves = list(module.parameters())
        else:
            x = values(torch, *shape).requires_grad_()
            leaves = [x, *module.parameters()]
        y = module(x)
        out("output", y)
        out("grad_fn", y.grad_fn.name())
        seed = values(torch, *y.shape, seed=5)
        grads = torch.autograd.grad(y, leaves, seed)
        out("gradients", list(grads))
        out("parameters afterwards", list(module.parameters()))

    assert_same(snippet)


@pytest.mark.parametrize("name", ["GELU", "LayerNorm", "GroupNorm", "Mish", "Embedding,pad,freq"])
def test_layer_second_order_matches_torch(name: str) -> None:
    make, shape = LAYERS[name]

    def snippet(torch: ModuleType, out: Recorder) -> None:
        module = make(torch.nn).double()
        _set_parameters(torch, module)
        x = indices(torch, 2, 3) if shape == "idx" else values(torch, *shape).requires_grad_()
        leaves = [t for t in (x, *module.parameters()) if t.requires_grad]
        y = module(x)
        seed = values(torch, *y.shape, seed=5).requires_grad_()
        grads = torch.autograd.grad(y, leaves, seed, create_graph=True)
        total = sum((g * values(torch, *g.shape, seed=6 + i)).sum() for i, g in enumerate(grads))
        second = torch.autograd.grad(total, [*leaves, seed], allow_unused=True)
        out("second order", [s if s is not None else "None" for s in second])

    assert_same(snippet)


def test_inplace_activations_match_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        for module in (
            nn.LeakyReLU(0.1, True),
            nn.ELU(inplace=True),
            nn.ReLU6(True),
            nn.SiLU(True),
        ):
            x = values(torch, 3, 4).requires_grad_()
            h = x * 1
            y = module(h)
            out(f"{module!r} returns its input", y is h)
            out("grad_fn", y.grad_fn.name())
            out("gradient", torch.autograd.grad(y, x, values(torch, 3, 4, seed=1)))

    assert_same(snippet)


CONSTRUCTOR_ERRORS = {
    "Hardtanh(1, 1)": lambda nn: nn.Hardtanh(1.0, 1.0),
    "GroupNorm(3, 4)": lambda nn: nn.GroupNorm(3, 4),
    "Embedding pad 5": lambda nn: nn.Embedding(5, 3, padding_idx=5),
    "Embedding pad -6": lambda nn: nn.Embedding(5, 3, padding_idx=-6),
    "Unflatten float": lambda nn: nn.Unflatten(1, (2, 2.0)),
    "Unflatten int": lambda nn: nn.Unflatten(1, 4),
    "Conv2d mode": lambda nn: nn.ConvTranspose2d(2, 2, 3, padding_mode="circular"),
}


@pytest.mark.parametrize("name", CONSTRUCTOR_ERRORS)
def test_constructor_errors_match_torch(name: str) -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        with out.raises(name):
            CONSTRUCTOR_ERRORS[name](torch.nn)

    assert_same(snippet)


def test_forward_errors_match_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        with out.raises("LayerNorm shape"):
            nn.LayerNorm(5)(torch.ones(2, 4))
        with out.raises("GroupNorm channels"):
            nn.GroupNorm(2, 4)(torch.ones(2, 6))
        with out.raises("Embedding index"):
            nn.Embedding(5, 3)(torch.tensor([5]))
        with out.raises("Embedding float indices"):
            nn.Embedding(5, 3)(torch.ones(2))
        with out.raises("Unflatten sizes"):
            nn.Unflatten(1, (3, -1))(torch.ones(2, 4))
        with out.raises("AvgPool2d too small"):
            nn.AvgPool2d(3)(torch.ones(1, 1, 2, 2))

    assert_same(snippet)


# --- initial values: distributions, not numbers ----------------------------------------------
def test_initial_values_follow_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        torch.manual_seed(0)
        norm = nn.LayerNorm((3, 4))
        out("LayerNorm weight, bias", (norm.weight, norm.bias))
        group = nn.GroupNorm(2, 4)
        out("GroupNorm weight, bias", (group.weight, group.bias))
        emb = nn.Embedding(2000, 50, padding_idx=3)
        w = emb.weight.detach().numpy()
        out("Embedding ~ N(0, 1)", (abs(w.mean()) < 0.01, abs(w.std() - 1) < 0.01))
        out("Embedding padding row", emb.weight[3])
        lazy = nn.LazyLinear(40)
        lazy(torch.ones(2, 30))
        bound = 1 / 30**0.5
        out("LazyLinear bound", float(lazy.weight.detach().abs().max()) <= bound)
        out("LazyLinear spread", float(lazy.weight.detach().abs().max()) > 0.9 * bound)
        conv = nn.LazyConv2d(8, 3)
        conv(torch.ones(1, 4, 5, 5))
        bound = 1 / (4 * 9) ** 0.5
        out("LazyConv2d bias bound", float(conv.bias.detach().abs().max()) <= bound)
        bn = nn.LazyBatchNorm2d()
        bn.eval()
        bn(torch.ones(2, 3, 2, 2))
        out("LazyBatchNorm2d", (bn.weight, bn.bias, bn.running_mean, bn.running_var))

    assert_same(snippet)


# --- Embedding.from_pretrained and max_norm ----------------------------------------------------
def test_embedding_from_pretrained_matches_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        table = values(torch, 4, 3)
        frozen = nn.Embedding.from_pretrained(table)
        out("frozen", (frozen.weight.requires_grad, repr(frozen)))
        table.add_(1)
        out("shares the tensor", frozen.weight)
        y = frozen(torch.tensor([1, 3]))
        out("output", y)
        trainable = nn.Embedding.from_pretrained(table.clone(), freeze=False, padding_idx=0)
        z = trainable(torch.tensor([[0, 1], [0, 2]]))
        z.backward(values(torch, 2, 2, 3, seed=2))
        out("padding row gets no gradient", trainable.weight.grad)
        with out.raises("1-d"):
            nn.Embedding.from_pretrained(values(torch, 3))
        renorm = nn.Embedding.from_pretrained(values(torch, 5, 3, low=2.0, high=3.0), max_norm=1.5)
        before = renorm.weight._version
        renorm(torch.tensor([0, 2, 2]))
        out("rows used are renormalised", renorm.weight)
        out("the weight's version moved", renorm.weight._version > before)

    assert_same(snippet)


# --- ParameterList and ParameterDict -----------------------------------------------------------
def test_parameter_containers_match_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        plist = nn.ParameterList([nn.Parameter(torch.ones(2)), torch.zeros(3), 5])
        plist.append(torch.ones(1, 2, dtype=torch.float64))
        out("list repr", repr(plist))
        out("list len", len(plist))
        out("list names", [n for n, _ in plist.named_parameters()])
        out("list state_dict", list(plist.state_dict()))
        out("plain tensors become parameters", type(plist[1]).__name__)
        out("other values kept", plist[2])
        out("negative index", plist[-1])
        out("slice", repr(plist[1:3]))
        with out.raises("out of range"):
            plist[7]
        pdict = nn.ParameterDict({"a": torch.ones(2), "b": 3})
        pdict["c"] = nn.Parameter(torch.ones(1, 2, dtype=torch.float64))
        pdict.update([("d", torch.zeros(2))])
        out("dict repr", repr(pdict))
        out("dict keys", list(pdict.keys()))
        out("dict names", [n for n, _ in pdict.named_parameters()])
        out("dict contains", ("a" in pdict, "z" in pdict))
        out("dict pop", pdict.pop("b"))
        out("dict len", len(pdict))
        with out.raises("missing key"):
            pdict["z"]
        model = nn.Module()
        model.scales = nn.ParameterList([torch.ones(2)])
        model.extra = nn.ParameterDict({"w": torch.ones(3)})
        out("nested state_dict", list(model.state_dict()))

    assert_same(snippet)


# --- lazy modules ------------------------------------------------------------------------------
def test_lazy_linear_matches_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        lazy = nn.LazyLinear(3)
        out("before", (repr(lazy), type(lazy).__name__, type(lazy.weight).__name__))
        out("repr of the parameter", repr(lazy.weight))
        out("has uninitialized", lazy.has_uninitialized_params())
        out("parameters", len(list(lazy.parameters())))
        out("state_dict keys", list(lazy.state_dict()))
        with out.raises("shape"):
            _ = lazy.weight.shape
        with out.raises("op"):
            lazy.weight + 1
        with out.raises("method"):
            lazy.weight.numel()
        y = lazy(values(torch, 2, 5))
        out("after", (repr(lazy), type(lazy).__name__, type(lazy.weight).__name__))
        out("shapes", (tuple(lazy.weight.shape), tuple(lazy.bias.shape)))
        out("grad_fn", y.grad_fn.name())
        out("hooks left", len(lazy._forward_pre_hooks))
        loaded = nn.LazyLinear(3, bias=False)
        source = nn.Linear(4, 3, bias=False)
        out("load", repr(loaded.load_state_dict(source.state_dict())))
        out("loaded, still lazy", (type(loaded).__name__, tuple(loaded.weight.shape)))
        loaded(values(torch, 1, 4))
        out("loaded, after forward", repr(loaded))
        wide = nn.LazyLinear(2).double()
        out("double before", (type(wide.weight).__name__, wide.weight.dtype))
        wide(values(torch, 1, 3))
        out("double after", (wide.weight.dtype, tuple(wide.weight.shape)))
        with out.raises("requires_grad_ before"):
            nn.LazyLinear(2).requires_grad_(False)
        still = nn.LazyLinear(3)
        out("lazy into lazy", repr(still.load_state_dict(nn.LazyLinear(3).state_dict())))
        out("stays lazy", type(still.weight).__name__)
        with out.raises("loading a lazy state into a built module"):
            nn.Linear(4, 3).load_state_dict(nn.LazyLinear(3).state_dict())

    assert_same(snippet)


def test_lazy_conv_and_batchnorm_match_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        conv = nn.LazyConv2d(4, 3, padding=1, padding_mode="reflect")
        out("conv before", repr(conv))
        conv(values(torch, 5, 6, 6).float())
        out("conv after", (repr(conv), type(conv).__name__, tuple(conv.weight.shape)))
        with out.raises("groups"):
            nn.LazyConv2d(4, 3, groups=2)(torch.ones(1, 3, 5, 5))
        for cls, shape in (("LazyBatchNorm1d", (4, 3)), ("LazyBatchNorm2d", (2, 3, 2, 2))):
            bn = getattr(nn, cls)(momentum=0.5)
            out(f"{cls} before", (repr(bn), list(bn.state_dict())))
            out("buffer", (type(bn.running_mean).__name__, repr(bn.running_mean)))
            y = bn(values(torch, *shape).float())
            out(f"{cls} after", (repr(bn), type(bn).__name__))
            out("statistics", (bn.running_mean, bn.running_var, bn.num_batches_tracked))
            out("output", y)
        import copy

        twin = copy.deepcopy(nn.Sequential(nn.LazyConv2d(2, 3), nn.ReLU()))
        out("deepcopy stays lazy", [type(p).__name__ for p in twin.parameters()])
        twin(values(torch, 1, 3, 5, 5).float())
        out("deepcopy after forward", repr(twin))
        plain = nn.LazyBatchNorm1d(affine=False, track_running_stats=False)
        out("nothing lazy", plain.has_uninitialized_params())
        plain(values(torch, 4, 3).float())
        out("becomes BatchNorm1d", repr(plain))

    assert_same(snippet)


def test_lazy_module_inside_a_model_trains_like_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        nn = torch.nn
        model = nn.Sequential(nn.LazyLinear(4), nn.GELU(), nn.LayerNorm(4), nn.LazyLinear(2))
        x = values(torch, 3, 5).float()
        model(x)
        _set_parameters(torch, model)
        out("state_dict keys", list(model.state_dict()))
        out("repr", repr(model))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            loss = model(x).pow(2).mean()
            loss.backward()
            opt.step()
        out("loss", loss)
        out("parameters", list(model.parameters()))

    assert_same(snippet)
