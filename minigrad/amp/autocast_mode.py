"""torch.amp.autocast: a block (or decorated function) in which the ops autocast concerns run
in a lower precision; the state itself lives in `core/autocast.py`, where the ops read it.

On the CPU, float16 is honoured and bfloat16 (PyTorch's CPU default) raises minigrad's
no-bfloat16 TypeError on entering the block: failing early beats failing at some matmul deep
inside a model. A dtype CPU autocast does not support disables the block with PyTorch's
warning; so does asking for CUDA, which this build has not.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from ..core import autocast as state
from ..core import dtypes
from ..core.device import KNOWN_TYPES

_CPU_DTYPES = (dtypes.bfloat16, dtypes.float16)


def is_autocast_available(device_type: str) -> bool:
    """Whether `device_type` has an autocast (every device type PyTorch knows but meta)."""
    return device_type in KNOWN_TYPES and device_type != "meta"


def _usable(device_type: str, dtype: Any, enabled: Any) -> bool:
    """Whether the block really autocasts: PyTorch's warnings for the cases it turns off."""
    if not enabled:
        return enabled
    if device_type == "cpu" and dtype not in _CPU_DTYPES:
        warnings.warn(
            "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
            "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
            stacklevel=3,
        )
        return False
    if device_type == "cuda":
        warnings.warn(
            "CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=3
        )
        return False
    return enabled


class autocast:  # noqa: N801 - PyTorch's name
    """`with autocast("cpu", dtype=torch.float16):` or `@autocast("cpu", dtype=...)`. Blocks
    nest; each restores the state it found, and the outermost forgets the cached weight casts."""

    def __init__(
        self,
        device_type: str,
        dtype: dtypes.dtype | None = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = state.device_type_of(device_type, "autocast")
        self.fast_dtype = state.get_dtype(self.device) if dtype is None else dtype
        self._cache_enabled = state.is_cache_enabled() if cache_enabled is None else cache_enabled
        self._enabled = _usable(self.device, self.fast_dtype, enabled)
        self._saved: list[tuple[bool, dtypes.dtype, bool]] = []

    def __enter__(self) -> autocast:
        if self._enabled is True and self.device == "cpu":
            self.fast_dtype.np  # noqa: B018 - bfloat16 raises minigrad's no-bfloat16 error here
        kind = self.device
        saved = (state.is_enabled(kind), state.get_dtype(kind), state.is_cache_enabled())
        try:
            self._apply(self._enabled, self.fast_dtype, self._cache_enabled)
        except TypeError:  # an enabled= or dtype= of the wrong type: leave the state as it was
            self._apply(*saved)
            raise
        self._saved.append(saved)
        state.enter_block()
        return self

    def __exit__(self, *exc: Any) -> None:
        state.exit_block()
        self._apply(*self._saved.pop())

    def _apply(self, enabled: bool, dtype: dtypes.dtype, cache_enabled: bool) -> None:
        state.set_dtype(self.device, dtype)
        state.set_enabled(self.device, enabled)
        state.set_cache_enabled(cache_enabled)

    def __call__(self, func: Callable) -> Callable:
        @functools.wraps(func)
        def autocast_wrapper(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return autocast_wrapper
