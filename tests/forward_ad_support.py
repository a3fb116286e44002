"""What the forward-mode test files compare: each output's primal, tangent and any flags (as
numpy copies, see their `_run`), or the exception PyTorch raised, word for word."""

from __future__ import annotations

from typing import Any

import numpy as np


def same_outcome(want: Any, got: Any, rtol: float, atol: float) -> None:
    """`got` (minigrad's) as `want` (PyTorch's): a list of (primal, tangent or None, *flags)
    per output, or an exception of the same type and message."""
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"PyTorch raised {want!r}; minigrad did not"
        assert type(got) is type(want) and str(got) == str(want)
        return
    if isinstance(got, Exception):
        raise got
    assert len(got) == len(want)
    for (wp, wt, *wflags), (gp, gt, *gflags) in zip(want, got, strict=True):
        np.testing.assert_allclose(gp, wp, rtol=rtol, atol=atol)
        assert gflags == wflags, "requires_grad"
        assert (gt is None) == (wt is None), "tangent presence"
        if wt is not None:
            assert gt.dtype == wt.dtype and gt.shape == wt.shape
            np.testing.assert_allclose(gt, wt, rtol=rtol, atol=atol)
