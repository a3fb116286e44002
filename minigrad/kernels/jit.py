"""The numba backend: same names and signatures as numpy_ref, compiled on first call.

Importing this module imports numba (about 0.3 s) and loads or compiles nothing yet; each
kernel compiles, or loads from the on-disk cache, the first time it sees a dtype. Arrays are
made C-contiguous here so that each kernel needs one compiled layout per dtype.
"""

from __future__ import annotations

import numba
import numpy as np

from . import cache, numpy_ref

CACHE_DIR = cache.configure()

from . import (  # noqa: E402  (after the cache dir)
    jit_conv,
    jit_elementwise,
    jit_loss,
    jit_norm,
    jit_pool,
    jit_rows,
)

_c = np.ascontiguousarray
pair, Size = numpy_ref.pair, numpy_ref.Size


def _bias(bias: np.ndarray | None, size: int, dtype: np.dtype) -> np.ndarray:
    return np.zeros(size, dtype) if bias is None else _c(bias, dtype)


def _channels_last(w: np.ndarray) -> np.ndarray:
    """(O,C/groups,kh,kw) -> (C/groups,kh,kw,O): the kernels' inner loop runs along the output
    channels."""
    return np.ascontiguousarray(w.transpose(1, 2, 3, 0))


def conv2d_forward(
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None,
    stride: Size,
    pad: Size,
    dilation: Size = 1,
    groups: int = 1,
    multiply_padding: bool = False,
) -> np.ndarray:
    stride, pad, dilation = pair(stride), pair(pad), pair(dilation)
    b = _bias(bias, w.shape[0], x.dtype)
    out = jit_conv.correlate(_c(x), _channels_last(w), b, stride, pad, dilation, groups)
    if multiply_padding and pad != (0, 0):
        jit_conv.poison_forward(out, _c(w), x.shape[2:], stride, pad, dilation)
    return out


