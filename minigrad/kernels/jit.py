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

from . import jit_conv, jit_elementwise, jit_loss, jit_pool  # noqa: E402  (after the cache dir)

_c = np.ascontiguousarray


def _bias(bias: np.ndarray | None, size: int, dtype: np.dtype) -> np.ndarray:
    return np.zeros(size, dtype) if bias is None else _c(bias, dtype)


def _channels_last(w: np.ndarray) -> np.ndarray:
    """(O,C,kh,kw) -> (C,kh,kw,O): the kernels' inner loop runs along the output channels."""
    return np.ascontiguousarray(w.transpose(1, 2, 3, 0))


def conv2d_forward(
    x: np.ndarray, w: np.ndarray, bias: np.ndarray | None, stride: int, pad: int
) -> np.ndarray:
    wt = _channels_last(w)
    return jit_conv.correlate(_c(x), wt, _bias(bias, w.shape[0], x.dtype), stride, pad)


def conv2d_input_grad(
    g: np.ndarray, w: np.ndarray, x_shape: tuple, stride: int, pad: int
) -> np.ndarray:
    o, c, kh, kw = w.shape
    if stride == 1 and kh == kw and pad < kh:
        # the faster forward loop: g correlated with the weights turned by 180 degrees, input
        # and output channels swapped, padded by kh - 1 - pad
        turned = _channels_last(w.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1])
        return jit_conv.correlate(_c(g), turned, _bias(None, c, g.dtype), 1, kh - 1 - pad)
    return jit_conv.conv2d_input_grad(_c(g), _channels_last(w), tuple(x_shape), stride, pad)


def conv2d_weight_grad(
    x: np.ndarray, g: np.ndarray, w_shape: tuple, stride: int, pad: int
) -> np.ndarray:
    parts = max(1, min(numba.get_num_threads(), x.shape[0]))
    return jit_conv.conv2d_weight_grad(_c(x), _c(g), tuple(w_shape), stride, pad, parts)


def conv2d_bias_grad(g: np.ndarray) -> np.ndarray:
    return jit_conv.conv2d_bias_grad(_c(g))


def max_pool2d_forward(x: np.ndarray, k: int, stride: int, pad: int):
    return jit_pool.max_pool2d_forward(_c(x), k, stride, pad)


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
    return jit_loss.cross_entropy_forward(_c(x), _c(target, np.int64), ignore_index)


def nll_loss_backward(
    coef: np.ndarray, target: np.ndarray, ignore_index: int, n_classes: int
) -> np.ndarray:
    return jit_loss.nll_loss_backward(_c(coef), _c(target, np.int64), ignore_index, n_classes)


def log_softmax_backward(g: np.ndarray, logp: np.ndarray) -> np.ndarray:
    return jit_loss.log_softmax_backward(_c(g), _c(logp))
