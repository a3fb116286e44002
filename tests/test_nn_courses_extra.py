"""The nn pieces the courses use, against PyTorch: Conv1d / F.conv1d, F.normalize,
F.cosine_similarity, F.scaled_dot_product_attention, nn.init.trunc_normal_ and orthogonal_.

Each snippet runs on both libraries (tests/parity.py): outputs, grad_fn names (whole graphs
where PyTorch records ordinary ops), gradients, second-order gradients, state_dict keys,
reprs and errors. The random initialisers are compared as distributions, never bitwise.
"""

from __future__ import annotations

import contextlib
import warnings
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same

import minigrad as mg

torch_lib = pytest.importorskip("torch")


def values(torch: ModuleType, *shape: int, seed: int = 0, low: float = -2.0, high: float = 2.0):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(low, high, shape), dtype=torch.float64)


def graph(fn: Any) -> list[str]:
    """Every node's name, depth first from `fn` (the shape of the recorded graph)."""
    names, stack = [], [fn]
    while stack:
        node = stack.pop()
        if node is not None:
            names.append(node.name())
            stack.extend(child for child, _ in reversed(node.next_functions))
    return names


def _set_parameters(torch: ModuleType, module: Any) -> None:
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(values(torch, *p.shape, seed=10 + i).to(p.dtype))


# --- Conv1d -------------------------------------------------------------------------------
CONV1D: dict[str, tuple[Any, tuple]] = {
    "default": (lambda nn: nn.Conv1d(3, 4, 3), (2, 3, 7)),
    "unbatched": (lambda nn: nn.Conv1d(3, 4, 3), (3, 7)),
    "stride,pad,dilation": (lambda nn: nn.Conv1d(3, 4, 3, 2, 2, 2), (2, 3, 9)),
    "groups,no-bias": (lambda nn: nn.Conv1d(4, 6, 2, groups=2, bias=False), (2, 4, 6)),
    "same,k4": (lambda nn: nn.Conv1d(2, 3, 4, padding="same"), (2, 2, 7)),
    "valid": (lambda nn: nn.Conv1d(2, 3, (3,), padding="valid"), (1, 2, 7)),
    **{
        f"{mode}": (
            lambda nn, mode=mode: nn.Conv1d(2, 3, 3, padding=2, padding_mode=mode),
            (2, 2, 6),
        )
        for mode in ("reflect", "replicate", "circular")
    },
    "same,circular": (
        lambda nn: nn.Conv1d(2, 3, 4, padding="same", padding_mode="circular"),
        (2, 2, 7),
    ),
}


@pytest.mark.parametrize("name", CONV1D)
def test_conv1d_layer_matches_torch(name: str) -> None:
    make, shape = CONV1D[name]

    def snippet(torch: ModuleType, out: Recorder) -> None:
        module = make(torch.nn).double()
        _set_parameters(torch, module)
        out("repr", repr(module))
        out("state_dict keys", list(module.state_dict()))
        out("parameter shapes", [(n, tuple(p.shape)) for n, p in module.named_parameters()])
        out("attributes", [module.kernel_size, module.stride, module.dilation, module.groups])
        out("padding", module.padding)
        out("output_padding", module.output_padding)
        x = values(torch, *shape).requires_grad_()
        with warnings.catch_warnings():  # (PyTorch warns about padding="same" once a process)
            warnings.simplefilter("ignore")
            y = module(x)
        out("output", y)
        out("grad_fn", y.grad_fn.name())
        if module.padding_mode == "zeros":  # (F.pad's circular graph differs: see the report)
            out("graph", graph(y.grad_fn))
        leaves = [x, *module.parameters()]
        out("gradients", list(torch.autograd.grad(y, leaves, values(torch, *y.shape, seed=5))))

    assert_same(snippet)


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("name", ["default", "unbatched", "groups,no-bias", "same,k4"])
def test_conv1d_second_order_matches_torch(name: str) -> None:
    make, shape = CONV1D[name]

    def snippet(torch: ModuleType, out: Recorder) -> None:
        module = make(torch.nn).double()
        _set_parameters(torch, module)
        x = values(torch, *shape).requires_grad_()
        leaves = [x, *module.parameters()]
        y = module(x)
        seed = values(torch, *y.shape, seed=5).requires_grad_()
        grads = torch.autograd.grad(y, leaves, seed, create_graph=True)
        total = sum((g * values(torch, *g.shape, seed=6 + i)).sum() for i, g in enumerate(grads))
        second = torch.autograd.grad(total, [*leaves, seed], allow_unused=True)
        out("second order", [s if s is not None else "None" for s in second])

    assert_same(snippet)


