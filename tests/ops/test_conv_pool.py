"""conv2d, conv_transpose2d and max_pool2d beyond test_nn_ops' values and gradients: where inf
and NaN land (PyTorch's arithmetic, not just its values), their errors, and the nn layers."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minigrad

from ._support import assert_same_outcome

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def F(L: ModuleType) -> Any:  # noqa: N802 - stands for torch.nn.functional
    return L.nn.functional


def _grads(L: ModuleType, fn, arrays: list, dtype: str, seed: np.ndarray | None = None) -> list:
    """fn(*leaves) and every leaf's gradient after backward(seed or ones)."""
    leaves = [L.tensor(a, dtype=getattr(L, dtype), requires_grad=True) for a in arrays]
    out = fn(*leaves)
    upstream = np.ones(tuple(out.shape)) if seed is None else seed
    out.backward(L.tensor(upstream, dtype=getattr(L, dtype)))
    return [out.detach(), *(leaf.grad for leaf in leaves)]


# --- where inf and NaN land ---------------------------------------------------------------
# PyTorch's own convolution (im2col) multiplies the padded zeros by the weights: a NaN or inf
# weight makes NaN wherever its tap reads padding, and a NaN or inf output gradient makes the
# weight gradient NaN at every tap that reads padding there. float64 always takes that path;
# float32 takes it for a single small image, and gives groups=1 convolutions with padding
# narrower than the kernel otherwise to oneDNN's direct kernels, which skip the padding.
# (input shape, weight shape, stride, padding, dilation, groups)
CONVS = [
    ((2, 3, 6, 6), (4, 3, 3, 3), 2, 1, 1, 1),
    ((1, 2, 5, 6), (3, 2, 2, 3), (1, 2), (1, 2), 1, 1),
    ((2, 4, 6, 5), (4, 2, 3, 3), 1, 1, (2, 1), 2),
    ((1, 3, 5, 5), (3, 1, 3, 3), 2, 2, 1, 3),
    ((3, 2, 4, 4), (2, 2, 1, 1), 1, 1, 1, 1),
]


def _nonfinite(shape: tuple, seed: int, where: tuple) -> np.ndarray:
    a = np.random.default_rng(seed).standard_normal(shape)
    a.flat[list(where)] = [NAN, INF, -INF][: len(where)]
    return a


def _cases(conv_cases: list) -> list:
    """Each case in float64, and in float32 but for the depthwise one: oneDNN's depthwise
    kernel puts NaN in some of the padded places only (README: a deliberate difference)."""
    depthwise = [case[5] > 1 and case[1][1] == 1 for case in conv_cases]
    return [
        pytest.param(case, dtype, id=f"{case}-{dtype}")
        for case, skip in zip(conv_cases, depthwise, strict=True)
        for dtype in ("float64", "float32")
        if dtype == "float64" or not skip
    ]


@pytest.mark.parametrize("case,dtype", _cases(CONVS))
def test_conv2d_puts_nan_where_torch_does(case: tuple, dtype: str) -> None:
    xs, ws, stride, padding, dilation, groups = case
    x = _nonfinite(xs, 1, (0,))
    w = _nonfinite(ws, 2, (0, ws[1] * ws[2] * ws[3] - 1))  # the first and last taps
    b = np.arange(ws[0], dtype=float)

    def fn(L: ModuleType) -> list:
        y = F(L).conv2d(L.tensor(x), L.tensor(w), None, stride, padding, dilation, groups)
        seed = _nonfinite(tuple(y.shape), 3, (0, y.numel() - 1))

        def conv(x_, w_, b_):
            return F(L).conv2d(x_, w_, b_, stride, padding, dilation, groups)

        finite_w = np.random.default_rng(4).standard_normal(ws)
        return [*_grads(L, conv, [x, w, b], dtype), *_grads(L, conv, [x, finite_w, b], dtype, seed)]

    assert_same_outcome(fn)


