"""F.interpolate's nearest, nearest-exact, (bi)linear and area modes on 3-d (N, C, L) and 4-d
(N, C, H, W) inputs.

Each output position along a spatial dim reads one input position (nearest) or two, weighted
(linear), so the op is a fixed linear map of its input: the gradient is the map's adjoint (a
scatter-add of the same weights) and the adjoint's gradient is the map again (linear_map.py),
which makes every order differentiable. Indices and weights are computed in the precision
PyTorch's kernels use (float32 for nearest, the input's dtype for linear), so that the same
positions are picked and the same weights multiply. "area" is adaptive average pooling.
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

from ...core.dtypes import SCALAR_NAMES
from ...core.tensor import Tensor
from .avg_pool import adaptive_avg_pool2d
from .linear_map import apply_map, node_pair

_KINDS = {  # mode -> (its name in PyTorch's nodes, the rank it works on (None: 3-d and 4-d))
    "nearest": ("Nearest", None),
    "nearest-exact": ("NearestExact", None),
    "linear": ("Linear", 3),
    "bilinear": ("Bilinear", 4),
}
_NODES = {
    (mode, k): node_pair(f"Upsample{kind}{k}D")
    for (mode, (kind, rank)), k in itertools.product(_KINDS.items(), (1, 2))
    if rank in (None, k + 2)
}
_RANKS = {"linear": 3, "bilinear": 4, "trilinear": 5}  # (PyTorch names the rank these need)
_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_AXES = "DHW"


# --- where each output position reads, along one dim ---------------------------------------
def _scale(n_in: int, n_out: int, scale: float | None, dt: type) -> Any:
    """Input positions per output position: 1/scale_factor when one was given, else in/out."""
    if scale is not None and scale > 0:
        return dt(1.0 / scale)
    return dt(n_in) / dt(n_out)


def _nearest_taps(n_in: int, n_out: int, scale: float | None, exact: bool) -> list:
    """One tap (index, no weight): the position floor(o * s), or floor((o + 0.5) * s) for
    nearest-exact, in float32 as PyTorch's kernel computes it."""
    o = np.arange(n_out)
    if exact:
        s = np.float64(_scale(n_in, n_out, scale, np.float32))
        src = np.floor(((o + 0.5) * s).astype(np.float32))
    elif n_out == n_in:
        src = o
    elif n_out == 2 * n_in:
        src = o >> 1
    else:
        src = np.floor(o.astype(np.float32) * _scale(n_in, n_out, scale, np.float32))
    return [(np.minimum(src.astype(np.int64), n_in - 1), None)]


def _linear_taps(n_in: int, n_out: int, scale: float | None, align: bool, dt: type) -> list:
    """Two taps (index, weight) per output position, the weights in the input's dtype. The
    source position is ratio * (o + 0.5) - 0.5 fused (one rounding, as PyTorch's compiled
    kernel computes it); its integer part is taken after a float32 cast, as PyTorch's floorf."""
    o = np.arange(n_out)
    if n_out == n_in:  # a copy, with PyTorch's weights (1, 0)
        return [(o, np.ones(n_out, dt)), (o, np.zeros(n_out, dt))]
    if align:
        ratio = dt(n_in - 1) / dt(n_out - 1) if n_out > 1 else dt(0)
        src = ratio * o.astype(dt)
    else:
        ratio = _scale(n_in, n_out, scale, dt)
        src = _fma(np.full(n_out, ratio), o.astype(dt) + dt(0.5), dt(-0.5))
        src = np.maximum(src, dt(0))
    i0 = np.minimum(np.floor(src.astype(np.float32)).astype(np.int64), n_in - 1)
    w1 = np.clip(src - i0.astype(dt), dt(0), dt(1))
    i1 = i0 + (i0 < n_in - 1)
    return [(i0, dt(1) - w1), (i1, w1)]


