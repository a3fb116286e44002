"""The numba backend: same names and signatures as numpy_ref, compiled on first call.

Importing this module imports numba (about 0.3 s) and loads or compiles nothing yet; each
kernel compiles, or loads from the on-disk cache, the first time it sees a dtype. Arrays are
made C-contiguous here so that each kernel needs one compiled layout per dtype.
"""

from __future__ import annotations

import numba
import numpy as np

from . import cache

CACHE_DIR = cache.configure()

from . import jit_conv, jit_loss, jit_pool  # noqa: E402  (after the cache directory is set)

_c = np.ascontiguousarray


def conv2d_forward(x: np.ndarray, w: np.ndarray, stride: int, pad: int) -> np.ndarray:
    return jit_conv.conv2d_forward(_c(x), _c(w), stride, pad)


def conv2d_input_grad(
    g: np.ndarray, w: np.ndarray, x_shape: tuple, stride: int, pad: int
) -> np.ndarray:
    return jit_conv.conv2d_input_grad(_c(g), _c(w), tuple(x_shape), stride, pad)


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


def cross_entropy_forward(x: np.ndarray, target: np.ndarray, ignore_index: int):
    return jit_loss.cross_entropy_forward(_c(x), _c(target, np.int64), ignore_index)


def nll_loss_backward(
    coef: np.ndarray, target: np.ndarray, ignore_index: int, n_classes: int
) -> np.ndarray:
    return jit_loss.nll_loss_backward(_c(coef), _c(target, np.int64), ignore_index, n_classes)


def log_softmax_backward(g: np.ndarray, logp: np.ndarray) -> np.ndarray:
    return jit_loss.log_softmax_backward(_c(g), _c(logp))
