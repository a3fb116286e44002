"""Forward-mode AD through torch.nn.functional, against PyTorch.

Each case runs the same code under torch.autograd.forward_ad and minigrad.autograd.forward_ad
and compares primals and tangents (or, where PyTorch refuses, the error's type and words).
Cases are generated over functions x tangent placements (every input, then each input alone)
x dtypes x layouts (contiguous inputs, or strided views of larger ones). Then the tangents
are differentiated again (reverse over forward), and gradients made with create_graph are
pushed forward (forward over reverse), for the nodes whose formulas serve both."""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from forward_ad_support import same_outcome

import minigrad

LIBS = (torch, minigrad)
DTYPES = ("float64", "float32")
TOLERANCES = {"float64": (1e-7, 1e-9), "float32": (2e-4, 2e-5)}


def F(lib: Any) -> Any:  # noqa: N802 - stands for torch.nn.functional
    return lib.nn.functional


def _long(lib: Any, values: Any) -> Any:
    return lib.tensor(np.asarray(values, dtype=np.int64))


TARGET = [0, 3, 4, 1]
TARGET_4D = [[[0, 2], [4, -100], [1, 1]], [[3, 0], [2, 2], [4, 0]]]


def _ce(**kw: Any) -> Callable:
    return lambda L, x: F(L).cross_entropy(x, _long(L, TARGET), **kw)


def _weights(L: Any, x: Any) -> Any:
    return L.linspace(0.5, 1.5, x.shape[1], dtype=x.dtype)


