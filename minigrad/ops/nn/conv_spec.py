"""What a convolution's arguments mean, checked as PyTorch checks them (its messages, in its
order), and the one choice of PyTorch's backend that shows in the results: whether the padded
zeros are multiplied (`Spec.multiply_padding`)."""

from __future__ import annotations

from typing import Any, NamedTuple

from ...core import dtypes
from ...core.dtypes import LEGACY_NAMES, SCALAR_NAMES
from ...core.tensor import Tensor

Pair = tuple[int, int]


class Spec(NamedTuple):
    """A convolution's geometry, and whether the padded zeros are multiplied: PyTorch's own
    im2col path (always taken in float64) multiplies them, so a non-finite weight, or output
    gradient, makes NaN where it meets the padding; in float32 it mostly hands the work to
    oneDNN, whose direct kernels skip them (see `_direct`). The node's backward keeps the
    forward's choice, as PyTorch keeps its backend."""

    stride: Pair
    padding: Pair
    dilation: Pair
    groups: int
    multiply_padding: bool


def expand(value: Any, name: str, dims: int = 2) -> Pair:
    """One int for both spatial dims, or one per dim (PyTorch's expand_param_if_needed)."""
    if dims == 2 and type(value) is int:  # the usual case, without lists
        return value, value
    values = [int(v) for v in value] if isinstance(value, (tuple, list)) else [int(value)] * 2
    if len(values) == 1:
        values *= 2
    if len(values) != dims:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of {dims} values to match "
            f"the convolution dimensions, but got {name}={values}"
        )
    return values[0], values[1]


def _onednn(x_shape: tuple, w_shape: tuple, dtype: dtypes.dtype, groups: int) -> bool:
    """Whether PyTorch gives this float32 convolution to oneDNN (use_mkldnn in its
    Convolution.cpp, assuming more than one thread; transposed convolutions alike)."""
    n, c, h, w = x_shape
    return dtype is dtypes.float32 and (
        n > 1 or groups > 1 or (w_shape[2] > 3 and w_shape[3] > 3) or n * c * h * w > 20480
    )


def _direct(onednn: bool, w_shape: tuple, padding: Pair, groups: int) -> bool:
    """Whether oneDNN runs this convolution with a direct kernel, which skips the padding.
    Measured on oneDNN 3 (PyTorch 2.13, x86): it does for groups=1 and padding narrower than
    the kernel; other shapes go through its im2col/gemm kernels, which multiply the zeros. Its
    choice also depends on the CPU and on dilation and strides, so this is the common case,
    not a rule: README lists the difference."""
    return onednn and groups == 1 and padding[0] < w_shape[2] and padding[1] < w_shape[3]


def _check_shapes(xs: tuple, ws: tuple, bias: Tensor | None, spec: Spec, transposed: bool) -> None:
    """PyTorch's check_shape_forward (after the signs), then its empty-input rule; xs and ws
    are the input's and the weight's shapes."""
    groups = spec.groups
    if ws[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, "
            f"but got weight of size {list(ws)} instead"
        )
    if ws[0] % groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension "
            f"0, but got weight of size [{list(ws)}] instead"
        )
    channels, outputs = (ws[0], ws[1] * groups) if transposed else (ws[1] * groups, ws[0])
    if xs[1] != channels:
        head = "Given transposed=1" if transposed else f"Given groups={groups}"
        raise RuntimeError(
            f"{head}, weight of size {list(ws)}, expected input{list(xs)} to have "
            f"{channels} channels, but got {xs[1]} channels instead"
        )
    if bias is not None and (bias.ndim != 1 or bias.shape[0] != outputs):
        given = "Given transposed=1, weight" if transposed else "Given weight"
        raise RuntimeError(
            f"{given} of size {list(ws)}, expected bias to be 1-dimensional with {outputs} "
            f"elements, but got bias of size {list(bias.shape)} instead"
        )
    if not transposed:  # (any number of spatial dims: conv1d checks its own shapes here)
        padded = [n + 2 * p for n, p in zip(xs[2:], spec.padding)]
        span = [d * (k - 1) + 1 for k, d in zip(ws[2:], spec.dilation)]
        if any(p < k for p, k in zip(padded, span)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, span))}). Kernel size can't be greater than "
                "actual input size"
            )
    if xs[0] and xs[1] and 0 in xs:
        raise RuntimeError(
            f"Only zero batch or zero channel inputs are supported, but got input shape: {list(xs)}"
        )