def test_conv1d_functional_float32_matches_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        F = torch.nn.functional
        x = values(torch, 2, 3, 8).float().requires_grad_()
        w = values(torch, 4, 3, 3, seed=1).float().requires_grad_()
        b = values(torch, 4, seed=2).float().requires_grad_()
        for kw in ({}, {"stride": 2, "padding": 1}, {"padding": "same", "dilation": 2}):
            y = F.conv1d(x, w, b, **kw)
            out(f"output {kw}", y)
            out(f"gradients {kw}", torch.autograd.grad(y.sum(), (x, w, b)))

    assert_same(snippet)


CONV1D_ERRORS = {
    "1d input": lambda t, F: F.conv1d(t.ones(5), t.ones(4, 3, 2)),
    "4d input": lambda t, F: F.conv1d(t.ones(1, 3, 4, 5), t.ones(4, 3, 2)),
    "channels": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 2, 2)),
    "bias size": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), t.ones(3)),
    "bias dtype": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), t.ones(4).double()),
    "kernel too big": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 9)),
    "stride 0": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), stride=0),
    "stride pair": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), stride=(1, 1)),
    "padding -1": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), padding=-1),
    "same strided": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 3), None, 2, "same"),
    "bad string": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), padding="full"),
    "dilation 0": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), dilation=0),
    "groups 0": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2), groups=0),
    "groups 3": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 1, 2), groups=3),
    "weight dtype": lambda t, F: F.conv1d(t.ones(2, 3, 5).double(), t.ones(4, 3, 2)),
    "2d weight": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3)),
    "4d weight": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2, 2)),
    "same, 4d weight": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3, 2, 2), padding="same"),
    "same, 2d weight": lambda t, F: F.conv1d(t.ones(2, 3, 5), t.ones(4, 3), padding="same"),
    "module groups": lambda t, F: t.nn.Conv1d(3, 4, 2, groups=2),
    "module padding": lambda t, F: t.nn.Conv1d(3, 4, 2, padding="full"),
    "module same strided": lambda t, F: t.nn.Conv1d(3, 4, 2, 2, padding="same"),
    "module mode": lambda t, F: t.nn.Conv1d(3, 4, 2, padding_mode="mirror"),
    "module input": lambda t, F: t.nn.Conv1d(3, 4, 2)(t.ones(2, 2, 5)),
}


@pytest.mark.parametrize("name", CONV1D_ERRORS)
def test_conv1d_errors_match_torch(name: str) -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        with out.raises(name):
            CONV1D_ERRORS[name](torch, torch.nn.functional)

    # (the modes are a set, printed in hash order)
    assert_same(snippet, key="padding_mode must be one of" if name == "module mode" else None)


# --- normalize and cosine_similarity --------------------------------------------------------
def test_normalize_matches_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        F = torch.nn.functional
        for kw in ({}, {"p": 1.0, "dim": 0}, {"dim": -1, "eps": 0.5}, {"p": float("inf")}):
            x = values(torch, 3, 4).requires_grad_()
            with torch.no_grad():
                x[1] = 0.0  # a zero row: the clamp decides
            y = F.normalize(x, **kw)
            out(f"output {kw}", y)
            out(f"graph {kw}", graph(y.grad_fn))
            g = torch.autograd.grad(y, x, values(torch, 3, 4, seed=1), create_graph=True)[0]
            out(f"gradient {kw}", g)
            out(f"second order {kw}", torch.autograd.grad(g.pow(2).sum(), x))
        with out.raises("integer input"):
            F.normalize(torch.ones(2, 3, dtype=torch.int64))
        with out.raises("dim out of range"):
            F.normalize(torch.ones(2, 3), dim=2)

    assert_same(snippet)