# name -> (function of the library and its inputs, input specs). A spec is a shape (normal
# values) or (shape, kind): kind "unit" draws from (0.05, 0.95), "positive" from (0.5, 1.5).
CASES: dict[str, tuple[Callable, tuple]] = {
    # --- activations
    "gelu": (lambda L, x: F(L).gelu(x), ((3, 5),)),
    "gelu_tanh": (lambda L, x: F(L).gelu(x, approximate="tanh"), ((3, 5),)),
    "silu": (lambda L, x: F(L).silu(x), ((3, 5),)),
    "mish": (lambda L, x: F(L).mish(x), ((3, 5),)),
    "elu": (lambda L, x: F(L).elu(x, 0.7), ((3, 5),)),
    "leaky_relu": (lambda L, x: F(L).leaky_relu(x, 0.2), ((3, 5),)),
    "softplus": (lambda L, x: F(L).softplus(x, 2.0, 1.0), ((3, 5),)),
    "logsigmoid": (lambda L, x: F(L).logsigmoid(x), ((3, 5),)),
    "hardtanh": (lambda L, x: F(L).hardtanh(x, -0.5, 0.5), ((3, 5),)),
    "hardswish": (lambda L, x: F(L).hardswish(x * 3), ((3, 5),)),
    "hardsigmoid": (lambda L, x: F(L).hardsigmoid(x * 3), ((3, 5),)),
    "gelu_0d": (lambda L, x: F(L).gelu(x), ((),)),
    # --- linear, convolution
    "linear": (lambda L, x, w, b: F(L).linear(x, w, b), ((2, 3, 4), (5, 4), (5,))),
    "linear_2d": (lambda L, x, w, b: F(L).linear(x, w, b), ((3, 4), (5, 4), (5,))),
    "linear_no_bias": (lambda L, x, w: F(L).linear(x, w), ((2, 3, 4), (5, 4))),
    "conv2d": (
        lambda L, x, w, b: F(L).conv2d(x, w, b, (2, 1), 1, (1, 2), 2),
        ((2, 4, 6, 5), (6, 2, 3, 2), (6,)),
    ),
    "conv2d_same": (
        lambda L, x, w, b: F(L).conv2d(x, w, b, padding="same"),
        ((2, 3, 5, 5), (4, 3, 2, 3), (4,)),
    ),
    "conv2d_unbatched": (lambda L, x, w: F(L).conv2d(x, w), ((3, 5, 5), (2, 3, 2, 2))),
    "conv1d": (
        lambda L, x, w, b: F(L).conv1d(x, w, b, 2, 1, 1, 2),
        ((2, 4, 7), (6, 2, 3), (6,)),
    ),
    "conv1d_same": (
        lambda L, x, w, b: F(L).conv1d(x, w, b, padding="same"),
        ((2, 3, 7), (4, 3, 2), (4,)),
    ),
    "conv_transpose2d": (
        lambda L, x, w, b: F(L).conv_transpose2d(x, w, b, 2, 1, 1, 2),
        ((2, 4, 4, 3), (4, 3, 3, 2), (6,)),
    ),
    # --- pooling
    "max_pool2d": (lambda L, x: F(L).max_pool2d(x, 3, 2, 1), ((2, 3, 6, 5),)),
    "max_pool2d_indices": (
        lambda L, x: F(L).max_pool2d(x, 2, 1, 0, 2, return_indices=True),
        ((2, 3, 6, 5),),
    ),
    "max_pool2d_unbatched": (lambda L, x: F(L).max_pool2d(x, 2, ceil_mode=True), ((3, 5, 5),)),
    "max_pool1d": (lambda L, x: F(L).max_pool1d(x, 2), ((2, 3, 7),)),
    "avg_pool2d": (
        lambda L, x: F(L).avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        ((2, 3, 6, 5),),
    ),
    "avg_pool2d_divisor": (
        lambda L, x: F(L).avg_pool2d(x, 2, ceil_mode=True, divisor_override=3),
        ((3, 5, 5),),
    ),
    "avg_pool1d": (lambda L, x: F(L).avg_pool1d(x, 3, 2, 1), ((2, 3, 7),)),
    "adaptive_avg_pool2d": (lambda L, x: F(L).adaptive_avg_pool2d(x, (3, 2)), ((2, 3, 7, 5),)),
    "adaptive_avg_pool2d_1": (lambda L, x: F(L).adaptive_avg_pool2d(x, 1), ((2, 3, 4, 5),)),
    "adaptive_max_pool2d": (
        lambda L, x: F(L).adaptive_max_pool2d(x, (3, 2), return_indices=True),
        ((2, 3, 7, 5),),
    ),
    # --- embedding, one_hot
    "embedding": (
        lambda L, w: F(L).embedding(_long(L, [[0, 2, 6], [2, 2, 1]]), w, padding_idx=2),
        ((7, 3),),
    ),
    "embedding_freq": (
        lambda L, w: F(L).embedding(_long(L, [0, 2, 2]), w, scale_grad_by_freq=True),
        ((7, 3),),
    ),
    "one_hot_times": (lambda L, x: F(L).one_hot(_long(L, [2, 0, 1]), 3) * x, ((3, 3),)),
    # --- normalization
    "layer_norm": (
        lambda L, x, w, b: F(L).layer_norm(x, (3, 2), w, b),
        ((4, 3, 2), (3, 2), (3, 2)),
    ),
    "layer_norm_plain": (lambda L, x: F(L).layer_norm(x, (5,)), ((2, 3, 5),)),
    "group_norm": (
        lambda L, x, w, b: F(L).group_norm(x, 3, w, b),
        ((4, 6, 3, 2), (6,), (6,)),
    ),
    "group_norm_plain": (lambda L, x: F(L).group_norm(x, 2), ((3, 4, 5),)),
    "batch_norm_train": (
        lambda L, x, w, b: F(L).batch_norm(
            x, L.zeros(6, dtype=x.dtype), L.ones(6, dtype=x.dtype), w, b, training=True
        ),
        ((4, 6, 3, 2), (6,), (6,)),
    ),
    "batch_norm_eval": (
        lambda L, x, w, b: F(L).batch_norm(
            x,
            L.linspace(-1, 1, 6, dtype=x.dtype),
            L.linspace(0.5, 2, 6, dtype=x.dtype),
            w,
            b,
            training=False,
        ),
        ((4, 6, 3, 2), (6,), (6,)),
    ),
    "batch_norm_no_stats": (
        lambda L, x: F(L).batch_norm(x, None, None, training=True),
        ((5, 3),),
    ),
    "normalize": (lambda L, x: F(L).normalize(x, dim=1), ((3, 4, 2),)),
    "cosine_similarity": (lambda L, x, y: F(L).cosine_similarity(x, y, 2), ((3, 4, 5), (3, 4, 5))),
    # --- losses
    "cross_entropy": (_ce(), ((4, 5),)),
    "cross_entropy_sum": (_ce(reduction="sum"), ((4, 5),)),
    "cross_entropy_weights": (
        lambda L, x: F(L).cross_entropy(x, _long(L, TARGET), _weights(L, x), ignore_index=3),
        ((4, 5),),
    ),
    "cross_entropy_4d": (
        lambda L, x: F(L).cross_entropy(x, _long(L, TARGET_4D), reduction="none"),
        ((2, 5, 3, 2),),
    ),
    "cross_entropy_probabilities": (
        lambda L, x, p: F(L).cross_entropy(x, p, label_smoothing=0.1),
        ((4, 5), ((4, 5), "unit")),
    ),
    "nll_loss": (
        lambda L, x: F(L).nll_loss(x, _long(L, TARGET), _weights(L, x)),
        ((4, 5),),
    ),
    "nll_loss_none": (lambda L, x: F(L).nll_loss(x, _long(L, TARGET), reduction="none"), ((4, 5),)),
    "nll_loss_4d": (lambda L, x: F(L).nll_loss(x, _long(L, TARGET_4D)), ((2, 5, 3, 2),)),
    "nll_loss_1d": (lambda L, x: F(L).nll_loss(x, _long(L, 3)), ((5,),)),
    "mse_loss": (lambda L, x, y: F(L).mse_loss(x, y), ((3, 4), (3, 4))),
    "mse_loss_sum": (lambda L, x, y: F(L).mse_loss(x, y, reduction="sum"), ((3, 4), (3, 4))),
    "mse_loss_none": (lambda L, x, y: F(L).mse_loss(x, y, reduction="none"), ((3, 4), (3, 4))),
    "binary_cross_entropy": (
        lambda L, x, y: F(L).binary_cross_entropy(x, y),
        (((3, 4), "unit"), ((3, 4), "unit")),
    ),
    "binary_cross_entropy_weight": (
        lambda L, x, y: F(L).binary_cross_entropy(
            x, y, L.linspace(0, 1, 4, dtype=x.dtype), reduction="sum"
        ),
        (((3, 4), "unit"), ((3, 4), "unit")),
    ),
    "bce_with_logits": (
        lambda L, x, y: F(L).binary_cross_entropy_with_logits(x, y, reduction="none"),
        ((3, 4), ((3, 4), "unit")),
    ),
    "bce_with_logits_weights": (
        lambda L, x, y: F(L).binary_cross_entropy_with_logits(
            x, y, L.linspace(0, 1, 4, dtype=x.dtype), pos_weight=L.linspace(1, 2, 4, dtype=x.dtype)
        ),
        ((3, 4), ((3, 4), "unit")),
    ),
    # --- attention (4-d inputs of one head size: PyTorch's fused kernel, which refuses)
    "sdpa_3d": (
        lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v, scale=0.3),
        ((3, 4, 8), (3, 5, 8), (3, 5, 8)),
    ),
    "sdpa_causal_5d": (
        lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v, is_causal=True),
        ((1, 2, 3, 4, 8), (1, 2, 3, 5, 8), (1, 2, 3, 5, 8)),
    ),
    "sdpa_mask": (
        lambda L, q, k, v: F(L).scaled_dot_product_attention(
            q, k, v, attn_mask=L.tensor(np.tri(4, 5, dtype=bool)[::-1].copy())
        ),
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 6)),
    ),
    "sdpa_fused": (
        lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v),
        ((2, 3, 4, 8), (2, 3, 5, 8), (2, 3, 5, 8)),
    ),
    "sdpa_gqa_fused": (
        lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v, enable_gqa=True),
        ((2, 4, 4, 8), (2, 2, 5, 8), (2, 2, 5, 8)),
    ),
    "multi_head_attention": (
        lambda L, q, k, w, b, ow, ob: F(L).multi_head_attention_forward(
            q, k, k, 8, 2, w, b, None, None, False, 0.0, ow, ob, training=False
        ),
        ((4, 2, 8), (5, 2, 8), (24, 8), (24,), (8, 8), (8,)),
    ),
    "multi_head_attention_fused": (
        lambda L, q, k, w, b, ow, ob: F(L).multi_head_attention_forward(
            q,
            k,
            k,
            8,
            2,
            w,
            b,
            None,
            None,
            False,
            0.0,
            ow,
            ob,
            training=False,
            need_weights=False,
        )[0],
        ((4, 2, 8), (5, 2, 8), (24, 8), (24,), (8, 8), (8,)),
    ),
    # --- padding, interpolation
    **{
        f"pad_{mode}": (
            lambda L, x, mode=mode: F(L).pad(x, (2, 1, 0, 3), mode=mode),
            ((2, 3, 5, 6),),
        )
        for mode in ("constant", "reflect", "replicate")
    },
    "pad_constant_crop": (lambda L, x: F(L).pad(x, (1, -1), value=2.0), ((3, 4),)),
    "pad_circular": (lambda L, x: F(L).pad(x, (2, 1), mode="circular"), ((2, 3, 5),)),
    "pad_reflect_3d": (lambda L, x: F(L).pad(x, (1,) * 6, mode="reflect"), ((1, 2, 3, 4, 3),)),
    **{
        f"interpolate_{mode}": (
            lambda L, x, mode=mode: F(L).interpolate(x, size=(7, 4), mode=mode),
            ((2, 3, 5, 6),),
        )
        for mode in ("nearest", "nearest-exact", "bilinear", "area")
    },
    "interpolate_aligned": (
        lambda L, x: F(L).interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=True),
        ((2, 3, 5, 6),),
    ),
    "interpolate_linear": (
        lambda L, x: F(L).interpolate(x, scale_factor=2.5, mode="linear"),
        ((2, 3, 5),),
    ),
}

