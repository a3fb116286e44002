"""Which functions a learner's code called while a check ran it: how a check tells the taught
method from a ready-made answer (the library's `jacobian`, `mg.optim.SGD` for a hand-written step,
the engine's own dependency count, the check's own reference walker), however it was imported.

One profile hook on this thread watches the block (the previous hook keeps seeing every call and
is put back at the end); what counts as "ready-made" is a function of the code object called.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CodeType
from typing import Any

import minigrad

from .language import say

_ROOT = str(Path(minigrad.__file__).resolve().parent) + "/"


class Called(list):
    """The names called in the block, each once, in the order of their first call."""

    def first(self) -> str:
        """The first public name called, the one the learner most likely wrote."""
        public = [n for n in self if not any(part.startswith("_") for part in n.split("."))]
        return (public or self or [""])[0]

    @property
    def switched_off(self) -> bool:
        """The block switched the watcher off (what it did next was hidden on purpose)."""
        return bool(self) and self[0] in _SWITCH_NAMES

    def switched_off_message(self) -> str:
        return say(
            f"your function called {self[0]}, which switches off the watcher this check uses to "
            "see how the answer is computed: a check cannot accept what it was not allowed to see.",
            f"你的函数调用了 {self[0]}，它会关掉本检查用来观察答案如何算出的监视器：检查不能接受它"
            "没被允许看到的做法。",
        )


_WATCHER_SWITCHES = {sys.setprofile, sys.settrace, threading.setprofile, threading.settrace}


@contextmanager
def calls_where(name_of: Callable[[CodeType], str | None]) -> Iterator[Called]:
    """`with calls_where(name_of) as called:` -> the names `name_of(code)` gives to the functions
    run in the block (None: not watched). Threads started in the block are watched too, and a
    block that switches the watcher off is named by the switch (`sys.setprofile`): what it did
    next was hidden on purpose."""
    called, watching = Called(), [True]
    previous, previous_threads = sys.getprofile(), threading.getprofile()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            name = name_of(frame.f_code)
            if name is not None and name not in called:
                called.append(name)
        elif (
            event == "c_call"
            and watching[0]
            and arg in _WATCHER_SWITCHES
            and frame.f_code is not _OWN
        ):
            if _switch_name(arg) not in called:
                called.insert(0, _switch_name(arg))
        if previous is not None:
            previous(frame, event, arg)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        yield called
    finally:
        watching[0] = False  # (putting the previous watcher back is no switch of the learner's)
        sys.setprofile(previous)
        threading.setprofile(previous_threads)


_OWN = calls_where.__wrapped__.__code__  # a watcher opened inside the block switches nothing off


def _switch_name(fn: Any) -> str:
    return f"{fn.__module__ or 'sys'}.{fn.__name__}"


_SWITCH_NAMES = {_switch_name(fn) for fn in _WATCHER_SWITCHES}


def calls_to(functions: dict[str, Callable[..., Any]]) -> Any:
    """The given functions (by code object, so an alias or an earlier `from ... import` is seen)."""
    codes = {}
    for name, fn in functions.items():
        code = getattr(getattr(fn, "__wrapped__", fn), "__code__", None)
        if code is not None:
            codes[code] = name
    return calls_where(codes.get)


def library_calls(*parts: str, also: dict[CodeType, str] | None = None) -> Any:
    """The minigrad functions defined under `parts` (paths below minigrad/, e.g. "optim/"),
    named as a learner would write them (`mg.optim.SGD.step`, `mg.autograd.functional.hessian`),
    and the functions of `also` (code object -> name: a check's own answers)."""
    prefixes, also = tuple(_ROOT + p for p in parts), also or {}

    def name_of(code: CodeType) -> str | None:
        if code in also:
            return also[code]
        file = code.co_filename
        if not file.startswith(prefixes) or "<" in code.co_qualname:
            return None
        where = file[len(_ROOT) :].removesuffix(".py").split("/")
        package = ".".join(where) if len(where) == 2 and where[0] == "autograd" else where[0]
        return ".".join(("mg", package, code.co_qualname.removesuffix(".__init__")))

    return calls_where(name_of)
