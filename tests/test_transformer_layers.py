"""nn.MultiheadAttention, nn.TransformerEncoderLayer and nn.TransformerEncoder against PyTorch.

Each module is built in both libraries, PyTorch's initialised state_dict is loaded into
minigrad's (which proves the parameter names and shapes), then the same inputs (batched or
not, batch_first either way, bool and float masks, key padding, causal hints) must give the
same outputs and attention weights, and the same gradients of every parameter and input after
a backward through a randomly weighted sum. Errors and warnings are compared word for word.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import minigrad  # noqa: E402

pytestmark = [
    pytest.mark.filterwarnings("ignore:Support for mismatched"),
    pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors"),
]

LIBS = (torch, minigrad)
TOL = {"float32": {"rtol": 2e-5, "atol": 2e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}
E, H = 8, 2  # embed_dim, num_heads
L, S, N = 4, 5, 3  # target length, source length, batch


def make_pair(name: str, *args: Any, dtype: str = "float32", **kwargs: Any) -> tuple[Any, Any]:
    """torch's module with its own init, and minigrad's with those weights loaded (strict)."""
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kwargs, dtype=getattr(torch, dtype))
    ours = getattr(minigrad.nn, name)(*args, **kwargs, dtype=getattr(minigrad, dtype))
    return load(theirs, ours)


def load(theirs: Any, ours: Any) -> tuple[Any, Any]:
    """Load torch's state_dict into minigrad's module (strict): same keys, same shapes."""
    state = theirs.state_dict()
    assert [(k, tuple(v.shape)) for k, v in ours.state_dict().items()] == [
        (k, tuple(v.shape)) for k, v in state.items()
    ]
    ours.load_state_dict({k: minigrad.tensor(v.numpy()) for k, v in state.items()})
    return theirs, ours


def both(data: np.ndarray | None, lib: Any, grad: bool = False) -> Any:
    """`data` as a `lib` tensor (bool arrays stay bool); None stays None."""
    if data is None:
        return None
    return lib.tensor(data, requires_grad=grad and data.dtype != bool)


def randn(*shape: int, dtype: str = "float32", seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def numpy(t: Any) -> np.ndarray:
    return t.detach().numpy()


def close(ours: Any, theirs: Any, dtype: str = "float32") -> None:
    if theirs is None:
        assert ours is None
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(numpy(ours), numpy(theirs), **TOL[dtype], equal_nan=True)


def run_both(
    pair: tuple[Any, Any],
    inputs: dict[str, np.ndarray | None],
    dtype: str = "float32",
    **kwargs: Any,
) -> None:
    """Call each module on `inputs` (arrays, positional in order; names ending in _mask are
    passed by keyword), compare outputs, then gradients of every parameter and float input."""
    leaves, results = [], []
    for lib, module in zip(LIBS, pair, strict=True):
        args = {k: both(v, lib, grad=not k.endswith("mask")) for k, v in inputs.items()}
        positional = [v for k, v in args.items() if not k.endswith("mask")]
        masks = {k: v for k, v in args.items() if k.endswith("mask")}
        out = module(*positional, **masks, **kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        loss = sum(
            (o * lib.tensor(randn(*o.shape, dtype=dtype, seed=7 + i))).sum()
            for i, o in enumerate(outs)
            if o is not None
        )
        loss.backward()
        leaves.append([*positional, *module.parameters()])
        results.append(outs)
    theirs, ours = results
    for t, o in zip(theirs, ours, strict=True):
        close(o, t, dtype)
    for t, o in zip(leaves[0], leaves[1], strict=True):
        if t.requires_grad:
            close(o.grad, t.grad, dtype)


def same_error(call: Callable[[Any, Any], Any], pair: tuple[Any, Any]) -> None:
    """`call(lib, module)` raises the same exception type and message in both libraries."""
    caught = []
    for lib, module in zip(LIBS, pair, strict=True):
        with pytest.raises(Exception) as info:
            call(lib, module)
        caught.append((type(info.value).__name__, str(info.value)))
    assert caught[1] == caught[0]


def same_warnings(call: Callable[[Any], Any]) -> list[str]:
    seen = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            call(lib)
        seen.append([str(w.message) for w in record if w.category is UserWarning])
    assert seen[1] == seen[0]
    return seen[0]


# --- MultiheadAttention ------------------------------------------------------------------

CONFIGS = {
    "default": {},
    "no_bias": {"bias": False},
    "bias_kv": {"add_bias_kv": True},
    "zero_attn": {"add_zero_attn": True},
    "bias_kv_zero_attn": {"add_bias_kv": True, "add_zero_attn": True},
    "kdim_vdim": {"kdim": 3, "vdim": 6},
    "batch_first": {"batch_first": True},
}


@pytest.mark.parametrize("config", CONFIGS)
def test_mha_parameters_state_dict_and_repr(config: str) -> None:
    theirs, ours = make_pair("MultiheadAttention", E, H, **CONFIGS[config])
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert repr(ours) == repr(theirs)
    for name in ("embed_dim", "kdim", "vdim", "_qkv_same_embed_dim", "num_heads", "head_dim"):
        assert getattr(ours, name) == getattr(theirs, name)
    for name in ("dropout", "batch_first", "add_zero_attn"):
        assert getattr(ours, name) == getattr(theirs, name)
    for name in ("in_proj_weight", "in_proj_bias", "q_proj_weight", "bias_k", "bias_v"):
        assert (getattr(ours, name) is None) == (getattr(theirs, name) is None)


def test_mha_initialisation() -> None:
    """xavier_uniform_ on the packed projection, zero biases, xavier_normal_ bias_k/v."""
    minigrad.manual_seed(0)
    mha = minigrad.nn.MultiheadAttention(64, 4, add_bias_kv=True)
    bound = (6 / (64 + 3 * 64)) ** 0.5
    w = mha.in_proj_weight.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert not mha.in_proj_bias.detach().numpy().any()
    assert not mha.out_proj.bias.detach().numpy().any()
    out_bound = 1 / 64**0.5  # out_proj keeps Linear's own init
    assert np.abs(mha.out_proj.weight.detach().numpy()).max() <= out_bound
    assert 0.1 < mha.bias_k.detach().numpy().std() < 0.3  # xavier_normal_: std 2/sqrt(128)
    separate = minigrad.nn.MultiheadAttention(8, 2, kdim=3, vdim=5)
    assert np.abs(separate.k_proj_weight.detach().numpy()).max() <= (6 / 11) ** 0.5


def self_attention(batch_first: bool = False, batched: bool = True) -> dict[str, np.ndarray]:
    shape = ((N, L, E) if batch_first else (L, N, E)) if batched else (L, E)
    x = randn(*shape)
    return {"query": x, "key": x, "value": x}


def cross_attention(kdim: int = E, vdim: int = E, batched: bool = True) -> dict[str, np.ndarray]:
    lead = (N,) if batched else ()

    def seq(length: int, width: int, seed: int) -> np.ndarray:
        data = randn(*lead, length, width, seed=seed)
        return np.moveaxis(data, 0, 1) if batched else data

    return {"query": seq(L, E, 1), "key": seq(S, kdim, 2), "value": seq(S, vdim, 3)}


def bool_mask(*shape: int, seed: int = 4) -> np.ndarray:
    """A random bool mask that leaves every row at least one key (its first)."""
    mask = np.random.default_rng(seed).random(shape) < 0.4
    mask[..., 0] = False
    return mask


def float_mask(*shape: int, seed: int = 5) -> np.ndarray:
    return np.where(bool_mask(*shape, seed=seed), -np.inf, randn(*shape, seed=seed)).astype(
        "float32"
    )


MHA_CASES = {
    "self": ("default", self_attention(), {}),
    "self_no_weights": ("default", self_attention(), {"need_weights": False}),
    "self_per_head": ("default", self_attention(), {"average_attn_weights": False}),
    "batch_first": ("batch_first", self_attention(batch_first=True), {}),
    "batch_first_no_weights": (
        "batch_first",
        self_attention(batch_first=True),
        {"need_weights": False},
    ),
    "unbatched": ("default", self_attention(batched=False), {}),
    "unbatched_batch_first": ("batch_first", self_attention(batched=False), {}),
    "unbatched_per_head": (
        "default",
        self_attention(batched=False),
        {"average_attn_weights": False},
    ),
    "cross": ("default", cross_attention(), {}),
    "cross_no_weights": ("default", cross_attention(), {"need_weights": False}),
    "kdim_vdim": ("kdim_vdim", cross_attention(3, 6), {}),
    "kdim_vdim_no_weights": ("kdim_vdim", cross_attention(3, 6), {"need_weights": False}),
    "kdim_vdim_unbatched": ("kdim_vdim", cross_attention(3, 6, batched=False), {}),
    "no_bias": ("no_bias", cross_attention(), {}),
    "bias_kv": ("bias_kv", cross_attention(), {}),
    "zero_attn": ("zero_attn", cross_attention(), {"need_weights": False}),
    "bias_kv_zero_attn": ("bias_kv_zero_attn", cross_attention(), {}),
}


@pytest.mark.parametrize("case", MHA_CASES)
def test_mha_forward_and_backward(case: str) -> None:
    config, inputs, kwargs = MHA_CASES[case]
    run_both(make_pair("MultiheadAttention", E, H, **CONFIGS[config]), inputs, **kwargs)


MASKS = {
    "bool_2d": {"attn_mask": bool_mask(L, S)},
    "float_2d": {"attn_mask": float_mask(L, S)},
    "bool_3d": {"attn_mask": bool_mask(N * H, L, S)},
    "float_3d": {"attn_mask": float_mask(N * H, L, S)},
    "bool_padding": {"key_padding_mask": bool_mask(N, S)},
    "float_padding": {"key_padding_mask": float_mask(N, S)},
    "both_bool": {"attn_mask": bool_mask(L, S), "key_padding_mask": bool_mask(N, S, seed=9)},
    "both_float": {"attn_mask": float_mask(L, S), "key_padding_mask": float_mask(N, S, seed=9)},
}


@pytest.mark.parametrize("config", ["default", "bias_kv_zero_attn", "batch_first"])
@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("masks", MASKS)
def test_mha_masks(masks: str, need_weights: bool, config: str) -> None:
    inputs = {**cross_attention(), **MASKS[masks]}
    if config == "batch_first":
        inputs.update({k: np.moveaxis(inputs[k], 0, 1) for k in ("query", "key", "value")})
    pair = make_pair("MultiheadAttention", E, H, **CONFIGS[config])
    run_both(pair, inputs, need_weights=need_weights, average_attn_weights=False)


@pytest.mark.parametrize("need_weights", [True, False])
def test_mha_unbatched_masks(need_weights: bool) -> None:
    inputs = cross_attention(batched=False)
    pair = make_pair("MultiheadAttention", E, H)
    for masks in (
        {"attn_mask": bool_mask(H, L, S)},
        {"attn_mask": float_mask(L, S), "key_padding_mask": float_mask(S)},
        {"key_padding_mask": bool_mask(S)},
    ):
        run_both(pair, {**inputs, **masks}, need_weights=need_weights)


@pytest.mark.parametrize("need_weights", [True, False])
@pytest.mark.parametrize("padding", [False, True])
def test_mha_causal_hint(need_weights: bool, padding: bool) -> None:
    inputs = {**self_attention(), "attn_mask": np.triu(np.ones((L, L), bool), 1)}
    if padding:
        inputs["key_padding_mask"] = bool_mask(N, L)
    pair = make_pair("MultiheadAttention", E, H)
    run_both(pair, inputs, need_weights=need_weights, is_causal=True)


def test_mha_float64() -> None:
    pair = make_pair("MultiheadAttention", E, H, dtype="float64", add_bias_kv=True)
    inputs = {k: v.astype("float64") for k, v in cross_attention().items()}
    inputs["key_padding_mask"] = bool_mask(N, S)
    for need_weights in (True, False):
        run_both(pair, inputs, dtype="float64", need_weights=need_weights)


def test_mha_fully_masked_rows() -> None:
    """Weights wanted: the explicit softmax gives NaN; not wanted: attention gives zeros."""
    inputs = {**self_attention(), "key_padding_mask": np.zeros((N, L), bool)}
    inputs["key_padding_mask"][1] = True
    pair = make_pair("MultiheadAttention", E, H)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        outs = [
            [
                mha(
                    *(both(inputs[k], lib) for k in ("query", "key", "value")),
                    key_padding_mask=both(inputs["key_padding_mask"], lib),
                    need_weights=need,
                )
                for need in (True, False)
            ]
            for lib, mha in zip(LIBS, pair, strict=True)
        ]
    for t, o in zip(outs[0], outs[1], strict=True):
        close(o[0], t[0])
        close(o[1], t[1])
    assert np.isnan(numpy(outs[1][0][0])[:, 1]).all()
    assert not np.isnan(numpy(outs[1][1][0])).any()


def test_mha_dropout() -> None:
    """Dropout acts on the weights in training only; p=1 drops them all."""
    for need_weights in (True, False):
        pair = make_pair("MultiheadAttention", E, H, dropout=1.0)
        run_both(pair, self_attention(), need_weights=need_weights)
        for module in pair:
            module.eval()
        run_both(pair, self_attention(), need_weights=need_weights)
    mha = minigrad.nn.MultiheadAttention(E, H, dropout=0.5)
    x = minigrad.tensor(self_attention()["query"])
    train = mha(x, x, x)[0]
    assert not np.allclose(numpy(train), numpy(mha.eval()(x, x, x)[0]))


def test_mha_eval_without_grad() -> None:
    """PyTorch's fused inference path gives the same values."""
    pair = make_pair("MultiheadAttention", E, H, batch_first=True)
    inputs = {**self_attention(batch_first=True), "key_padding_mask": bool_mask(N, L)}
    outs = []
    for lib, module in zip(LIBS, pair, strict=True):
        module.eval()
        with lib.no_grad():
            args = [both(inputs[k], lib) for k in ("query", "key", "value")]
            mask = both(inputs["key_padding_mask"], lib)
            outs.append(module(*args, key_padding_mask=mask))
    close(outs[1][0], outs[0][0])
    close(outs[1][1], outs[0][1])


