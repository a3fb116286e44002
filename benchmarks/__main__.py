"""`python -m benchmarks [--rounds N] [--workloads W1,W3] [--threads 2] [--clock wall|cpu]
[--no-jit] [--json PATH]`: see benchmarks/__init__.py."""

from __future__ import annotations

import argparse
import os
import sys

from threadpoolctl import threadpool_limits

from . import jit_startup, report, runner, timing
from .frameworks import minigrad_impl, torch_impl
from .micro import micrograd_impl
from .numpy_backprop import numpy_impl
from .runner import Impl
from .workloads import DESCRIPTIONS

DEFAULT_JSON = os.path.join(os.path.dirname(__file__), "results", "latest.json")


def implementations(threads: int) -> list[Impl]:
    return [
        minigrad_impl("numba", threads),
        minigrad_impl("numpy", threads),
        torch_impl(threads),
        numpy_impl(),
        micrograd_impl(),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--rounds", type=int, default=15, help="samples per implementation")
    parser.add_argument(
        "--sample-ms",
        type=float,
        default=50.0,
        help="repeat fast workloads until a sample lasts about this long",
    )
    parser.add_argument("--workloads", default=",".join(DESCRIPTIONS))
    parser.add_argument(
        "--threads",
        type=int,
        default=2,
        help="threads for PyTorch and the numba kernels (issue 4: 2)",
    )
    parser.add_argument(
        "--clock",
        choices=sorted(runner.CLOCKS),
        default="wall",
        help="'cpu' (with --threads 1) is steadier on a busy machine",
    )
    parser.add_argument("--no-jit", action="store_true", help="skip the fresh-process JIT timing")
    parser.add_argument("--json", default=DEFAULT_JSON, help="where to write the results")
    args = parser.parse_args(argv)

    runner.use_clock(args.clock)
    # numpy's BLAS on one thread: these matrices are small, and idle OpenBLAS threads spin for
    # a while after each call, taking the second core from numba and PyTorch (measured: torch's
    # W2 epoch 10 -> 20 ms, the numpy-backprop W3 epoch 30 -> 46 ms when it had two)
    threadpool_limits(1, user_api="blas")
    impls = implementations(args.threads)
    results = {}
    for workload in args.workloads.split(","):
        present = [i for i in impls if workload in i.setups]
        print(f"{workload}: {', '.join(i.name for i in present)} ...", file=sys.stderr)
        results[workload] = timing.measure(workload, present, args.rounds, args.sample_ms / 1e3)
    jit = None if args.no_jit else jit_startup.measure()
    table, info = report.rows(results), report.machine()
    goals = report.targets(table, jit)
    settings = {
        "rounds": args.rounds,
        "sample_ms": args.sample_ms,
        "threads": args.threads,
        "numpy_blas_threads": 1,
        "clock": args.clock,
    }
    print(report.text(table, goals, jit, info, settings))
    report.write_json(args.json, table, goals, jit, info, settings)
    print(f"\nwrote {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
