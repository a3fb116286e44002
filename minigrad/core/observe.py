"""The reporting channel: every forward node and backward step, as a record (core/events.py).

Producers guard with `if LISTENERS:` (the engine through its reporter, autograd/report.py), so
the channel costs nothing when nobody listens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .events import Record

LISTENERS: list[Callable[[Record], None]] = []


def emit(record: Record) -> None:
    """Hand one record (made by a constructor of core/events.py) to every listener."""
    for listener in tuple(LISTENERS):
        listener(record)


class record_steps:  # noqa: N801
    """Collect every record emitted inside the block: `with record_steps() as steps: ...`."""

    def __init__(self) -> None:
        self.records: list[Record] = []

    def __enter__(self) -> record_steps:
        LISTENERS.append(self.records.append)
        return self

    def __exit__(self, *exc: Any) -> bool:
        LISTENERS.remove(self.records.append)
        return False

    def __iter__(self):
        return iter(self.records)

    def __len__(self) -> int:
        return len(self.records)

    def kinds(self) -> list[str]:
        return [r["kind"] for r in self.records]