@pytest.mark.parametrize("case,dtype", _cases(CONVS))
def test_conv_transpose2d_puts_nan_where_torch_does(case: tuple, dtype: str) -> None:
    """Its backward is the convolution: the weight's and the input's inf and NaN meet the
    padding of the output gradient there."""
    xs, ws, stride, padding, dilation, groups = case
    ws = (xs[1], ws[0] // groups, ws[2], ws[3])
    x = _nonfinite(xs, 5, (0, int(np.prod(xs)) - 1))
    w = _nonfinite(ws, 6, (0,))

    def fn(L: ModuleType) -> list:
        def conv(x_, w_):
            return F(L).conv_transpose2d(x_, w_, None, stride, padding, 0, groups, dilation)

        return _grads(L, conv, [x, w], dtype)

    assert_same_outcome(fn)


@pytest.mark.parametrize("n", [1, 2])
def test_same_padding_of_an_even_kernel_is_real_zeros(n: int) -> None:
    """The extra row and column 'same' adds for an even kernel are real zeros (PyTorch pads
    the input), so a NaN weight meets them on every backend."""
    x = np.random.default_rng(0).standard_normal((n, 1, 4, 5))
    w = np.ones((2, 1, 2, 2))
    w[0, 0, 1, 1] = NAN

    def fn(L: ModuleType) -> list:
        return _grads(L, lambda a, b: F(L).conv2d(a, b, padding="same"), [x, w], "float32")

    assert_same_outcome(fn)


def test_max_pool2d_takes_the_last_nan_and_the_first_maximum() -> None:
    x = [[[[NAN, 1.0, NAN, 2.0], [3.0, NAN, -INF, -INF], [-INF, -INF, 1.0, 1.0], [2, 2, 1.0, 1.0]]]]

    def fn(L: ModuleType) -> list:
        t = L.tensor(x, requires_grad=True)
        out, idx = F(L).max_pool2d(t, 2, 1, return_indices=True)
        out.backward(L.ones(out.shape))
        return [out.detach(), idx, t.grad]

    assert_same_outcome(fn)


@pytest.mark.parametrize("padding", [0, 1])
def test_max_pool2d_of_minus_inf_points_at_the_first_real_position(padding: int) -> None:
    def fn(L: ModuleType) -> list:
        t = L.full((1, 1, 3, 4), -INF, requires_grad=True)
        out, idx = F(L).max_pool2d(t, 3, 2, padding, ceil_mode=True, return_indices=True)
        out.backward(L.ones(out.shape))
        return [out.detach(), idx, t.grad]

    assert_same_outcome(fn)


def test_max_pool2d_window_inside_the_padding() -> None:
    """Dilation lets a window miss the input entirely: -inf, at the position PyTorch names (it
    may lie past the row's end, as PyTorch's does)."""

    def fn(L: ModuleType) -> list:
        t = L.arange(16.0).reshape(2, 1, 8, 1)
        return list(F(L).max_pool2d(t, 2, (2, 1), (0, 1), 2, return_indices=True))

    assert_same_outcome(fn)


# --- errors -------------------------------------------------------------------------------
def r(L: ModuleType, *shape: int, dtype: str = "float32") -> Any:
    return L.ones(*shape, dtype=getattr(L, dtype))


ERRORS = {
    "conv2d_channels": lambda L: F(L).conv2d(r(L, 2, 3, 6, 6), r(L, 4, 2, 3, 3)),
    "conv2d_groups_channels": lambda L: F(L).conv2d(r(L, 2, 4, 6, 6), r(L, 4, 3, 3, 3), groups=2),
    "conv2d_groups_outputs": lambda L: F(L).conv2d(r(L, 2, 4, 6, 6), r(L, 3, 2, 3, 3), groups=2),
    "conv2d_groups_more_than_outputs": lambda L: F(L).conv2d(
        r(L, 1, 4, 4, 4), r(L, 1, 2, 3, 3), groups=2
    ),
    "conv2d_groups_zero": lambda L: F(L).conv2d(r(L, 2, 4, 6, 6), r(L, 4, 4, 3, 3), groups=0),
    "conv2d_weight_3d": lambda L: F(L).conv2d(r(L, 2, 4, 6, 6), r(L, 4, 4, 3)),
    "conv2d_input_5d": lambda L: F(L).conv2d(r(L, 1, 2, 4, 6, 6), r(L, 4, 4, 3, 3)),
    "conv2d_kernel_too_big": lambda L: F(L).conv2d(r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), dilation=2),
    "conv2d_stride_zero": lambda L: F(L).conv2d(r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), stride=0),
    "conv2d_padding_negative": lambda L: F(L).conv2d(
        r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), padding=-1
    ),
    "conv2d_dilation_zero": lambda L: F(L).conv2d(r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), dilation=0),
    "conv2d_dilation_negative": lambda L: F(L).conv2d(
        r(L, 1, 2, 4, 4), r(L, 2, 1, 3, 3), dilation=(1, -1)
    ),
    "conv2d_stride_3": lambda L: F(L).conv2d(r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), stride=(1, 1, 1)),
    "conv2d_bias_shape": lambda L: F(L).conv2d(r(L, 1, 1, 4, 4), r(L, 2, 1, 3, 3), r(L, 3)),
    "conv2d_bias_dtype": lambda L: F(L).conv2d(
        r(L, 1, 1, 4, 4), r(L, 2, 1, 3, 3), r(L, 2, dtype="float64")
    ),
    "conv2d_weight_dtype": lambda L: F(L).conv2d(
        r(L, 1, 1, 4, 4), r(L, 2, 1, 3, 3, dtype="float64")
    ),
    "conv2d_weight_dtype_onednn": lambda L: F(L).conv2d(
        r(L, 2, 1, 4, 4), r(L, 2, 1, 3, 3, dtype="float64")
    ),
    "conv2d_empty_image": lambda L: F(L).conv2d(r(L, 1, 1, 0, 4), r(L, 2, 1, 1, 1), padding=1),
    "conv2d_zero_kernel": lambda L: F(L).conv2d(r(L, 1, 1, 4, 4), r(L, 2, 1, 0, 3)),
    "conv2d_same_strided": lambda L: F(L).conv2d(
        r(L, 1, 1, 4, 4), r(L, 2, 1, 3, 3), padding="same", stride=2
    ),
    "conv2d_padding_string": lambda L: F(L).conv2d(
        r(L, 1, 1, 4, 4), r(L, 2, 1, 3, 3), padding="full"
    ),
    "conv_transpose2d_channels": lambda L: F(L).conv_transpose2d(
        r(L, 2, 3, 6, 6), r(L, 4, 2, 3, 3)
    ),
    "conv_transpose2d_groups": lambda L: F(L).conv_transpose2d(
        r(L, 2, 4, 6, 6), r(L, 4, 3, 3, 3), groups=3
    ),
    "conv_transpose2d_input_2d": lambda L: F(L).conv_transpose2d(r(L, 4, 6), r(L, 4, 4, 3, 3)),
    "conv_transpose2d_output_padding": lambda L: F(L).conv_transpose2d(
        r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), stride=2, output_padding=2
    ),
    "conv_transpose2d_output_padding_negative": lambda L: F(L).conv_transpose2d(
        r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), stride=2, output_padding=-1
    ),
    "conv_transpose2d_too_small": lambda L: F(L).conv_transpose2d(
        r(L, 1, 1, 2, 2), r(L, 1, 1, 3, 3), padding=3
    ),
    "conv_transpose2d_dilation_zero": lambda L: F(L).conv_transpose2d(
        r(L, 1, 1, 4, 4), r(L, 1, 1, 3, 3), dilation=0
    ),
    "conv_transpose2d_bias": lambda L: F(L).conv_transpose2d(
        r(L, 1, 2, 4, 4), r(L, 2, 2, 3, 3), r(L, 2), groups=2
    ),
    "conv_transpose2d_weight_dtype": lambda L: F(L).conv_transpose2d(
        r(L, 1, 1, 4, 4, dtype="float64"), r(L, 1, 2, 3, 3)
    ),
    "conv_transpose2d_padding_string": lambda L: F(L).conv_transpose2d(
        r(L, 1, 1, 4, 4), r(L, 1, 2, 3, 3), padding="same"
    ),
    "conv_transpose2d_empty_image": lambda L: F(L).conv_transpose2d(
        r(L, 1, 1, 0, 4), r(L, 1, 1, 3, 3)
    ),
    "max_pool2d_padding": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), 2, padding=2),
    "max_pool2d_padding_dilated": lambda L: F(L).max_pool2d(
        r(L, 1, 1, 9, 9), 2, padding=2, dilation=2
    ),
    "max_pool2d_padding_kernel": lambda L: F(L).max_pool2d(
        r(L, 1, 1, 9, 9), 3, padding=2, dilation=2
    ),
    "max_pool2d_padding_negative": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), 2, padding=-1),
    "max_pool2d_stride_zero": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), 2, stride=0),
    "max_pool2d_kernel_zero": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), 0),
    "max_pool2d_kernel_negative": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), -1),
    "max_pool2d_dilation_zero": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), 2, dilation=0),
    "max_pool2d_too_small": lambda L: F(L).max_pool2d(r(L, 2, 1, 2, 2), 3),
    "max_pool2d_empty_channels": lambda L: F(L).max_pool2d(r(L, 1, 0, 4, 4), 2),
    "max_pool2d_2d": lambda L: F(L).max_pool2d(r(L, 4, 4), 2),
    "max_pool2d_kernel_3": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), (2, 2, 2)),
    "max_pool2d_stride_3": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), 2, stride=(1, 1, 1)),
    "max_pool2d_bool": lambda L: F(L).max_pool2d(L.ones(1, 1, 4, 4, dtype=L.bool), 2),
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_matches_torch(name: str) -> None:
    assert_same_outcome(ERRORS[name])