def conv2d_input_grad(
    g: np.ndarray,
    w: np.ndarray,
    x_shape: tuple,
    stride: Size,
    pad: Size,
    dilation: Size = 1,
    groups: int = 1,
) -> np.ndarray:
    stride, pad, dilation = pair(stride), pair(pad), pair(dilation)
    o, cg, kh, kw = w.shape
    reach = (dilation[0] * (kh - 1), dilation[1] * (kw - 1))
    sizes = [g.shape[2 + a] + reach[a] - 2 * pad[a] for a in (0, 1)]  # of the loop below
    fits = sizes == list(x_shape[2:])  # not when g is cropped (conv_transpose2d's backward)
    if stride == (1, 1) and pad[0] <= reach[0] and pad[1] <= reach[1] and fits:
        # the faster forward loop: g correlated with the weights turned by 180 degrees, input
        # and output channels swapped within each group, padded by the kernel's reach - pad
        # (a padding the input gradient only skips: nothing of it is multiplied)
        swapped = w.reshape(groups, o // groups, cg, kh, kw).transpose(0, 2, 1, 3, 4)
        turned = swapped.reshape(groups * cg, o // groups, kh, kw)[:, :, ::-1, ::-1]
        inner = (reach[0] - pad[0], reach[1] - pad[1])
        zeros = _bias(None, groups * cg, g.dtype)
        return jit_conv.correlate(
            _c(g), _channels_last(turned), zeros, stride, inner, dilation, groups
        )
    wt = _channels_last(w)
    return jit_conv.conv2d_input_grad(_c(g), wt, tuple(x_shape), stride, pad, dilation, groups)


def conv2d_weight_grad(
    x: np.ndarray,
    g: np.ndarray,
    w_shape: tuple,
    stride: Size,
    pad: Size,
    dilation: Size = 1,
    groups: int = 1,
    multiply_padding: bool = False,
) -> np.ndarray:
    stride, pad, dilation = pair(stride), pair(pad), pair(dilation)
    parts = max(1, min(numba.get_num_threads(), x.shape[0]))
    x, g, w_shape = _c(x), _c(g), tuple(w_shape)
    gw = jit_conv.conv2d_weight_grad(x, g, w_shape, stride, pad, dilation, groups, parts)
    if multiply_padding and pad != (0, 0):
        jit_conv.poison_weight_grad(gw, g, x.shape[2:], stride, pad, dilation)
    return gw


def conv2d_bias_grad(g: np.ndarray) -> np.ndarray:
    return jit_conv.conv2d_bias_grad(_c(g))


def max_pool2d_forward(
    x: np.ndarray, k: Size, stride: Size, pad: Size, dilation: Size = 1, ceil_mode: bool = False
):
    k, stride, pad, dilation = pair(k), pair(stride), pair(pad), pair(dilation)
    size = numpy_ref.output_size
    out_hw = (
        size(x.shape[2], k[0], stride[0], pad[0], dilation[0], ceil_mode),
        size(x.shape[3], k[1], stride[1], pad[1], dilation[1], ceil_mode),
    )
    return jit_pool.max_pool2d_forward(_c(x), k, stride, pad, dilation, out_hw)


def max_pool2d_backward(g: np.ndarray, indices: np.ndarray, x_shape: tuple) -> np.ndarray:
    return jit_pool.max_pool2d_backward(_c(g), _c(indices), tuple(x_shape))


# relu's three paths by size. Below RELU_NUMPY_BELOW numpy's maximum wins (measured: 0.8
# against 1.0 us at 64 elements, 1.3 against 1.1 us at 1024): the call costs more than the loop
# saves. From RELU_THREADS_FROM on, threads pay for their launch (about 2 us).
RELU_NUMPY_BELOW = 512
RELU_THREADS_FROM = 32768


def relu_forward(x: np.ndarray) -> np.ndarray:
    if x.size < RELU_NUMPY_BELOW:
        return numpy_ref.relu_forward(x)
    big = x.size >= RELU_THREADS_FROM
    kernel = jit_elementwise.relu_forward_threads if big else jit_elementwise.relu_forward
    return kernel(_c(x).reshape(-1)).reshape(x.shape)


def relu_backward(g: np.ndarray, result: np.ndarray) -> np.ndarray:
    big = g.size >= RELU_THREADS_FROM
    kernel = jit_elementwise.relu_backward_threads if big else jit_elementwise.relu_backward
    return kernel(_c(g).reshape(-1), _c(result, g.dtype).reshape(-1)).reshape(g.shape)


def cross_entropy_forward(x: np.ndarray, target: np.ndarray, ignore_index: int):
    shifted = jit_loss.shift_by_row_max(_c(x))
    return jit_loss.log_softmax_and_pick(
        shifted, np.exp(shifted), _c(target, np.int64), ignore_index
    )


def nll_loss_backward(
    coef: np.ndarray, target: np.ndarray, ignore_index: int, n_classes: int
) -> np.ndarray:
    return jit_loss.nll_loss_backward(_c(coef), _c(target, np.int64), ignore_index, n_classes)


def log_softmax_backward(g: np.ndarray, logp: np.ndarray) -> np.ndarray:
    return jit_loss.minus_share_of_row_sum(_c(g), np.exp(_c(logp, g.dtype)))


def add_rows(out: np.ndarray, index: np.ndarray, rows: np.ndarray) -> None:
    if not out.flags.c_contiguous:  # (numba writes through a C-contiguous layout only)
        numpy_ref.add_rows(out, index, rows)
        return
    jit_rows.add_rows(out, _c(index, np.int64), _c(rows, out.dtype))


def softmax_forward(x: np.ndarray) -> np.ndarray:
    e = np.exp(jit_loss.shift_by_row_max(_c(x)))
    return jit_loss.divide_by_row_sum(e)


def softmax_backward(g: np.ndarray, out: np.ndarray) -> np.ndarray:
    return jit_loss.softmax_backward(_c(g), _c(out, g.dtype))


def row_stats(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    return jit_norm.row_stats(_c(x), float(eps))


def normalize_backward(
    gs: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray
) -> np.ndarray:
    dtype = gs.dtype
    return jit_norm.normalize_backward(_c(gs), _c(x, dtype), _c(mean, dtype), _c(rstd, dtype))