def call_mha(**arrays: Any) -> Callable[[Any, Any], Any]:
    def call(lib: Any, module: Any) -> Any:
        inputs = {**self_attention(), **arrays}
        args = {k: both(v, lib) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
        return module(args.pop("query"), args.pop("key"), args.pop("value"), **args)

    return call


def three(shape: tuple[int, ...]) -> dict[str, np.ndarray]:
    x = randn(*shape)
    return {"query": x, "key": x, "value": x}


MHA_ERRORS = {
    "query_4d": call_mha(**three((2, L, N, E))),
    "query_1d": call_mha(**three((E,))),
    "key_2d": call_mha(key=randn(L, E), value=randn(L, E)),
    "unbatched_key_3d": call_mha(query=randn(L, E)),
    "padding_1d": call_mha(key_padding_mask=np.zeros(L, bool)),
    "unbatched_padding_2d": call_mha(**three((L, E)), key_padding_mask=np.zeros((N, L), bool)),
    "attn_mask_1d": call_mha(attn_mask=np.zeros(L, bool)),
    "unbatched_attn_mask_1d": call_mha(**three((L, E)), attn_mask=np.zeros(L, bool)),
    "unbatched_attn_mask_3d": call_mha(**three((L, E)), attn_mask=np.zeros((3, L, L), bool)),
    "attn_mask_2d_shape": call_mha(attn_mask=np.zeros((3, L), bool)),
    "attn_mask_3d_shape": call_mha(attn_mask=np.zeros((3, L, L), bool)),
    "int_attn_mask": call_mha(attn_mask=np.zeros((L, L), np.int64)),
    "int_padding": call_mha(key_padding_mask=np.zeros((N, L), np.int64)),
    "padding_length": call_mha(key_padding_mask=np.zeros((N, L + 1), bool)),
    "padding_batch": call_mha(key_padding_mask=np.zeros((N + 1, L), bool)),
    "embed_dim": call_mha(**three((L, N, E - 2))),
    "key_value_shapes": call_mha(value=randn(S, N, E)),
    "key_width": call_mha(key=randn(S, N, E - 1), value=randn(S, N, E - 1)),
    "causal_without_mask": call_mha(is_causal=True),
}


@pytest.mark.parametrize("case", MHA_ERRORS)
def test_mha_errors(case: str) -> None:
    same_error(MHA_ERRORS[case], make_pair("MultiheadAttention", E, H))


def test_mha_separate_weights_errors() -> None:
    call = call_mha(key=randn(S, N, 3), value=randn(S + 1, N, 6))
    same_error(call, make_pair("MultiheadAttention", E, H, kdim=3, vdim=6))


@pytest.mark.parametrize(
    "args", [(0, 2), (8, 0), (-1, 2), (8, 3)], ids=["embed0", "heads0", "negative", "indivisible"]
)
def test_mha_constructor_errors(args: tuple[int, int]) -> None:
    same_error(lambda lib, _: lib.nn.MultiheadAttention(*args), (None, None))


def test_mha_mismatched_mask_types_warn() -> None:
    def call(lib: Any) -> None:
        torch.manual_seed(0)
        mha = lib.nn.MultiheadAttention(E, H)
        x = both(self_attention()["query"], lib)
        padding = both(bool_mask(N, L), lib)
        mha(x, x, x, key_padding_mask=padding, attn_mask=both(float_mask(L, L), lib))

    assert same_warnings(call) == [
        "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type "
        "for both instead."
    ]


def test_functional_multi_head_attention_forward() -> None:
    """F.multi_head_attention_forward with the module's weights gives the module's result."""
    theirs, ours = make_pair("MultiheadAttention", E, H, add_bias_kv=True)
    outs = []
    for lib, module in ((torch, theirs), (minigrad, ours)):
        q, k, v = (both(a, lib) for a in cross_attention().values())
        outs.append(
            lib.nn.functional.multi_head_attention_forward(
                q, k, v, E, H, module.in_proj_weight, module.in_proj_bias,
                module.bias_k, module.bias_v, False, 0.0, module.out_proj.weight,
                module.out_proj.bias, key_padding_mask=both(bool_mask(N, S), lib),
            )
        )  # fmt: skip
        close(outs[-1][0], module(q, k, v, key_padding_mask=both(bool_mask(N, S), lib))[0])
    close(outs[1][0], outs[0][0])
    close(outs[1][1], outs[0][1])


# --- TransformerEncoderLayer / TransformerEncoder --------------------------------------------

LAYER_CONFIGS = {
    "default": {"dropout": 0.0},
    "batch_first": {"dropout": 0.0, "batch_first": True},
    "norm_first": {"dropout": 0.0, "norm_first": True},
    "gelu": {"dropout": 0.0, "activation": "gelu"},
    "no_bias": {"dropout": 0.0, "bias": False},
    "eps": {"dropout": 0.0, "layer_norm_eps": 1e-3, "norm_first": True, "batch_first": True},
}
FF = 16  # dim_feedforward


def layer_pair(config: str = "default", **extra: Any) -> tuple[Any, Any]:
    return make_pair("TransformerEncoderLayer", E, H, FF, **LAYER_CONFIGS[config], **extra)


@pytest.mark.parametrize("config", LAYER_CONFIGS)
def test_encoder_layer_state_dict_and_repr(config: str) -> None:
    theirs, ours = layer_pair(config)
    assert repr(ours) == repr(theirs)
    assert ours.norm_first == theirs.norm_first
    assert ours.activation_relu_or_gelu == theirs.activation_relu_or_gelu


def src(batch_first: bool = False, batched: bool = True) -> dict[str, np.ndarray]:
    return {"src": self_attention(batch_first, batched)["query"]}


LAYER_CASES = {
    "plain": ("default", src(), {}),
    "unbatched": ("default", src(batched=False), {}),
    "batch_first": ("batch_first", src(True), {}),
    "batch_first_unbatched": ("batch_first", src(True, batched=False), {}),
    "norm_first": ("norm_first", src(), {"src_mask": bool_mask(L, L)}),
    "gelu": ("gelu", src(), {"src_mask": float_mask(L, L)}),
    "no_bias": ("no_bias", src(), {"src_key_padding_mask": bool_mask(N, L)}),
    "eps": ("eps", src(True), {"src_key_padding_mask": float_mask(N, L)}),
    "both_masks": (
        "default",
        src(),
        {"src_mask": bool_mask(L, L), "src_key_padding_mask": bool_mask(N, L, seed=3)},
    ),
    "3d_mask": ("batch_first", src(True), {"src_mask": float_mask(N * H, L, L)}),
}


@pytest.mark.parametrize("case", LAYER_CASES)
def test_encoder_layer_forward_and_backward(case: str) -> None:
    config, inputs, masks = LAYER_CASES[case]
    run_both(layer_pair(config), {**inputs, **masks})


@pytest.mark.parametrize("padding", [False, True])
def test_encoder_layer_causal(padding: bool) -> None:
    masks = {"src_mask": np.triu(np.full((L, L), -np.inf, "float32"), 1)}
    if padding:
        masks["src_key_padding_mask"] = bool_mask(N, L)
    run_both(layer_pair(), {**src(), **masks}, is_causal=True)


def test_encoder_layer_activations() -> None:
    """A callable or a module as the activation; a module is registered (and in repr)."""
    for make in (lambda lib: lib.nn.GELU(), lambda lib: lib.nn.functional.silu):
        torch.manual_seed(0)
        pair = [lib.nn.TransformerEncoderLayer(E, H, FF, 0.0, make(lib)) for lib in LIBS]
        assert repr(pair[1]) == repr(pair[0])
        run_both(load(*pair), src())
    same_error(lambda lib, _: lib.nn.TransformerEncoderLayer(E, H, activation="tanh"), (None, None))


def test_encoder_layer_dropout_in_training_only() -> None:
    theirs, ours = make_pair("TransformerEncoderLayer", E, H, FF)  # dropout 0.1
    x = minigrad.tensor(src()["src"])
    assert not np.allclose(numpy(ours(x)), numpy(ours(x)))
    theirs.eval()
    ours.eval()
    run_both((theirs, ours), src())


def encoder_pair(
    config: str = "default", layers: int = 2, norm: bool = True, **kwargs: Any
) -> tuple[Any, Any]:
    torch.manual_seed(0)
    pair = []
    for lib in LIBS:
        layer = lib.nn.TransformerEncoderLayer(E, H, FF, **LAYER_CONFIGS[config])
        final = lib.nn.LayerNorm(E) if norm else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pair.append(lib.nn.TransformerEncoder(layer, layers, norm=final, **kwargs))
    return load(*pair)


def test_encoder_copies_the_layer() -> None:
    ours = encoder_pair()[1]
    a, b = ours.layers[0].linear1.weight, ours.layers[1].linear1.weight
    assert a is not b
    assert ours.num_layers == 2 and ours.enable_nested_tensor and not ours.use_nested_tensor
    assert repr(encoder_pair(layers=1)[1]) == repr(encoder_pair(layers=1)[0])


@pytest.mark.parametrize(
    "config", ["default", "batch_first", "norm_first", "no_bias", "eps", "gelu"]
)
def test_encoder_nested_tensor_warning(config: str) -> None:
    def call(lib: Any) -> None:
        layer = lib.nn.TransformerEncoderLayer(E, H, FF, **LAYER_CONFIGS[config])
        encoder = lib.nn.TransformerEncoder(layer, 1)
        assert encoder.use_nested_tensor == (config in ("batch_first",))

    same_warnings(call)
    odd = lambda lib: lib.nn.TransformerEncoder(  # noqa: E731
        lib.nn.TransformerEncoderLayer(9, 3, FF, batch_first=True), 1
    )
    assert same_warnings(odd)[0].endswith("encoder_layer.self_attn.num_heads is odd")
    same_warnings(lambda lib: lib.nn.TransformerEncoder(lib.nn.Linear(2, 2), 1))


ENCODER_CASES = {
    "plain": ("default", src(), {}),
    "unbatched": ("default", src(batched=False), {}),
    "batch_first": ("batch_first", src(True), {"src_key_padding_mask": bool_mask(N, L)}),
    "causal": ("norm_first", src(), {"mask": np.triu(np.full((L, L), -np.inf, "float32"), 1)}),
    "bool_causal": ("gelu", src(), {"mask": np.triu(np.ones((L, L), bool), 1)}),
    "both": (
        "batch_first",
        src(True),
        {"mask": float_mask(L, L), "src_key_padding_mask": float_mask(N, L, seed=2)},
    ),
}


@pytest.mark.parametrize("case", ENCODER_CASES)
def test_encoder_forward_and_backward(case: str) -> None:
    config, inputs, masks = ENCODER_CASES[case]
    run_both(encoder_pair(config), {**inputs, **masks})


@pytest.mark.parametrize("left_aligned", [True, False])
@pytest.mark.parametrize("config", ["batch_first", "default"])
def test_encoder_inference_pads_with_zeros(config: str, left_aligned: bool) -> None:
    """In eval mode without autograd, PyTorch runs a batch_first encoder on nested tensors:
    padded positions come back as zeros when the padding is left-aligned (a sequence all
    padding too); frozen parameters count as no autograd."""
    padding = np.zeros((N, L), bool)
    padding[0, 2:] = padding[2, 1:] = True
    if left_aligned:
        padding[2, 0] = True
    else:  # (and no sequence all padding: PyTorch's fused layer gives it NaN, minigrad 0)
        padding[1, 0] = True
    data = src(config == "batch_first")["src"]
    outs = []
    for lib, module in zip(LIBS, encoder_pair(config, norm=False), strict=True):
        module.eval()
        with lib.no_grad():
            outs.append(module(both(data, lib), src_key_padding_mask=both(padding, lib)))
        module.requires_grad_(False)
        outs.append(module(both(data, lib), src_key_padding_mask=both(padding, lib)))
    for theirs, ours in zip(outs[:2], outs[2:], strict=True):
        close(ours, theirs)
        np.testing.assert_array_equal(np.signbit(numpy(ours)), np.signbit(numpy(theirs)))


def test_encoder_mismatched_mask_types_warn() -> None:
    def call(lib: Any) -> None:
        layer = lib.nn.TransformerEncoderLayer(E, H, FF, dropout=0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            encoder = lib.nn.TransformerEncoder(layer, 1)
        x = both(src()["src"], lib)
        encoder(
            x, mask=both(float_mask(L, L), lib), src_key_padding_mask=both(bool_mask(N, L), lib)
        )
        layer(
            x, src_mask=both(bool_mask(L, L), lib), src_key_padding_mask=both(float_mask(N, L), lib)
        )

    assert len(same_warnings(call)) == 2


def test_encoder_layer_errors() -> None:
    pair = layer_pair()
    same_error(lambda lib, m: m(both(src()["src"], lib), is_causal=True), pair)
    same_error(
        lambda lib, m: m(both(src()["src"], lib), src_mask=both(np.zeros((L, L), np.int32), lib)),
        pair,
    )
    same_error(
        lambda lib, m: m(
            both(src()["src"], lib), src_key_padding_mask=both(bool_mask(N, L + 1), lib)
        ),
        pair,
    )


def test_deepcopy_keeps_the_weights() -> None:
    layer = minigrad.nn.TransformerEncoderLayer(E, H, FF)
    twin = copy.deepcopy(layer)
    np.testing.assert_array_equal(
        numpy(twin.self_attn.in_proj_weight), numpy(layer.self_attn.in_proj_weight)
    )


# --- TransformerDecoderLayer / TransformerDecoder / Transformer ------------------------------


def decoder_inputs(batch_first: bool = False, batched: bool = True) -> dict[str, np.ndarray]:
    tgt, memory = cross_attention(batched=batched)["query"], cross_attention(batched=batched)["key"]
    if batch_first and batched:
        tgt, memory = np.moveaxis(tgt, 0, 1), np.moveaxis(memory, 0, 1)
    return {"tgt": tgt, "memory": memory}


CAUSAL = np.triu(np.full((L, L), -np.inf, "float32"), 1)
DECODER_CASES = {
    "plain": ("default", decoder_inputs(), {}),
    "unbatched": ("default", decoder_inputs(batched=False), {"tgt_mask": CAUSAL}),
    "batch_first": ("batch_first", decoder_inputs(True), {"tgt_mask": CAUSAL}),
    "norm_first_masks": (
        "norm_first",
        decoder_inputs(),
        {
            "tgt_mask": CAUSAL,
            "memory_mask": float_mask(L, S),
            "tgt_key_padding_mask": float_mask(N, L, seed=1),
            "memory_key_padding_mask": float_mask(N, S, seed=2),
        },
    ),
    "bool_masks": (
        "gelu",
        decoder_inputs(),
        {"memory_mask": bool_mask(L, S), "memory_key_padding_mask": bool_mask(N, S, seed=2)},
    ),
    "no_bias": ("no_bias", decoder_inputs(), {"tgt_key_padding_mask": bool_mask(N, L)}),
}


@pytest.mark.parametrize("case", DECODER_CASES)
def test_decoder_layer_forward_and_backward(case: str) -> None:
    config, inputs, masks = DECODER_CASES[case]
    pair = make_pair("TransformerDecoderLayer", E, H, FF, **LAYER_CONFIGS[config])
    assert repr(pair[1]) == repr(pair[0])
    run_both(pair, {**inputs, **masks})


@pytest.mark.parametrize("case", ["plain", "batch_first", "norm_first_masks"])
def test_decoder_forward_and_backward(case: str) -> None:
    config, inputs, masks = DECODER_CASES[case]
    torch.manual_seed(0)
    pair = []
    for lib in LIBS:
        layer = lib.nn.TransformerDecoderLayer(E, H, FF, **LAYER_CONFIGS[config])
        pair.append(lib.nn.TransformerDecoder(layer, 2, norm=lib.nn.LayerNorm(E)))
    run_both(load(*pair), {**inputs, **masks})


def transformer_pair(**kwargs: Any) -> tuple[Any, Any]:
    torch.manual_seed(0)
    config = {"nhead": H, "num_encoder_layers": 2, "num_decoder_layers": 1, **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pair = [lib.nn.Transformer(E, dim_feedforward=FF, dropout=0.0, **config) for lib in LIBS]
    return load(*pair)


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_forward_and_backward(batch_first: bool) -> None:
    inputs = {
        "src": decoder_inputs(batch_first)["memory"],
        "tgt": decoder_inputs(batch_first)["tgt"],
    }
    masks = {
        "tgt_mask": CAUSAL,
        "src_key_padding_mask": bool_mask(N, S),
        "memory_key_padding_mask": bool_mask(N, S),
    }
    run_both(transformer_pair(batch_first=batch_first), {**inputs, **masks})
    unbatched = {"src": randn(S, E), "tgt": randn(L, E), "tgt_mask": CAUSAL}
    run_both(transformer_pair(batch_first=batch_first), unbatched)


def test_transformer_init_repr_and_mask() -> None:
    theirs, ours = transformer_pair(num_encoder_layers=1)
    assert repr(ours) == repr(theirs)
    assert (ours.d_model, ours.nhead, ours.batch_first) == (E, H, False)
    bound = (6 / (E + FF)) ** 0.5
    fresh = minigrad.nn.Transformer(E, H, 1, 1, FF, batch_first=True)
    assert np.abs(numpy(fresh.encoder.layers[0].linear1.weight)).max() <= bound
    for size, dtype in ((1, None), (4, "float64")):
        masks = [
            lib.nn.Transformer.generate_square_subsequent_mask(
                size, dtype=None if dtype is None else getattr(lib, dtype)
            )
            for lib in LIBS
        ]
        close(masks[1], masks[0], dtype or "float32")
        assert str(masks[1].dtype).split(".")[1] == str(masks[0].dtype).split(".")[1]


def test_transformer_warning_and_errors() -> None:
    same_warnings(lambda lib: lib.nn.Transformer(E, H, 1, 1, FF))
    pair = transformer_pair()
    batch = {"src": randn(S, N, E), "tgt": randn(L, N + 1, E)}
    width = {"src": randn(S, N, E), "tgt": randn(L, N, E + 1)}
    for inputs in (batch, width):
        same_error(lambda lib, m: m(*(both(v, lib) for v in inputs.values())), pair)  # noqa: B023


def separate_call(lib: Any, m: Any, **kw: Any) -> Any:
    """F.multi_head_attention_forward with `m`'s separate q/k/v weights, on cross attention
    of key width 3 and value width 6."""
    q, k, v = (both(a, lib) for a in cross_attention(3, 6).values())
    weights = {f"{c}_proj_weight": getattr(m, f"{c}_proj_weight") for c in "qkv"}
    return lib.nn.functional.multi_head_attention_forward(
        q, k, v, E, H, None, m.in_proj_bias, None, None, False, 0.0, m.out_proj.weight,
        m.out_proj.bias, use_separate_proj_weight=True, **{**weights, **kw},
    )  # fmt: skip


STATIC = {
    "static_k": randn(N * H, S, E // H, seed=11),
    "static_v": randn(N * H, S, E // H, seed=12),
}


def test_functional_static_keys_and_separate_weights() -> None:
    """static_k/static_v replace the projected keys and values (per head); separate q/k/v
    weights project inputs of other widths."""
    pair = make_pair("MultiheadAttention", E, H, kdim=3, vdim=6)
    results = []
    for lib, m in zip(LIBS, pair, strict=True):
        statics = {name: both(a, lib, grad=True) for name, a in STATIC.items()}
        out, weights = separate_call(lib, m, **statics)
        (out * lib.tensor(randn(*out.shape, seed=13))).sum().backward()
        results.append([out, weights, *(t.grad for t in statics.values()), m.q_proj_weight.grad])
    for t, o in zip(*results, strict=True):
        close(o, t)


@pytest.mark.parametrize(
    "kw",
    [
        {"static_k": STATIC["static_k"][:, :, :3]},
        {"static_v": STATIC["static_v"][:3]},
        {"q_proj_weight": None},
        {"v_proj_weight": None},
    ],
    ids=["static_k_width", "static_v_rows", "no_q_weight", "no_v_weight"],
)
def test_functional_separate_weights_errors(kw: dict[str, Any]) -> None:
    def call(lib: Any, m: Any) -> Any:
        args = {k: v if v is None else both(v.copy(), lib) for k, v in kw.items()}
        return separate_call(lib, m, **args)

    same_error(call, make_pair("MultiheadAttention", E, H, kdim=3, vdim=6))