def test_cosine_similarity_matches_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        F = torch.nn.functional
        cases = (((3, 4), (3, 4), {}), ((3, 4), (1, 4), {}), ((2, 3, 4), (4,), {"dim": -1}))
        for s1, s2, kw in cases:
            a = values(torch, *s1).requires_grad_()
            b = values(torch, *s2, seed=1).requires_grad_()
            y = F.cosine_similarity(a, b, **kw)
            out(f"output {s1} {s2}", y)
            out(f"graph {s1} {s2}", graph(y.grad_fn))
            ga, gb = torch.autograd.grad(y, (a, b), values(torch, *y.shape, seed=2), True)
            out(f"gradients {s1} {s2}", (ga, gb))
            out(f"second order {s1} {s2}", torch.autograd.grad((ga * gb.sum()).sum(), (a, b)))
        zero = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
        y = F.cosine_similarity(zero, values(torch, 2, 3), eps=0.1)
        out("zero vectors", y)
        out("zero vectors gradient", torch.autograd.grad(y.sum(), zero))
        ints = torch.tensor([[1, 2, 3]])
        out("int and float", F.cosine_similarity(ints, torch.tensor([[1.0, 0.0, -1.0]])))
        out("float64 and float32", F.cosine_similarity(values(torch, 2, 3), torch.ones(2, 3)))
        out("vectors, dim 0", F.cosine_similarity(torch.tensor([1.0, 2.0]), torch.ones(2), 0))
        with out.raises("integers"):
            F.cosine_similarity(ints, ints)
        with out.raises("shapes"):
            F.cosine_similarity(torch.ones(3, 4), torch.ones(4))
        with out.raises("dim"):
            F.cosine_similarity(torch.ones(3, 4), torch.ones(3, 4), dim=2)

    assert_same(snippet)


# --- scaled_dot_product_attention ---------------------------------------------------------
def _qkv(torch: ModuleType, batch: tuple, length: int = 4, source: int = 5) -> list:
    shapes = ((*batch, length, 3), (*batch, source, 3), (*batch, source, 2))
    return [values(torch, *s, seed=i).requires_grad_() for i, s in enumerate(shapes)]


SDPA: dict[str, tuple[tuple, dict]] = {
    "3d": ((2,), {}),
    "2d": ((), {}),
    "4d": ((2, 2), {}),
    "causal": ((2,), {"is_causal": True}),
    "causal,4d,square": ((1, 2), {"is_causal": True, "source": 4}),
    "scale": ((2,), {"scale": 0.3}),
    "negative scale": ((2,), {"scale": -0.5}),
    "bool mask": ((2,), {"mask": "bool"}),
    "float mask": ((2,), {"mask": "float"}),
    "bool mask,4d": ((2, 2), {"mask": "bool"}),
}


def _mask(torch: ModuleType, kind: str | None) -> Any:
    if kind == "bool":  # row 0 masked out completely: zeros there, not NaN
        keep = np.random.default_rng(3).random((4, 5)) > 0.4
        keep[0] = False
        return torch.tensor(keep)
    if kind == "float":
        return values(torch, 4, 5, seed=4).requires_grad_()
    return None


@pytest.mark.parametrize("name", SDPA)
def test_sdpa_matches_torch(name: str) -> None:
    batch, kw = SDPA[name]
    kw = dict(kw)
    kind, source = kw.pop("mask", None), kw.pop("source", 5)

    def snippet(torch: ModuleType, out: Recorder) -> None:
        F = torch.nn.functional
        q, k, v = _qkv(torch, batch, source=source)
        mask = _mask(torch, kind)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)
        out("output", y)
        if len(batch) < 2:  # PyTorch runs 4-d inputs on its fused flash kernel (one node)
            out("graph", graph(y.grad_fn))
        leaves = [q, k, v] + ([mask] if kind == "float" else [])
        grads = torch.autograd.grad(y, leaves, values(torch, *y.shape, seed=9), create_graph=True)
        out("gradients", list(grads))
        if len(batch) < 2:  # (PyTorch's flash kernel has no second derivative)
            total = sum(
                (g * values(torch, *g.shape, seed=6 + i)).sum() for i, g in enumerate(grads)
            )
            out("second order", list(torch.autograd.grad(total, leaves)))

    assert_same(snippet)


