"""Grad-mode switches: whether new operations are recorded into the graph."""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from typing import Any


class ThreadModes(threading.local):
    """Grad mode and inference mode belong to a thread, as in PyTorch: a `no_grad` block in one
    thread leaves the others recording, and a new thread starts with grad mode on."""

    enabled = True
    inference = False


class Anywhere:
    """Process-wide tallies in front of the per-thread flags. Reading a thread-local attribute
    costs about twice a class attribute, and every op asks "is grad on?" and "inference?", so
    hot paths test these lists first and the thread's own flag only when one is non-empty:
    `grad_off` holds an entry per thread whose grad mode is off now, `inference_blocks` one per
    open inference_mode block. Lists, because append and pop are atomic: no lock on the
    `no_grad` that wraps every optimizer step. (A thread that dies with grad off leaves its
    entry behind: slower, never wrong.)"""

    grad_off: list[None] = []
    inference_blocks: list[None] = []


_State = ThreadModes()


def set_enabled(on: bool) -> None:
    """The one writer of the thread's grad flag, keeping `Anywhere.grad_off` in step."""
    if _State.enabled != on:
        if on:
            Anywhere.grad_off.pop()
        else:
            Anywhere.grad_off.append(None)
        _State.enabled = on


def is_grad_enabled() -> bool:
    return not Anywhere.grad_off or _State.enabled


def is_inference_mode_enabled() -> bool:
    return bool(Anywhere.inference_blocks) and _State.inference


class _Mode:
    """Base for context managers that are also decorators, like PyTorch's."""

    def __call__(self, fn: Callable) -> Callable:
        if inspect.isgeneratorfunction(fn):
            return self._around_generator(fn)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.clone():
                return fn(*args, **kwargs)

        return wrapper

    def _around_generator(self, fn: Callable) -> Callable:
        """The mode holds while the generator runs, not while its caller does between items
        (PyTorch's _wrap_generator): each resumption enters it afresh."""

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            gen = fn(*args, **kwargs)
            try:
                with self.clone():
                    item = gen.send(None)
                while True:
                    try:
                        sent = yield item
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as err:
                        with self.clone():
                            item = gen.throw(err)
                    else:
                        with self.clone():
                            item = gen.send(sent)
            except StopIteration as stop:
                return stop.value

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

    def __enter__(self) -> set_grad_enabled:
        set_enabled(self.mode)
        return self

    def __exit__(self, *exc: Any) -> bool:
        set_enabled(self.prev)
        return False

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
    def __enter__(self) -> no_grad:
        self.prev = _State.enabled
        set_enabled(False)
        return self

    def __exit__(self, *exc: Any) -> bool:
        set_enabled(self.prev)
        return False


class enable_grad(_NoArgMode):  # noqa: N801
    def __enter__(self) -> enable_grad:
        self.prev = _State.enabled
        set_enabled(True)
        return self

    def __exit__(self, *exc: Any) -> bool:
        set_enabled(self.prev)
        return False


class inference_mode(_Mode):  # noqa: N801
    """no_grad that also marks new tensors as inference tensors, which autograd refuses later."""

    def __new__(cls, mode: Any = True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # `@inference_mode` without parentheses

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def __enter__(self) -> inference_mode:
        """inference_mode(False) switches inference off and grad mode on, as in PyTorch."""
        self.prev = (_State.enabled, _State.inference)
        if self.mode:
            Anywhere.inference_blocks.append(None)
        set_enabled(not self.mode)
        _State.inference = self.mode
        return self

    def __exit__(self, *exc: Any) -> bool:
        set_enabled(self.prev[0])
        _State.inference = self.prev[1]
        if self.mode:
            Anywhere.inference_blocks.pop()
        return False

    def _args(self) -> tuple:
        return (self.mode,)
