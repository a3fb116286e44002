"""Interleaved sampling: every round runs each implementation once, in a rotating order, so
that a slow moment of the machine touches all of them alike."""

from __future__ import annotations

import gc
import statistics
from dataclasses import dataclass, field

from .runner import Impl, Runner, now


@dataclass
class Series:
    """The samples of one implementation on one workload, per metric; a sample is the mean of
    `inner` back-to-back repetitions (many for microsecond workloads, one for slow ones)."""

    impl: str
    inner: int
    samples: dict[str, list[float]] = field(default_factory=dict)
    loss: float = float("nan")  # after the first repetition, from the shared initial weights

    def add(self, sample: dict[str, float]) -> None:
        for metric, seconds in sample.items():
            self.samples.setdefault(metric, []).append(seconds)

    def stats(self, metric: str) -> dict[str, float]:
        xs = sorted(self.samples[metric])
        q1, _, q3 = statistics.quantiles(xs, n=4) if len(xs) > 1 else (xs[0],) * 3
        return {
            "median_s": statistics.median(xs),
            "p25_s": q1,
            "p75_s": q3,
            "min_s": xs[0],
            "max_s": xs[-1],
            "samples": len(xs),
        }


def _sample(run: Runner, inner: int) -> dict[str, float]:
    total: dict[str, float] = {}
    for _ in range(inner):
        times, _ = run()
        for metric, seconds in times.items():
            total[metric] = total.get(metric, 0.0) + seconds
    return {metric: seconds / inner for metric, seconds in total.items()}


def _calibrate(run: Runner, target_s: float) -> int:
    """Repetitions per sample so that a sample lasts about target_s (at least one)."""
    start = now()
    run()
    once = now() - start
    return max(1, min(1000, round(target_s / max(once, 1e-9))))


def measure(
    workload: str, impls: list[Impl], rounds: int, target_s: float, warmup: int = 2
) -> list[Series]:
    """Set every implementation up, warm it (JIT, caches), then sample them interleaved.

    Python's garbage collector is left on, but what exists before sampling (modules, datasets,
    models) is frozen out of its scans, and each sample starts after a collection: otherwise one
    implementation's garbage (micrograd's graphs, say) is collected on another one's clock.
    """
    runs, series = [], []
    for impl in impls:
        impl.before()
        run = impl.setups[workload]()
        _, loss = run()
        for _ in range(warmup - 1):
            run()
        runs.append(run)
        series.append(Series(impl.name, _calibrate(run, target_s), loss=loss))
    gc.collect()
    gc.freeze()
    try:
        for r in range(rounds):
            for k in range(len(impls)):
                i = (k + r) % len(impls)
                impls[i].before()
                gc.collect()
                series[i].add(_sample(runs[i], series[i].inner))
    finally:
        gc.unfreeze()
    return series
