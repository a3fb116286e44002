"""What an implementation hands the harness: per workload, a setup that returns a Runner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from time import perf_counter

# One repetition of a workload: seconds per metric (workloads.METRICS) and a loss to cross-check.
Runner = Callable[[], tuple[dict[str, float], float]]


@dataclass
class Impl:
    """An implementation: its name, a setup per workload, and what to do before each sample
    (e.g. switch minigrad's kernels)."""

    name: str
    setups: dict[str, Callable[[], Runner]]
    before: Callable[[], None] = field(default=lambda: None)


def timed(metric: str, fn: Callable[[], float]) -> Runner:
    """A Runner timing the whole of `fn` (which returns a loss) as one metric."""

    def run() -> tuple[dict[str, float], float]:
        start = perf_counter()
        loss = fn()
        return {metric: perf_counter() - start}, loss

    return run
