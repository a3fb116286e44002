"""Anomaly detection: remember where each node was made, and fail loudly on NaN gradients."""

from __future__ import annotations

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


def report_error(node) -> None:
    trace = node._anomaly_trace
    if trace:
        warnings.warn(
            f"Error detected in {node.name()}. Traceback of forward call that caused "
            f"the error:\n{trace}",
            UserWarning,
            stacklevel=3,
        )
