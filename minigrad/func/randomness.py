"""vmap's (and jacfwd's) `randomness`: PyTorch runs the function once over the whole batch,
minigrad once per sample, so it watches the default generator instead: 'error' refuses a
call that draws from it, 'same' rewinds it before each call (every sample draws the same
numbers), 'different' lets it run on (each sample its own draws)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import random

MODES = ("error", "different", "same")


def check(mode: str) -> None:
    if mode not in MODES:
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {mode}"
        )


class PerSample:
    """Runs the per-sample calls of one batched call under a randomness mode."""

    def __init__(self, mode: str) -> None:
        check(mode)
        self.mode, self.start = mode, random.get_rng_state()

    def __call__(self, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        if self.mode == "same":
            random.set_rng_state(self.start)
        before = random.get_rng_state()
        result = fn(*args, **kwargs)
        if self.mode == "error" and not before.equal(random.get_rng_state()):
            raise RuntimeError(
                "vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap"
            )
        return result
