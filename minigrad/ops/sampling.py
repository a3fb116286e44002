"""Random ops that read tensors: multinomial, normal with tensor moments, bernoulli. Their
draws have no gradient, yet PyTorch records them (a zero gradient for each input), so a loss
built on them still reaches the inputs' leaves."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import creation
from ..core import dtypes
from ..core.generator import Generator, generator_of
from ..core.node import Node
from ..core.tensor import Tensor
from ._record import record
from .inplace import EARLY, run_inplace
from .not_implemented import NotImplementedBackward
from .shape import broadcast_shapes, expand


class _ZeroGradient(Node):
    """A random draw: every input gets zeros of its own shape."""

    def backward(self, g):
        zeros = [np.zeros(shape, dtype) for shape, dtype in self._input_meta]
        return tuple(Tensor._wrap(z) if isinstance(g, Tensor) else z for z in zeros)


# --- multinomial -----------------------------------------------------------------------------
def _check_distribution(p: Tensor, num_samples: int, replacement: bool) -> None:
    """PyTorch's checks, in its order."""
    if not p.dtype.is_floating_point:
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{dtypes.SCALAR_NAMES[p.dtype.name]}"
        )
    if p.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > p.shape[-1]:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if p.shape[-1] > 2**24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    values = p._data.astype(np.float64)
    if not np.all(np.isfinite(values) & (values >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if values.size and np.any(values.sum(axis=-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def multinomial(
    input: Tensor,  # noqa: A002
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """Indices drawn by the weights in each row: with replacement by inverting the cumulative
    weights; without, the `num_samples` largest of weight / Exp(1) (the exponential race),
    so categories of weight 0 come only after every other one."""
    if not isinstance(num_samples, int) or isinstance(num_samples, bool):
        raise TypeError(
            "multinomial(): argument 'num_samples' (position 2) must be int, not "
            f"{type(num_samples).__name__}"
        )
    _check_distribution(input, num_samples, replacement)
    rng = generator_of(generator, "multinomial")
    rows = input._data.astype(np.float64).reshape(-1, input.shape[-1])
    if replacement:
        cumulative = np.cumsum(rows, axis=1)
        cumulative /= cumulative[:, -1:]
        draws = rng.random((rows.shape[0], num_samples))
        # the first category whose cumulative weight passes u (< 1, the last one's)
        picked = [np.searchsorted(c, u, side="right") for c, u in zip(cumulative, draws)]
        picked = np.array(picked, dtype=np.int64).reshape(len(rows), num_samples)
    else:
        keys = rows / rng.standard_exponential(rows.shape)
        picked = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    shape = (*input.shape[:-1], num_samples)
    return Tensor._wrap(picked.reshape(shape).astype(np.int64))


# --- normal ----------------------------------------------------------------------------------
def _std_error(std: float) -> RuntimeError:
    return RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


_GEN = "*, torch.Generator generator = None, Tensor out = None"
NORMAL_SIGNATURES = (
    f"\n * (Tensor mean, Tensor std, {_GEN})\n * (Tensor mean, float std = 1, {_GEN})\n"
    f" * (float mean, Tensor std, {_GEN})\n * (float mean, float std, tuple of ints size, {_GEN}"
    ", torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool "
    "pin_memory = False, bool requires_grad = False)\n"
)


class NormalBackward1(_ZeroGradient):
    """normal(Tensor mean, float std)."""


class NormalBackward2(_ZeroGradient):
    """normal(float mean, Tensor std)."""


class NormalBackward3(_ZeroGradient):
    """normal(Tensor mean, Tensor std)."""


def normal(
    mean: Any,
    std: Any = 1.0,
    size: Any = None,
    *,
    generator: Generator | None = None,
    dtype: dtypes.dtype | None = None,
    requires_grad: bool = False,
    device: Any = None,
) -> Tensor:
    """normal(mean, std) with either a tensor (each element its own moments, broadcast), or
    two numbers and a size."""
    moments = [v for v in (mean, std) if isinstance(v, Tensor)]
    if bool(moments) == (size is not None):
        got = ", ".join(type(v).__name__ for v in (mean, std, size) if v is not None)
        raise TypeError(
            f"normal() received an invalid combination of arguments - got ({got}), but "
            f"expected one of:{NORMAL_SIGNATURES}"
        )
    if not moments:
        if std < 0:
            raise _std_error(std)
        return creation.normal_filled(mean, std, size, generator, dtype, requires_grad, device)
    if isinstance(std, Tensor):
        if np.any(std._data < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise _std_error(std)
    m, s = (v._data if isinstance(v, Tensor) else np.asarray(v) for v in (mean, std))
    shape = broadcast_shapes(m.shape, s.shape)
    out_dtype = dtypes.promote([(2, t.dtype) for t in moments])
    creation.random_dtype(out_dtype, "normal_kernel_cpu")
    noise = generator_of(generator, "normal").standard_normal(shape)
    data = (m + s * noise).astype(out_dtype.np)
    node, inputs = {
        (True, False): (NormalBackward1, (mean,)),
        (False, True): (NormalBackward2, (std,)),
        (True, True): (NormalBackward3, (mean, std)),
    }[isinstance(mean, Tensor), isinstance(std, Tensor)]
    return record(node, data, inputs)


# --- bernoulli -------------------------------------------------------------------------------
BAD_PROBABILITY = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)"
)


def _draw(probabilities: np.ndarray, shape: tuple, generator: Generator | None) -> np.ndarray:
    return generator_of(generator, "bernoulli").random(shape) < probabilities


def _checked(p: Tensor) -> np.ndarray:
    """Probabilities as PyTorch's bernoulli kernel takes them: floating, each in [0, 1]."""
    if not p.dtype.is_floating_point:
        kind = dtypes.SCALAR_NAMES[p.dtype.name]
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{kind}'")
    values = p._data
    if not np.all((values >= 0) & (values <= 1)):  # NaN fails both
        raise RuntimeError(BAD_PROBABILITY)
    return values


class BernoulliBackward0(_ZeroGradient):
    """bernoulli(probabilities)."""


def bernoulli(
    input: Tensor,  # noqa: A002
    p: float | None = None,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """1 with probability `input` (each element its own), or with probability `p` when given;
    the result has input's dtype."""
    if p is not None:
        data = _draw(p, tuple(input.shape), generator).astype(input._data.dtype)
        return record(NotImplementedBackward, data, (input,), op="bernoulli")
    data = _draw(_checked(input), tuple(input.shape), generator).astype(input._data.dtype)
    return record(BernoulliBackward0, data, (input,))


class BernoulliBackward1(_ZeroGradient):
    """x.bernoulli_(Tensor p)."""


class BernoulliBackward2(_ZeroGradient):
    """x.bernoulli_(float p)."""


def _bernoulli_fill(t: Tensor, p: Any, generator: Generator | None) -> Tensor:
    """bernoulli_'s out-of-place twin: t's shape and dtype, drawn with p (a number or a
    tensor expanded to t)."""
    if isinstance(p, Tensor):
        probabilities = expand(p, tuple(t.shape))
        data = _draw(_checked(probabilities), tuple(t.shape), generator)
        return record(BernoulliBackward1, data.astype(t._data.dtype), (t, p))
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
    data = _draw(p, tuple(t.shape), generator).astype(t._data.dtype)
    return record(BernoulliBackward2, data, (t,))


def bernoulli_(t: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    return run_inplace(t, _bernoulli_fill, (p, generator), {}, EARLY)
