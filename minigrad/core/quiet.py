"""PyTorch computes inf - inf, 0 * inf, an overflow or log(0) silently; numpy warns
("RuntimeWarning: invalid value encountered in add"). An errstate around every op costs about
a microsecond each, so instead one warnings filter, installed when minigrad is imported, drops
numpy's floating-point warnings raised from minigrad's code (and from numpy's reduction
helpers that minigrad's `.sum()` / `.mean()` / `np.cumsum` calls go through). A learner's own
numpy ufunc calls keep their warnings; their own `ndarray.sum()` overflowing does not."""

from __future__ import annotations

import warnings

FLOATING_POINT_ERRORS = r"(invalid value|overflow|divide by zero|underflow) encountered in "
SILENCED_MODULES = r"(minigrad(\..*)?|numpy\._core\._methods|numpy\._core\.fromnumeric)$"


def install() -> None:
    """Ignore numpy's floating-point RuntimeWarnings raised where minigrad computes."""
    warnings.filterwarnings(
        "ignore",
        message=FLOATING_POINT_ERRORS,
        category=RuntimeWarning,
        module=SILENCED_MODULES,
    )


install()  # on import (minigrad/__init__.py imports this module)
