"""Grad-mode switches: whether new operations are recorded into the graph."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any


class ThreadModes(threading.local):
    """Grad mode and inference mode belong to a thread, as in PyTorch: a `no_grad` block in one
    thread leaves the others recording, and a new thread starts with grad mode on."""

    enabled = True
    inference = False


class Anywhere:
    """Process-wide counts in front of the per-thread flags. Reading a thread-local attribute
    costs about twice a class attribute, and every op asks "is grad on?" and "inference?", so
    hot paths read these counts first and the thread's own flag only when a count is non-zero:
    `grad_off` threads have grad mode off now, `inference_blocks` inference_mode blocks are open.
    (A thread that dies with grad off leaves the count high: slower, never wrong.)"""

    grad_off = 0
    inference_blocks = 0
    _lock = threading.Lock()

    @classmethod
    def count(cls, name: str, change: int) -> None:
        with cls._lock:
            setattr(cls, name, getattr(cls, name) + change)


_State = ThreadModes()


def set_enabled(on: bool) -> None:
    """The one writer of the thread's grad flag, keeping `Anywhere.grad_off` in step."""
    if _State.enabled != on:
        with Anywhere._lock:  # (inline, not `count`: no_grad wraps every optimizer step)
            Anywhere.grad_off += -1 if on else 1
        _State.enabled = on


def is_grad_enabled() -> bool:
    return not Anywhere.grad_off or _State.enabled


def is_inference_mode_enabled() -> bool:
    return bool(Anywhere.inference_blocks) and _State.inference


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
        set_enabled(self.mode)

    def _enter(self) -> None:
        set_enabled(self.mode)

    def _exit(self) -> None:
        set_enabled(self.prev)

    def _args(self) -> tuple:
        return (self.mode,)

    def __call__(self, fn: Callable) -> Callable:
        """As a decorator it changes nothing until the function runs (PyTorch restores the mode
        that its constructor switched)."""
        set_enabled(self.prev)
        return super().__call__(fn)


class _NoArgMode(_Mode):
    """A mode usable as `@no_grad` as well as `@no_grad()`, like PyTorch's."""

    def __new__(cls, fn: Callable | None = None):
        if fn is None:
            return super().__new__(cls)
        return cls()(fn)


class no_grad(_NoArgMode):  # noqa: N801
    def _enter(self) -> None:
        self.prev = _State.enabled
        set_enabled(False)

    def _exit(self) -> None:
        set_enabled(self.prev)


class enable_grad(_NoArgMode):  # noqa: N801
    def _enter(self) -> None:
        self.prev = _State.enabled
        set_enabled(True)

    def _exit(self) -> None:
        set_enabled(self.prev)


class inference_mode(_Mode):  # noqa: N801
    """no_grad that also marks new tensors as inference tensors, which autograd refuses later."""

    def __new__(cls, mode: Any = True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # `@inference_mode` without parentheses

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def _enter(self) -> None:
        """inference_mode(False) switches inference off and grad mode on, as in PyTorch."""
        self.prev = (_State.enabled, _State.inference)
        if self.mode:
            Anywhere.count("inference_blocks", 1)
        set_enabled(not self.mode)
        _State.inference = self.mode

    def _exit(self) -> None:
        set_enabled(self.prev[0])
        _State.inference = self.prev[1]
        if self.mode:
            Anywhere.count("inference_blocks", -1)

    def _args(self) -> tuple:
        return (self.mode,)
