"""nn.init's two fills whose random numbers are reshaped before they land: trunc_normal_
(a normal cut to [a, b], by rejection, so the distribution is exact) and orthogonal_ (the Q
of a Gaussian matrix's QR). Both write in place without grad and bump the version, as
nn.init does; the random stream is minigrad's own (values differ from PyTorch's)."""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import creation
from ..core.generator import Generator, generator_of
from ..core.tensor import Tensor

__all__ = ["orthogonal_", "trunc_normal_"]

_NORMAL_SHARE = 0.3  # below this share of N(mean, std) inside [a, b], propose uniformly


def _cdf(z: float) -> float:
    return (1.0 + math.erf(z / math.sqrt(2.0))) / 2.0


def _truncated(
    rng: np.random.Generator, n: int, mean: float, std: float, a: float, b: float, share: float
) -> np.ndarray:
    """n exact draws of N(mean, std) conditioned on [a, b]: proposals from the normal itself
    when it mostly lands inside, else uniform on [a, b], kept with the normal's density
    relative to its highest point in [a, b]."""
    out = np.empty(n)
    todo = np.arange(n)
    peak = min(max(mean, a), b)
    while todo.size:
        if share > _NORMAL_SHARE:
            x = rng.normal(mean, std, todo.size)
            keep = (x >= a) & (x <= b)
        else:
            x = rng.uniform(a, b, todo.size)
            log_ratio = -0.5 * (((x - mean) / std) ** 2 - ((peak - mean) / std) ** 2)
            keep = np.log(rng.random(todo.size)) <= log_ratio
        out[todo[keep]] = x[keep]
        todo = todo[~keep]
    return out


def _write(tensor: Tensor, values: np.ndarray) -> Tensor:
    tensor._data[...] = values.reshape(tensor.shape)
    tensor._bump()
    return tensor


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:
    """Fill with N(mean, std) restricted to [a, b] (ViT and GPT-style layers' init)."""
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    share = _cdf((b - mean) / std) - _cdf((a - mean) / std)
    creation.random_dtype(tensor.dtype, "normal_kernel_cpu")
    rng = generator_of(generator, "normal_" if share > _NORMAL_SHARE else "uniform_")
    if share <= _NORMAL_SHARE and a > b:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}"
        )
    if tensor.numel() == 0:
        return tensor
    # the bounds as the tensor's dtype holds them, so that no value rounds past them
    lo, hi = (float(np.asarray(v, tensor._data.dtype)) for v in (a, b))
    values = _truncated(rng, tensor.numel(), mean, std, lo, hi, share)
    return _write(tensor, np.clip(values.astype(tensor._data.dtype), lo, hi))


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times gain, the tensor seen as (size(0), rest):
    orthonormal rows or columns, whichever are fewer (Saxe et al., 2013)."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    creation.random_dtype(tensor.dtype, "normal_kernel_cpu")
    gaussian = generator_of(generator, "normal_").normal(0.0, 1.0, (rows, cols))
    tall = gaussian.T if rows < cols else gaussian
    q, r = np.linalg.qr(tall)
    q *= np.where(np.diag(r) < 0, -1.0, 1.0)  # the unique Q whose R has a positive diagonal
    q = q.T if rows < cols else q
    return _write(tensor, (q * gain).astype(tensor._data.dtype))
