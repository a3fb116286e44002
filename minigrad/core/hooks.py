"""Removable hook handles, shared by tensors, nodes and modules."""

from __future__ import annotations

import itertools
from typing import Any

_ids = itertools.count()


class RemovableHandle:
    """What register_*hook returns; `.remove()` (or leaving a `with` block) unregisters the hook."""

    __slots__ = ("_dicts", "id")

    def __init__(self, *hook_dicts: dict) -> None:
        self.id = next(_ids)
        self._dicts = hook_dicts

    def remove(self) -> None:
        for d in self._dicts:
            d.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<RemovableHandle id={self.id}>"


def add_hook(hooks: dict, fn: Any) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


def hook_name(fn: Any) -> str:
    """What PyTorch calls a hook in its messages: its `__name__` (a lambda's is `<lambda>`)."""
    return getattr(fn, "__name__", type(fn).__name__)