# --- shapes PyTorch accepts -----------------------------------------------------------------
SHAPES = {
    "conv2d_empty_batch": lambda L: F(L).conv2d(r(L, 0, 3, 6, 6), r(L, 4, 3, 3, 3), r(L, 4)),
    "conv2d_stride_1_tuple": lambda L: F(L).conv2d(r(L, 1, 1, 6, 6), r(L, 1, 1, 3, 3), stride=(2,)),
    "conv2d_same_dilated_even": lambda L: F(L).conv2d(
        r(L, 1, 1, 6, 6), r(L, 2, 1, 2, 3), padding="same", dilation=(2, 3)
    ),
    "conv2d_valid_strided": lambda L: F(L).conv2d(
        r(L, 1, 1, 6, 6), r(L, 2, 1, 2, 2), padding="valid", stride=2
    ),
    "conv2d_int64": lambda L: F(L).conv2d(
        L.ones(1, 1, 4, 4, dtype=L.int64), L.ones(2, 1, 3, 3, dtype=L.int64)
    ),
    "conv_transpose2d_empty_batch": lambda L: F(L).conv_transpose2d(
        r(L, 0, 1, 4, 4), r(L, 1, 2, 3, 3)
    ),
    "max_pool2d_empty_batch": lambda L: F(L).max_pool2d(r(L, 0, 1, 4, 4), 2),
    "max_pool2d_stride_empty": lambda L: F(L).max_pool2d(r(L, 1, 1, 4, 4), 2, stride=()),
    "max_pool2d_int64": lambda L: F(L).max_pool2d(L.arange(16).reshape(1, 1, 4, 4), 3, 1, 1),
}