def _fma(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """a * b + c with (nearly always) one rounding: computed in a wider float, as the fused
    multiply-add PyTorch's compiled kernels use."""
    wide = np.longdouble if a.dtype == np.float64 else np.float64
    return (a.astype(wide) * b + c).astype(a.dtype)


# --- the map and its adjoint ---------------------------------------------------------------
def _forward(x: np.ndarray, taps: list) -> np.ndarray:
    """Interpolate the last dim first, then the one before, each step x0 * w0 + (x1 * w1)
    fused: PyTorch's 1-d results to the bit; its 2-d kernel rounds some outputs 1 ulp apart."""
    for axis in range(-1, -len(taps) - 1, -1):
        (i0, w0), *rest = taps[axis]
        x0 = np.take(x, i0, axis=axis)
        if not rest:  # nearest: a gather
            x = x0
            continue
        ((i1, w1),) = rest
        with np.errstate(invalid="ignore", over="ignore"):  # (inf * 0: NaN, as PyTorch)
            x = _fma(x0, _along(w0, axis), np.take(x, i1, axis=axis) * _along(w1, axis))
    return x


def _along(w: np.ndarray, axis: int) -> np.ndarray:
    return w.reshape((-1,) + (1,) * (-axis - 1))


def _adjoint(g: np.ndarray, taps: list, shape: tuple) -> np.ndarray:
    """Scatter-add each output's gradient to the positions it read, output by output and tap by
    tap, each weighted by the product of its per-dim weights, the order PyTorch adds in (its
    compiled kernel fuses some of the adds: float32 sums may differ in the last bits)."""
    k = len(taps)
    combos = list(itertools.product(*taps))  # one tap of each dim, PyTorch's order
    index = [np.empty(g.shape[-k:] + (len(combos),), np.int64) for _ in range(k)]
    values = np.empty(g.shape + (len(combos),), g.dtype)
    for j, combo in enumerate(combos):
        for d, grid in enumerate(np.ix_(*(i for i, _ in combo))):
            index[d][..., j] = grid
        weights = [w for _, w in combo if w is not None]
        with np.errstate(invalid="ignore", over="ignore"):
            values[..., j] = g * functools.reduce(np.multiply.outer, weights) if weights else g
    out = np.zeros(shape, dtype=g.dtype)
    flat = (Ellipsis, *(i.reshape(-1) for i in index))
    np.add.at(out, flat, values.reshape(g.shape[:-k] + (flat[1].size,)))
    return out


# --- arguments, as F.interpolate reads them ------------------------------------------------
def _per_dim(value: Any, k: int, what: str, shape: tuple) -> list | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        return [value] * k
    if len(value) != k:
        spatial = list(shape[2:])
        if what == "size":
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got "
                f"input with spatial dimensions of {spatial} and output size of {value}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size "
                "in (o1, o2, ...,oK) format."
            )
        raise ValueError(
            "Input and scale_factor must have the same number of spatial dimensions, but got "
            f"input with spatial dimensions of {spatial} and scale_factor of shape {value}. "
            "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
            "(s1, s2, ...,sK) format."
        )
    if what == "size" and not all(_is_integer(v) for v in value):
        raise TypeError(
            "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
            f"Tuple[int, int, int], but got size with types {[type(v) for v in value]}"
        )
    return list(value)


def _is_integer(v: Any) -> bool:
    if isinstance(v, Tensor):
        return not v.dtype.is_floating_point and v.dtype.name != "bool"
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _check_mode(x: Tensor, mode: str, antialias: bool) -> None:
    """PyTorch's errors for modes that do not fit the input, then minigrad's for the modes (or
    ranks) PyTorch has and minigrad lacks."""
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and x.ndim == 4):
        raise ValueError(
            "Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and "
            "requires a 4-D tensor as input"
        )
    need = _RANKS.get(mode)
    if x.ndim in (3, 4, 5) and need is not None and need != x.ndim:
        raise NotImplementedError(f"Got {x.ndim}D input, but {mode} mode needs {need}D input")
    ours = mode in _KINDS or mode == "area"
    if ours and x.ndim in (3, 4) and not antialias:
        return
    if (x.ndim in (3, 4, 5) and (ours or mode == "trilinear")) or (
        x.ndim == 4 and mode in ("bicubic", "lanczos")
    ):
        extra = " with antialias=True" if antialias else ""
        raise NotImplementedError(
            f"minigrad's interpolate has no {mode} mode{extra} for {x.ndim}D inputs"
        )
    raise NotImplementedError(
        f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {x.ndim}D) for "
        f"the modes: {_MODES} (got {mode})"
    )


