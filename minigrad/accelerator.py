"""torch.accelerator as a machine without an accelerator answers it: the current tutorials'
preamble (`torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else
"cpu"`) picks the CPU."""

from __future__ import annotations

from .core.device import device


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False) -> device | None:
    return None


def device_count() -> int:
    return 0
