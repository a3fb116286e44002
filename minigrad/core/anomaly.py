"""Anomaly detection: remember where each node was made, and fail loudly on NaN gradients."""

from __future__ import annotations

import sys
import traceback
import warnings
from typing import Any


class _State:
    enabled = False
    check_nan = True


def is_anomaly_enabled() -> bool:
    return _State.enabled


class set_detect_anomaly:  # noqa: N801
    """Switch anomaly detection on or off; works as a call, a context manager or both."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = (_State.enabled, _State.check_nan)
        _State.enabled, _State.check_nan = bool(mode), check_nan

    def __enter__(self) -> set_detect_anomaly:
        return self

    def __exit__(self, *exc: Any) -> bool:
        _State.enabled, _State.check_nan = self.prev
        return False


class detect_anomaly(set_detect_anomaly):  # noqa: N801
    def __init__(self, check_nan: bool = True) -> None:
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime "
            "and should only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )
        super().__init__(True, check_nan)


def forward_trace() -> str:
    """The user's stack at node creation, minus minigrad's own frames."""
    frames = [f for f in traceback.extract_stack()[:-1] if "/minigrad/" not in f.filename]
    return "".join(traceback.format_list(frames))


def report_error(name: str, trace: str | None) -> None:
    """Warn where the failing node was made, as PyTorch does before its error propagates."""
    if trace:
        where = f"Traceback of forward call that caused the error:\n{trace}"
    else:
        where = (
            "No forward pass information available. Enable detect anomaly during forward "
            "pass for more information."
        )
    warnings.warn(f"Error detected in {name}. {where}", UserWarning, stacklevel=_user_level())


def _user_level() -> int:
    """The stacklevel of the first caller outside minigrad (the user's backward call)."""
    frame, level = sys._getframe(2), 2
    while frame.f_back is not None and "/minigrad/" in frame.f_code.co_filename:
        frame, level = frame.f_back, level + 1
    return level