def _math_backend(torch: ModuleType) -> Any:
    """PyTorch's math path, forced (minigrad always takes it; it has no torch.nn.attention)."""
    if getattr(torch.nn, "attention", None) is None:
        return contextlib.nullcontext()
    return torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH)


def test_sdpa_4d_graph_is_torch_math_path() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        q, k, v = _qkv(torch, (2, 2))
        keep = torch.ones(4, 5, dtype=torch.bool)
        with _math_backend(torch):
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, keep, dropout_p=0.3)
            out("graph with mask and dropout", graph(y.grad_fn))
            y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            out("causal output", y)
            out("causal graph", graph(y.grad_fn))

    assert_same(snippet)


def test_sdpa_float32_gqa_and_dropout_match_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        F = torch.nn.functional
        q = values(torch, 1, 4, 3, 3).float().requires_grad_()
        k = values(torch, 1, 2, 5, 3, seed=1).float().requires_grad_()
        v = values(torch, 1, 2, 5, 2, seed=2).float().requires_grad_()
        y = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        out("gqa output", y)
        out("gqa gradients", torch.autograd.grad(y.sum(), (q, k, v)))
        qs, ks, vs = q[0, :2], k[0], v[0]
        y = F.scaled_dot_product_attention(qs, ks, vs, is_causal=True)
        out("float32 causal", y)
        out("float32 gradients", torch.autograd.grad((y * y).sum(), (q, k, v), allow_unused=True))
        out("dropout 1: zeros", F.scaled_dot_product_attention(qs, ks, vs, dropout_p=1.0))
        dropped = F.scaled_dot_product_attention(qs, ks, vs, dropout_p=0.5)
        out("dropout 0.5: shape, dtype", (tuple(dropped.shape), dropped.dtype))
        mixed = F.scaled_dot_product_attention(
            qs.double(), ks.double(), vs.double(), _float_mask(torch)
        )
        out("float32 mask on float64", mixed)

    assert_same(snippet)


def _float_mask(torch: ModuleType) -> Any:
    return values(torch, 3, 5, seed=7).float()


SDPA_ERRORS = {
    "dtypes": lambda t, q, k, v: (q, k.double(), v),
    "1-d": lambda t, q, k, v: (q[0, 0], k[0, 0], v[0, 0]),
    "int mask": lambda t, q, k, v: (q, k, v, t.ones(4, 5, dtype=t.int64)),
    "float64 mask": lambda t, q, k, v: (q, k, v, t.ones(4, 5, dtype=t.float64)),
    "mask shape": lambda t, q, k, v: (q, k, v, t.ones(4, 4)),
    "mask batch": lambda t, q, k, v: (q, k, v, t.ones(3, 4, 5)),
    "head size": lambda t, q, k, v: (q, k[..., :2], v),
    "value length": lambda t, q, k, v: (q, k, v[:, :4]),
    "integers": lambda t, q, k, v: (q.long(), k.long(), v.long()),
}


@pytest.mark.parametrize("name", [*SDPA_ERRORS, "causal and mask", "dropout", "gqa heads"])
def test_sdpa_errors_match_torch(name: str) -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        sdpa = torch.nn.functional.scaled_dot_product_attention
        q, k, v = torch.randn(2, 4, 3), torch.randn(2, 5, 3), torch.randn(2, 5, 2)
        with out.raises(name):
            if name == "causal and mask":
                sdpa(q, k, v, torch.ones(4, 5, dtype=torch.bool), is_causal=True)
            elif name == "dropout":
                sdpa(q, k, v, dropout_p=1.5)
            elif name == "gqa heads":
                big = torch.randn(1, 4, 4, 3)
                sdpa(big, torch.randn(1, 3, 5, 3), torch.randn(1, 3, 5, 2), enable_gqa=True)
            else:
                sdpa(*SDPA_ERRORS[name](torch, q, k, v))

    assert_same(snippet)