@pytest.mark.parametrize("name", SHAPES)
def test_accepted_like_torch(name: str) -> None:
    assert_same_outcome(SHAPES[name])


# --- the layers ---------------------------------------------------------------------------
def _same_weights(layer: Any, like: Any) -> None:
    for name, p in like.named_parameters():
        getattr(layer, name).data = minigrad.tensor(p.detach().numpy())


LAYERS = {
    "Conv2d_groups_dilation": (
        lambda nn: nn.Conv2d(4, 6, (3, 2), stride=(1, 2), padding=1, dilation=(2, 1), groups=2),
        (2, 4, 7, 8),
    ),
    "Conv2d_same_even": (lambda nn: nn.Conv2d(2, 3, 4, padding="same", bias=False), (1, 2, 5, 5)),
    "Conv2d_depthwise": (lambda nn: nn.Conv2d(3, 6, 3, padding=1, groups=3), (2, 3, 5, 5)),
    "ConvTranspose2d": (lambda nn: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), (2, 3, 4, 4)),
    "ConvTranspose2d_groups": (
        lambda nn: nn.ConvTranspose2d(4, 6, 2, 2, 0, 1, groups=2, dilation=2),
        (1, 4, 3, 3),
    ),
    "ConvTranspose2d_unbatched": (lambda nn: nn.ConvTranspose2d(2, 1, 3, bias=False), (2, 3, 3)),
    "MaxPool2d_ceil_dilation": (
        lambda nn: nn.MaxPool2d(3, 2, 1, dilation=2, ceil_mode=True),
        (1, 2, 9, 9),
    ),
    "MaxPool2d_indices": (lambda nn: nn.MaxPool2d((2, 3), return_indices=True), (1, 2, 6, 7)),
}


