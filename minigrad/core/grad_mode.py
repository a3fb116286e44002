"""Grad-mode switches: whether new operations are recorded into the graph."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any


class ThreadModes(threading.local):
    """Grad mode and inference mode belong to a thread, as in PyTorch: a `no_grad` block in one
    thread leaves the others recording, and a new thread starts with grad mode on.

    `inference_blocks`, on the class, counts the inference_mode blocks open in any thread, so
    making a tensor (once per op) reads the thread's own flag only while one is open."""

    enabled = True
    inference = False
    inference_blocks = 0
    _count_lock = threading.Lock()

    @classmethod
    def count_inference_block(cls, change: int) -> None:
        with cls._count_lock:
            cls.inference_blocks += change


_State = ThreadModes()


def is_grad_enabled() -> bool:
    return _State.enabled


def is_inference_mode_enabled() -> bool:
    return _State.inference


class _Mode:
    """Base for context managers that are also decorators, like PyTorch's."""

    def _enter(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def _exit(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self):
        self._enter()
        return self

    def __exit__(self, *exc: Any) -> bool:
        self._exit()
        return False

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with type(self)(*self._args()):
                return fn(*args, **kwargs)

        return wrapper

    def _args(self) -> tuple:
        return ()

    def clone(self):
        return type(self)(*self._args())


class set_grad_enabled(_Mode):  # noqa: N801
    """Takes effect immediately, like torch.set_grad_enabled, and restores on exit."""

    def __init__(self, mode: bool) -> None:
        self.prev = _State.enabled
        self.mode = bool(mode)
        _State.enabled = self.mode

    def _enter(self) -> None:
        _State.enabled = self.mode

    def _exit(self) -> None:
        _State.enabled = self.prev

    def _args(self) -> tuple:
        return (self.mode,)


class no_grad(_Mode):  # noqa: N801
    def _enter(self) -> None:
        self.prev = _State.enabled
        _State.enabled = False

    def _exit(self) -> None:
        _State.enabled = self.prev


class enable_grad(_Mode):  # noqa: N801
    def _enter(self) -> None:
        self.prev = _State.enabled
        _State.enabled = True

    def _exit(self) -> None:
        _State.enabled = self.prev


class inference_mode(_Mode):  # noqa: N801
    """no_grad that also marks new tensors as inference tensors, which autograd refuses later."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def _enter(self) -> None:
        """inference_mode(False) switches inference off and grad mode on, as in PyTorch."""
        self.prev = (_State.enabled, _State.inference)
        if self.mode:
            ThreadModes.count_inference_block(1)
        _State.enabled, _State.inference = not self.mode, self.mode

    def _exit(self) -> None:
        _State.enabled, _State.inference = self.prev
        if self.mode:
            ThreadModes.count_inference_block(-1)

    def _args(self) -> tuple:
        return (self.mode,)