def _check_sizes(x: Tensor, out: list[int]) -> None:
    shape = tuple(x.shape)
    axes = _AXES[3 - len(out) :]
    if min(shape[2:]) <= 0 or min(out) <= 0:
        given = ", ".join(f"{a}: {n}" for a, n in zip(axes, shape[2:]))
        got = ", ".join(f"{a}: {n}" for a, n in zip(axes, out))
        joint = " and" if len(out) == 1 else ""
        raise RuntimeError(
            "Input and output sizes should be greater than 0, but got input "
            f"({given}){joint} output ({got})"
        )
    if 0 in shape[1:]:
        raise RuntimeError(
            f"Non-empty {x.ndim}D data tensor expected but got a tensor with sizes {list(shape)}"
        )


def _check_dtype(x: Tensor, mode: str) -> None:
    """Floats, and uint8 for the nearest modes (a gather); PyTorch's messages for the rest,
    except uint8 bilinear, which PyTorch has (a special kernel) and minigrad lacks."""
    kind = x.dtype.name
    if x.dtype.is_floating_point or (kind == "uint8" and mode.startswith("nearest")):
        return
    if kind == "uint8" and x.ndim == 4:
        raise NotImplementedError("minigrad's bilinear interpolate has no uint8 kernel")
    if x.ndim == 3:
        kernel = "compute_indices_weights_" + ("linear" if mode == "linear" else "nearest")
    else:
        kernel = f"upsample_{'bilinear' if mode == 'bilinear' else 'nearest'}2d_channels_last"
    raise NotImplementedError(f"\"{kernel}\" not implemented for '{SCALAR_NAMES.get(kind, kind)}'")


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """F.interpolate: resize the spatial dims (all after the first two) to `size`, or by
    `scale_factor` (output size floor(in * s); the kernel then uses 1/s as its step unless
    recompute_scale_factor, in which case in/out, as PyTorch does)."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
    elif align_corners is None:
        align_corners = False
    k = input.ndim - 2
    shape = tuple(input.shape)
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is None and scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    sizes = _per_dim(size, k, "size", shape)
    scales = _per_dim(scale_factor, k, "scale_factor", shape)
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    _check_mode(input, mode, antialias)
    if scales is not None:
        scales = [float(s) for s in scales]
        sizes = [int(n * s) for n, s in zip(shape[2:], scales)]
        if recompute_scale_factor or mode == "area":
            scales = None
    sizes = [int(n) for n in sizes]
    if mode == "area":
        return _area(input, sizes)
    _check_sizes(input, sizes)
    _check_dtype(input, mode)
    scales = scales or [None] * k
    if mode.startswith("nearest"):
        exact = mode == "nearest-exact"
        taps = [_nearest_taps(n, m, s, exact) for n, m, s in zip(shape[2:], sizes, scales)]
    else:
        dt = input.dtype.np.type
        taps = [
            _linear_taps(n, m, s, align_corners, dt) for n, m, s in zip(shape[2:], sizes, scales)
        ]
    return apply_map(
        input,
        functools.partial(_forward, taps=taps),
        functools.partial(_adjoint, taps=taps, shape=shape),
        _NODES[mode, k],
    )


def _area(x: Tensor, sizes: list[int]) -> Tensor:
    """Adaptive average pooling to `sizes`; a 3-d input through a 4-d one, as PyTorch's
    adaptive_avg_pool1d does."""
    if x.ndim == 4:
        return adaptive_avg_pool2d(x, tuple(sizes))
    return adaptive_avg_pool2d(x.unsqueeze(-2), (1, sizes[0])).squeeze(-2)
