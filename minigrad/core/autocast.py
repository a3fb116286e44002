"""Autocast's state, read by the ops it concerns (matmuls, convolutions and attention run in
the region's lower precision, losses in float32), written by `minigrad.amp.autocast`.

It sits on the bottom floor so the ops can ask it without reaching up to `amp`. The state
belongs to a thread, as PyTorch's does; every op asks, so the common answer ("no CPU autocast
anywhere") is one test of a process-wide list, the thread's own flag only when it is not empty.
Casting uses the Tensor's `.to`, bound to Tensor by the ops floor above.
"""

from __future__ import annotations

import threading
from typing import Any

from . import dtypes
from .device import device
from .grad_mode import is_grad_enabled

# PyTorch's default autocast dtype per device type
DEFAULT_DTYPES = {kind: dtypes.bfloat16 for kind in ("cpu", "hpu", "xla", "maia")}

# an entry per thread whose CPU autocast is on now
cpu_on: list[None] = []


class _ThreadState(threading.local):
    """Per device type: whether autocast is on and its dtype; the nesting depth of autocast
    blocks; the casts of leaf tensors that require grad, reused until the outermost block ends."""

    def __init__(self) -> None:
        self.enabled: dict[str, bool] = {}
        self.dtype: dict[str, dtypes.dtype] = {}
        self.nesting = 0
        self.cache_enabled = True
        self.cache: dict[tuple[int, dtypes.dtype], tuple[Any, Any]] = {}


_state = _ThreadState()


def device_type_of(device_type: Any, caller: str) -> str:
    """The device type named, checked as PyTorch checks it (a str naming a known device)."""
    if not isinstance(device_type, str):
        raise TypeError(
            f"{caller}(): argument 'device_type' (position 1) must be str, "
            f"not {type(device_type).__name__}"
        )
    return device(device_type).type


def is_enabled(device_type: str) -> bool:
    return _state.enabled.get(device_type_of(device_type, "is_autocast_enabled"), False)


def get_dtype(device_type: str) -> dtypes.dtype:
    kind = device_type_of(device_type, "get_autocast_dtype")
    return _state.dtype.get(kind, DEFAULT_DTYPES.get(kind, dtypes.float16))


def set_enabled(device_type: str, enabled: bool) -> None:
    kind = device_type_of(device_type, "set_autocast_enabled")
    if not isinstance(enabled, bool):
        raise TypeError(
            "set_autocast_enabled(): argument 'enabled' (position 2) must be bool, "
            f"not {type(enabled).__name__}"
        )
    if kind == "cpu" and enabled != _state.enabled.get("cpu", False):
        if enabled:
            cpu_on.append(None)
        else:
            cpu_on.pop()
    _state.enabled[kind] = enabled


def set_dtype(device_type: str, dtype: dtypes.dtype) -> None:
    kind = device_type_of(device_type, "set_autocast_dtype")
    if not isinstance(dtype, dtypes.dtype):
        raise TypeError(
            "set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, "
            f"not {type(dtype).__name__}"
        )
    _state.dtype[kind] = dtype


def is_cache_enabled() -> bool:
    return _state.cache_enabled


def set_cache_enabled(enabled: bool) -> None:
    _state.cache_enabled = enabled


def enter_block() -> None:
    _state.nesting += 1


def exit_block() -> None:
    """Leaving the outermost block forgets the cached casts."""
    _state.nesting -= 1
    if _state.nesting == 0:
        _state.cache.clear()


def _cast(t: Any, target: dtypes.dtype, cache: bool = False) -> Any:
    """`t` in `target` if autocast may cast it: a floating tensor other than float64 (numbers,
    None, integer and float64 tensors pass through). With `cache`, a float32 leaf that requires
    grad (a parameter) is cast once per region while grad mode is on, so each use of a weight
    shares one ToCopyBackward0."""
    kind = getattr(t, "dtype", None)
    if not isinstance(kind, dtypes.dtype) or kind is target:
        return t
    if not kind.is_floating_point or kind is dtypes.float64:
        return t
    cache = cache and _state.cache_enabled and kind is dtypes.float32 and t.requires_grad
    if not (cache and t.grad_fn is None and is_grad_enabled()):
        return t.to(target)
    key = (id(t), target)
    hit = _state.cache.get(key)
    if hit is None or hit[0] is not t:
        hit = _state.cache[key] = (t, t.to(target))
    return hit[1]


def lower(*tensors: Any) -> tuple:
    """The operands of a matmul or convolution, in the region's dtype (float16) when CPU
    autocast is on, as they are. (Switched on without an autocast block, with its bfloat16
    default, the first cast raises minigrad's no-bfloat16 error.)"""
    if not (cpu_on and _state.enabled.get("cpu", False)):
        return tensors
    target = _state.dtype.get("cpu", dtypes.bfloat16)
    return tuple(_cast(t, target, cache=True) for t in tensors)


def widen(*tensors: Any) -> tuple:
    """The operands of an op autocast runs in float32 (the losses), in float32 when CPU
    autocast is on, as they are."""
    if not (cpu_on and _state.enabled.get("cpu", False)):
        return tensors
    return tuple(_cast(t, dtypes.float32) for t in tensors)
