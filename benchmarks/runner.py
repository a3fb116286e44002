"""What an implementation hands the harness: per workload, a setup that returns a Runner."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

# One repetition of a workload: seconds per metric (workloads.METRICS) and a loss to cross-check.
Runner = Callable[[], tuple[dict[str, float], float]]


@dataclass
class Impl:
    """An implementation: its name, a setup per workload, and what to do before each sample
    (e.g. switch minigrad's kernels)."""

    name: str
    setups: dict[str, Callable[[], Runner]]
    before: Callable[[], None] = field(default=lambda: None)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = CLOCKS["wall"]


def use_clock(name: str) -> None:
    """'wall' (elapsed time, the default) or 'cpu' (this process's CPU time: steadier on a busy
    machine, meaningful with one thread only, since idle threads that spin count too)."""
    global _clock
    _clock = CLOCKS[name]


def now() -> float:
    return _clock()


def timed(metric: str, fn: Callable[[], float]) -> Runner:
    """A Runner timing the whole of `fn` (which returns a loss) as one metric."""

    def run() -> tuple[dict[str, float], float]:
        start = now()
        loss = fn()
        return {metric: now() - start}, loss

    return run
