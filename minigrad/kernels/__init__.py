"""Compute kernels behind the nn ops and relu, behind one switch.

Each kernel exists twice with the same signature: a plain-numpy reference (numpy_ref.py) and a
numba version (jit.py). `MINIGRAD_KERNELS=numba|numpy` picks one when minigrad is imported
(numba by default when it is installed); `use()` changes it at run time, `backend()` tells.
numba itself is imported on the first kernel call, never at `import minigrad`; dtypes numba
does not handle (float16) always take the numpy path.
"""

from __future__ import annotations

import importlib.util
import os
import warnings
from types import ModuleType

import numpy as np

from . import numpy_ref

BACKENDS = ("numba", "numpy")
_JIT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _default() -> str:
    name = os.environ.get("MINIGRAD_KERNELS", "").strip().lower()
    if name:
        _check(name)
        return name
    return "numba" if importlib.util.find_spec("numba") is not None else "numpy"


def _check(name: str) -> None:
    if name not in BACKENDS:
        raise ValueError(f"unknown kernel backend {name!r}; expected one of {BACKENDS}")


_backend = _default()
_module: ModuleType | None = None


def backend() -> str:
    """The active implementation: 'numba' or 'numpy'."""
    return _backend


def use(name: str) -> None:
    """Switch every kernel to 'numba' or 'numpy' (takes effect on the next call)."""
    global _backend, _module
    _check(name)
    _backend, _module = name, None


def _impl(dtype: np.dtype) -> ModuleType:
    global _backend, _module
    if _module is None:
        if _backend == "numba":
            try:
                from . import jit as module  # lazily: importing numba costs ~0.5 s
            except ImportError as err:  # a broken numba install must not break minigrad
                warnings.warn(f"numba kernels unavailable ({err}); using numpy", stacklevel=3)
                _backend, module = "numpy", numpy_ref
        else:
            module = numpy_ref
        _module = module
    return _module if dtype in _JIT_DTYPES else numpy_ref


Size = numpy_ref.Size
output_size = numpy_ref.output_size


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
    """(N,C,H,W) * (O,C/groups,kh,kw) + bias (O,) or None -> (N,O,Ho,Wo), like torch.conv2d.
    Padded zeros are skipped, or with multiply_padding multiplied as in PyTorch's im2col path
    (a non-finite weight then makes NaN where it meets the padding)."""
    impl = _impl(x.dtype)
    return impl.conv2d_forward(x, w, bias, stride, pad, dilation, groups, multiply_padding)


def conv2d_input_grad(
    g: np.ndarray,
    w: np.ndarray,
    x_shape: tuple,
    stride: Size,
    pad: Size,
    dilation: Size = 1,
    groups: int = 1,
) -> np.ndarray:
    """d conv2d_forward / d x, applied to the output gradient g."""
    return _impl(g.dtype).conv2d_input_grad(g, w, tuple(x_shape), stride, pad, dilation, groups)


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
    """d conv2d_forward / d w, applied to the output gradient g (padding as in the forward)."""
    impl = _impl(g.dtype)
    return impl.conv2d_weight_grad(
        x, g, tuple(w_shape), stride, pad, dilation, groups, multiply_padding
    )


def conv2d_bias_grad(g: np.ndarray) -> np.ndarray:
    """(N,O,Ho,Wo) output gradient -> (O,) bias gradient."""
    return _impl(g.dtype).conv2d_bias_grad(g)


def max_pool2d_forward(
    x: np.ndarray, k: Size, stride: Size, pad: Size, dilation: Size = 1, ceil_mode: bool = False
):
    """(values, flat indices into x.ravel()) of each window's maximum (PyTorch's pick: the
    first maximum, the last NaN)."""
    return _impl(x.dtype).max_pool2d_forward(x, k, stride, pad, dilation, ceil_mode)


def max_pool2d_backward(g: np.ndarray, indices: np.ndarray, x_shape: tuple) -> np.ndarray:
    """Output gradients added back at the flat indices max_pool2d_forward returned."""
    return _impl(g.dtype).max_pool2d_backward(g, indices, x_shape)


def relu_forward(x: np.ndarray) -> np.ndarray:
    """max(x, 0), NaN kept."""
    return _impl(x.dtype).relu_forward(x)


def relu_backward(g: np.ndarray, result: np.ndarray) -> np.ndarray:
    """relu's input gradient from its output gradient g and its saved result."""
    return _impl(g.dtype).relu_backward(g, result)


def cross_entropy_forward(x: np.ndarray, target: np.ndarray, ignore_index: int):
    """(log_softmax(x, 1), per-sample loss, per-sample weight, count, first bad row or -1) of
    (N,C) logits and (N,) class targets."""
    return _impl(x.dtype).cross_entropy_forward(x, target, ignore_index)


def nll_loss_backward(
    coef: np.ndarray, target: np.ndarray, ignore_index: int, n_classes: int
) -> np.ndarray:
    """(N,C) zeros holding coef[n] at [n, target[n]]."""
    return _impl(coef.dtype).nll_loss_backward(coef, target, ignore_index, n_classes)


def log_softmax_backward(g: np.ndarray, logp: np.ndarray) -> np.ndarray:
    """log_softmax's backward along dim 1 of (N,C) arrays."""
    return _impl(g.dtype).log_softmax_backward(g, logp)


def add_rows(out: np.ndarray, index: np.ndarray, rows: np.ndarray) -> None:
    """out[index[i]] += rows[i] for each i in order (a repeated index adds up), in place on a
    (R, D) `out`: indexing's and embedding's backward."""
    _impl(out.dtype).add_rows(out, index, rows)


def softmax_forward(x: np.ndarray) -> np.ndarray:
    """softmax along dim 1 of an (N,C) array (a contiguous result)."""
    return _impl(x.dtype).softmax_forward(x)


def softmax_backward(g: np.ndarray, out: np.ndarray) -> np.ndarray:
    """softmax's backward along dim 1 of (N,C) arrays, from its output `out`."""
    return _impl(g.dtype).softmax_backward(g, out)


def row_stats(x: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Each row's mean and 1 / sqrt(biased variance + eps) of an (R,N) array, accumulated in
    float64, as two (R,) arrays in x's dtype: layer_norm's and group_norm's statistics."""
    return _impl(x.dtype).row_stats(x, eps)


def normalize_backward(
    gs: np.ndarray, x: np.ndarray, mean: np.ndarray, rstd: np.ndarray
) -> np.ndarray:
    """dx of (R,N) rows normalised by (R,) `mean` and `rstd`, given gs = g * scale."""
    return _impl(gs.dtype).normalize_backward(gs, x, mean, rstd)