# Nodes whose tangents torch derives only for some inputs' tangents: cases whose tangent
# placements are the first input alone (the others are constants for the loss).
FIRST_ONLY = {"cross_entropy_probabilities", "binary_cross_entropy", "binary_cross_entropy_weight"}


def _inputs(name: str, dtype: str, strided: bool) -> tuple[list, list]:
    """(primals, tangents) as numpy arrays, the same every run for a case."""
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    primals, tangents = [], []
    for spec in CASES[name][1]:
        shape, kind = spec if spec and isinstance(spec[0], tuple) else (spec, "normal")
        if kind == "unit":
            value = rng.uniform(0.05, 0.95, shape)
        else:
            value = rng.standard_normal(shape)
        primals.append(value.astype(dtype))
        tangents.append(rng.standard_normal(shape).astype(dtype))
    if strided:  # the same numbers, in every other column of a wider array
        primals = [_strided(a) for a in primals]
        tangents = [_strided(a) for a in tangents]
    return primals, tangents


def _strided(a: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return a
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
    wide[..., ::2] = a
    return wide


def _tensor(lib: Any, a: np.ndarray, strided: bool) -> Any:
    t = lib.tensor(a)
    return t[..., ::2] if strided and a.ndim else t


def _run(lib: Any, name: str, primals: list, tangents: list, strided: bool) -> Any:
    """The case's outputs as [(primal, tangent or None)], or the exception it raised."""
    fw = lib.autograd.forward_ad
    try:
        with fw.dual_level(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            args = [
                _tensor(lib, p, strided)
                if t is None
                else fw.make_dual(_tensor(lib, p, strided), _tensor(lib, t, strided))
                for p, t in zip(primals, tangents)
            ]
            out = CASES[name][0](lib, *args)
            outs = out if isinstance(out, (tuple, list)) else (out,)
            result = []
            for o in outs:
                primal, tangent = fw.unpack_dual(o)
                tangent = None if tangent is None else tangent.detach().numpy().copy()
                result.append((primal.detach().numpy().copy(), tangent))
            return result
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's
        return error


def _placements(name: str) -> list[str]:
    count = len(CASES[name][1])
    if name in FIRST_ONLY:
        return ["0"]
    return ["all"] + ([str(i) for i in range(count)] if count > 1 else [])


PARAMS = [
    pytest.param(name, where, dtype, strided, id=f"{name}-{where}-{dtype}{'-strided' * strided}")
    for name in CASES
    for where in _placements(name)
    for dtype in DTYPES
    for strided in (False, True)
    if not (strided and where != "all")
]


@pytest.mark.parametrize(("name", "where", "dtype", "strided"), PARAMS)
def test_tangents_match_pytorch(name: str, where: str, dtype: str, strided: bool) -> None:
    primals, tangents = _inputs(name, dtype, strided)
    if where != "all":
        tangents = [t if str(i) == where else None for i, t in enumerate(tangents)]
    want = _run(torch, name, primals, tangents, strided)
    got = _run(minigrad, name, primals, tangents, strided)
    rtol, atol = TOLERANCES[dtype]
    same_outcome(want, got, rtol=rtol, atol=atol)


# --- reverse over forward: the tangent formulas are recorded, so tangents differentiate ---
def _weighted_tangents(lib: Any, name: str, primals: list, tangents: list, grad: bool) -> Any:
    """sum(tangent_k * weight_k) over the outputs, and (with `grad`) its gradient with
    respect to the primals (zeros where the tangent does not depend on them)."""
    fw = lib.autograd.forward_ad
    with fw.dual_level(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        leaves = [lib.tensor(p, requires_grad=grad) for p in primals]
        args = [fw.make_dual(x, lib.tensor(t)) for x, t in zip(leaves, tangents)]
        out = CASES[name][0](lib, *args)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        total = lib.zeros((), dtype=lib.float64)
        for k, o in enumerate(outs):
            tangent = fw.unpack_dual(o).tangent
            if tangent is not None:
                weights = np.cos(np.arange(tangent.numel()) + k).reshape(tuple(tangent.shape))
                total = total + (tangent * lib.tensor(weights)).sum()
        if not grad:
            return total.item()
        if not total.requires_grad:
            return [np.zeros_like(p) for p in primals]
        grads = lib.autograd.grad(total, leaves, allow_unused=True)
        return [np.zeros_like(p) if g is None else g.numpy() for g, p in zip(grads, primals)]


# PyTorch's reverse-over-forward derivative of these disagrees with finite differences of its
# own tangents (its normalization jvp's backward); minigrad's is checked against those.
TORCH_SECOND_ORDER_OFF = {
    "layer_norm",
    "layer_norm_plain",
    "batch_norm_train",
    "batch_norm_no_stats",
}
SECOND_ORDER = [
    name
    for name in CASES
    if not name.startswith(("max_pool", "adaptive_max", "one_hot", "embedding"))
    and "fused" not in name
    and "gqa" not in name
]


def _attempt(fn: Callable, *args: Any) -> Any:
    try:
        return fn(*args)
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's
        return error


@pytest.mark.parametrize("name", SECOND_ORDER)
def test_reverse_over_forward(name: str) -> None:
    """minigrad's second derivatives against finite differences of PyTorch's tangents, and
    against PyTorch's own where it computes them (it raises for some: log_softmax's tangent
    trips its in-place check; minigrad then has to agree with the finite differences only)."""
    primals, tangents = _inputs(name, "float64", False)
    got = _attempt(_weighted_tangents, minigrad, name, primals, tangents, True)
    want = _attempt(_weighted_tangents, torch, name, primals, tangents, True)
    if isinstance(got, Exception):
        assert isinstance(want, Exception) and type(got) is type(want) and str(got) == str(want)
        return
    rng = np.random.default_rng(1)
    direction = [rng.standard_normal(p.shape) for p in primals]
    step = 1e-6
    ends = [
        _weighted_tangents(
            torch, name, [p + sign * step * d for p, d in zip(primals, direction)], tangents, False
        )
        for sign in (1, -1)
    ]
    finite = (ends[0] - ends[1]) / (2 * step)
    along = sum(float((g * d).sum()) for g, d in zip(got, direction))
    assert along == pytest.approx(finite, rel=1e-4, abs=1e-6)
    if not isinstance(want, Exception) and name not in TORCH_SECOND_ORDER_OFF:
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)


# --- forward over reverse: gradients recorded with create_graph carry tangents -------------
def _grad_tangent(lib: Any, fn: Callable, x: np.ndarray, t: np.ndarray) -> Any:
    fw = lib.autograd.forward_ad
    try:
        with fw.dual_level(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dual = fw.make_dual(lib.tensor(x, requires_grad=True), lib.tensor(t))
            (g,) = lib.autograd.grad(fn(lib, dual), dual, create_graph=True)
            primal, tangent = fw.unpack_dual(g)
            return primal.detach().numpy(), None if tangent is None else tangent.detach().numpy()
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's
        return error


GRADIENTS: dict[str, tuple[Callable, tuple]] = {
    "batch_norm_train": (
        lambda L, x: (
            F(L).batch_norm(x, None, None, L.linspace(1, 2, 3, dtype=x.dtype), training=True) ** 3
        ).sum(),
        (4, 3, 5, 5),
    ),
    "batch_norm_eval": (
        lambda L, x: (
            F(L).batch_norm(
                x, L.zeros(3, dtype=x.dtype), L.ones(3, dtype=x.dtype) * 2, training=False
            )
            ** 3
        ).sum(),
        (4, 3, 5, 5),
    ),
    "conv2d": (
        lambda L, x: (F(L).conv2d(x, L.ones(2, 3, 2, 2, dtype=x.dtype) * 0.3) ** 2).sum(),
        (2, 3, 5, 5),
    ),
    "conv_transpose2d": (
        lambda L, x: (
            F(L).conv_transpose2d(x, L.ones(3, 2, 2, 2, dtype=x.dtype), stride=2) ** 2
        ).sum(),
        (2, 3, 4, 4),
    ),
    "max_pool2d": (lambda L, x: (F(L).max_pool2d(x, 2) ** 2).sum(), (2, 3, 6, 6)),
    "adaptive_max_pool2d": (lambda L, x: (F(L).adaptive_max_pool2d(x, 3) ** 2).sum(), (2, 3, 7, 5)),
    "avg_pool2d": (lambda L, x: (F(L).avg_pool2d(x, 2) ** 2).sum(), (2, 3, 6, 6)),
    "pad_reflect": (lambda L, x: (F(L).pad(x, (1, 2), mode="reflect") ** 2).sum(), (2, 3, 5)),
    "interpolate": (
        lambda L, x: (F(L).interpolate(x, scale_factor=2, mode="bilinear") ** 2).sum(),
        (1, 2, 3, 4),
    ),
    "embedding": (
        lambda L, w: (
            F(L).embedding(_long(L, [0, 1, 1, 4]), w, scale_grad_by_freq=True) ** 2
        ).sum(),
        (5, 3),
    ),
    "mse_loss_none": (
        lambda L, x: F(L).mse_loss(x, L.zeros_like(x), reduction="none").sum(),
        (3, 4),
    ),
    "cross_entropy": (lambda L, x: F(L).cross_entropy(x, _long(L, TARGET)), (4, 5)),
    "nll_loss_4d": (
        lambda L, x: F(L).nll_loss(x.log_softmax(1), _long(L, TARGET_4D)),
        (2, 5, 3, 2),
    ),
    "binary_cross_entropy": (
        lambda L, x: F(L).binary_cross_entropy(x.sigmoid(), L.ones_like(x) * 0.3),
        (3, 4),
    ),
    "bce_with_logits": (
        lambda L, x: F(L).binary_cross_entropy_with_logits(x, L.ones_like(x) * 0.3),
        (3, 4),
    ),
    "layer_norm": (lambda L, x: (F(L).layer_norm(x, (5,)) ** 3).sum(), (3, 5)),
    "group_norm": (lambda L, x: (F(L).group_norm(x, 2) ** 3).sum(), (3, 4, 5)),
    "gelu": (lambda L, x: F(L).gelu(x).sum(), (3, 5)),
    "hardsigmoid": (lambda L, x: (F(L).hardsigmoid(x * 3) ** 2).sum(), (3, 5)),
}


@pytest.mark.parametrize("name", GRADIENTS)
def test_forward_over_reverse(name: str) -> None:
    fn, shape = GRADIENTS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    x, t = rng.standard_normal(shape), rng.standard_normal(shape)
    want = _grad_tangent(torch, fn, x, t)
    got = _grad_tangent(minigrad, fn, x, t)
    if isinstance(want, Exception):
        assert isinstance(got, Exception) and type(got) is type(want) and str(got) == str(want)
        return
    if isinstance(got, Exception):
        raise got
    np.testing.assert_allclose(got[0], want[0], rtol=1e-7, atol=1e-9)
    assert (got[1] is None) == (want[1] is None)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6, atol=1e-8)