# --- nn.init: trunc_normal_ and orthogonal_ -------------------------------------------------
def test_trunc_normal_matches_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        init = torch.nn.init
        for mean, std, a, b in (
            (0.0, 1.0, -2.0, 2.0),
            (0.5, 2.0, -1.0, 3.0),
            (0.0, 0.02, -0.04, 0.04),
        ):
            t = torch.empty(200_000)
            out(f"returns its argument {a, b}", init.trunc_normal_(t, mean, std, a, b) is t)
            out(f"within [a, b] {a, b}", bool(((t >= a) & (t <= b)).all()))
            out(f"reaches both ends {a, b}", (round(t.min().item(), 1), round(t.max().item(), 1)))
            out(f"mean {a, b}", round(t.mean().item() / std, 1))
            out(f"std {a, b}", round(t.std().item() / std, 1))
        t = torch.empty(100_000)
        with out.warns("far tail warns"):
            init.trunc_normal_(t, 0.0, 1.0, 3.0, 3.5)
        out("far tail within bounds", bool(((t >= 3.0) & (t <= 3.5)).all()))
        out("far tail mean", round(t.mean().item(), 1))
        w = torch.ones(3, 4, requires_grad=True)
        out("leaf that requires grad", init.trunc_normal_(w) is w)
        out("no graph", (w.grad_fn is None, w.requires_grad, w.is_leaf))
        out("version moved", w._version > 0)
        out("float64 kept", init.trunc_normal_(torch.empty(3, dtype=torch.float64)).dtype)
        out("empty", init.trunc_normal_(torch.empty(0)))
        gen = torch.Generator().manual_seed(0)
        out("generator accepted", tuple(init.trunc_normal_(torch.empty(5), generator=gen).shape))
        with out.raises("integer tensor"):
            init.trunc_normal_(torch.empty(3, dtype=torch.int64))
        with out.raises("bad generator"):
            init.trunc_normal_(torch.empty(3), generator=1)
        with out.raises("a > b"):
            init.trunc_normal_(torch.empty(3), 0.0, 1.0, 1.0, -1.0)
        with out.raises("std 0"):
            init.trunc_normal_(torch.empty(3), 0.0, 0.0)

    assert_same(snippet)


def test_orthogonal_matches_torch() -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        init = torch.nn.init
        for shape, gain in (((3, 5), 1.0), ((6, 2, 2), 2.0), ((4, 4), 0.5), ((5, 3), 1)):
            t = torch.empty(*shape, dtype=torch.float64)
            out(f"returns its argument {shape}", init.orthogonal_(t, gain) is t)
            flat = t.reshape(shape[0], -1) / gain
            small = flat @ flat.t() if flat.shape[0] <= flat.shape[1] else flat.t() @ flat
            eye = torch.eye(small.shape[0], dtype=torch.float64)
            out(f"orthonormal {shape}", bool(((small - eye).abs() < 1e-10).all()))
        w = torch.empty(3, 3, requires_grad=True)
        out("leaf that requires grad", init.orthogonal_(w) is w)
        out("no graph", (w.grad_fn is None, w.requires_grad, w.is_leaf))
        out("float32 kept", init.orthogonal_(torch.empty(2, 3)).dtype)
        out("empty", init.orthogonal_(torch.empty(0, 3)).shape)
        with out.raises("1-d"):
            init.orthogonal_(torch.empty(3))
        with out.raises("integer tensor"):
            init.orthogonal_(torch.empty(3, 3, dtype=torch.int64))

    assert_same(snippet)


@pytest.mark.parametrize(
    "init",
    [
        "uniform_",
        "normal_",
        "kaiming_uniform_",
        "kaiming_normal_",
        "xavier_uniform_",
        "xavier_normal_",
    ],
)
def test_initialisers_draw_from_the_generator_given(init):
    """`generator=` is the stream used, and the global one is left untouched, as in PyTorch."""
    fn = getattr(mg.nn.init, init)
    first = fn(mg.empty(3, 4), generator=mg.Generator().manual_seed(1))
    again = fn(mg.empty(3, 4), generator=mg.Generator().manual_seed(1))
    assert (first == again).all()
    mg.manual_seed(7)
    fn(mg.empty(3, 4), generator=mg.Generator().manual_seed(2))
    after = mg.rand(2)
    mg.manual_seed(7)
    assert (after == mg.rand(2)).all()