def _check_types(x: Tensor, other: Tensor, what: str, onednn: bool) -> None:
    if x.dtype == other.dtype:
        return
    if onednn:
        kind = (LEGACY_NAMES[x.dtype.name], LEGACY_NAMES[other.dtype.name])
        raise RuntimeError(
            f"Input type (torch.{kind[0]}) and {what} type (torch.{kind[1]}) should be the same "
            f"or input should be a MKLDNN tensor and {what} is a dense tensor"
        )
    raise RuntimeError(
        f"expected scalar type {SCALAR_NAMES[x.dtype.name]} but found "
        f"{SCALAR_NAMES[other.dtype.name]}"
    )


def _check_kernel(ws: tuple) -> None:
    if min(ws[2:]) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {ws[2]} "
            f"kernel_width: {ws[3]}"
        )


def _check_transposed(x: Tensor, w: Tensor, spec: Spec, output_padding: Pair) -> None:
    """slow_conv_transpose2d's shape check (its oneDNN path words some of these its own way)."""
    _check_kernel(w.shape)
    (dh, dw), (sh, sw), (oh, ow) = spec.dilation, spec.stride, output_padding
    if dh <= 0 or dw <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dh}, "
            f"dilation_width: {dw}"
        )
    if not ((ow < sw or ow < dw) and (oh < sh or oh < dh)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {oh} output_padding_width: {ow} stride_height: {sh} "
            f"stride_width: {sw} dilation_height: {dh} dilation_width: {dw}"
        )
    out = transposed_size(x.shape, w.shape, spec, output_padding)
    if min(out[2:]) < 1:
        raise RuntimeError(
            f"Given input size per channel: ({x.shape[2]} x {x.shape[3]}). Calculated output "
            f"size per channel: ({out[2]} x {out[3]}). Output size is too small"
        )


def transposed_size(x_shape: tuple, w_shape: tuple, spec: Spec, output_padding: Pair) -> tuple:
    """conv_transpose2d's output shape: the input shape of the conv2d it is the gradient of."""
    hw = (
        (x_shape[2 + a] - 1) * spec.stride[a]
        - 2 * spec.padding[a]
        + spec.dilation[a] * (w_shape[2 + a] - 1)
        + output_padding[a]
        + 1
        for a in (0, 1)
    )
    return (x_shape[0], w_shape[1] * spec.groups, *hw)


def spec_for(
    x: Tensor,
    w: Tensor,
    bias: Tensor | None,
    args: tuple,
    groups: int,
    output_padding: Any = None,
) -> Spec:
    """The checked Spec of a batched convolution, PyTorch's checks in its order; `args` =
    (stride, padding, dilation); an `output_padding` makes it a transposed one."""
    if w.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    dims = w.ndim - 2
    stride = expand(args[0], "stride", dims)
    padding = expand(args[1], "padding", dims)
    dilation = expand(args[2], "dilation", dims)
    transposed = output_padding is not None
    out_pad = expand(output_padding if transposed else 0, "output_padding", dims)
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(out_pad) < 0:
        raise RuntimeError("negative output_padding is not supported")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) < 0:
        raise RuntimeError("dilation should be greater than zero")
    xs, ws = x._data.shape, w._data.shape
    onednn = _onednn(xs, ws, x.dtype, groups)
    spec = Spec(stride, padding, dilation, groups, not _direct(onednn, ws, padding, groups))
    _check_shapes(xs, ws, bias, spec, transposed)
    if onednn:
        _check_types(x, w, "weight", onednn)
        if transposed and bias is not None:
            _check_types(x, bias, "bias", onednn)
    if transposed:
        _check_transposed(x, w, spec, out_pad)
    elif min(dilation) == 0:
        words = "non-positive dilation is not supported"
        raise RuntimeError(
            words if onednn else f"dilation should be greater than zero, but got {list(dilation)}"
        )
    else:
        _check_kernel(ws)
    if not onednn:
        _check_types(x, w, "weight", onednn)
    return spec