@pytest.mark.parametrize("name", LAYERS)
def test_layer_matches_torch(name: str) -> None:
    make, shape = LAYERS[name]
    ours, theirs = make(minigrad.nn), make(torch.nn)
    _same_weights(ours, theirs)
    x = np.random.default_rng(0).standard_normal(shape)

    def fn(L: ModuleType) -> list:
        layer = theirs if L is torch else ours
        t = L.tensor(x, dtype=L.float32, requires_grad=True)
        out = layer(t)
        first = out[0] if isinstance(out, tuple) else out
        first.backward(L.ones(first.shape))
        return [out, t.grad, *(p.grad for p in layer.parameters()), repr(layer)]

    assert_same_outcome(fn)


@pytest.mark.parametrize("output_size", [[8, 8], [1, 2, 9, 8], [7, 9], [10, 10], [9]])
def test_conv_transpose2d_output_size(output_size: list) -> None:
    """forward(output_size=...) picks the output_padding that reaches it, or says which sizes
    it can reach."""
    theirs = torch.nn.ConvTranspose2d(2, 1, 3, stride=2, padding=1)
    ours = minigrad.nn.ConvTranspose2d(2, 1, 3, stride=2, padding=1)
    _same_weights(ours, theirs)
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 4))

    def fn(L: ModuleType) -> Any:
        layer = theirs if L is torch else ours
        return layer(L.tensor(x, dtype=L.float32), output_size=output_size).detach()

    assert_same_outcome(fn)


LAYER_ERRORS = {
    "groups": lambda nn: nn.Conv2d(3, 4, 3, groups=0),
    "in_channels": lambda nn: nn.Conv2d(3, 4, 3, groups=2),
    "out_channels": lambda nn: nn.Conv2d(4, 3, 3, groups=2),
    "padding_string": lambda nn: nn.Conv2d(3, 4, 3, padding="full"),
    "same_strided": lambda nn: nn.Conv2d(3, 4, 3, padding="same", stride=(1, 2)),
    "padding_mode": lambda nn: nn.Conv2d(3, 4, 3, padding_mode="mirror"),
    "transpose_padding_mode": lambda nn: nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"),
}


@pytest.mark.parametrize("name", LAYER_ERRORS)
def test_layer_error_matches_torch(name: str) -> None:
    key = "one of" if name in ("padding_string", "padding_mode") else None  # a set's order varies
    assert_same_outcome(lambda L: LAYER_ERRORS[name](L.nn), key)
