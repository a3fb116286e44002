"""The table a person reads and the JSON a script reads, from the measured series."""

from __future__ import annotations

import json
import os
import platform
import time
from importlib import metadata

from .timing import Series
from .workloads import DESCRIPTIONS, METRICS

TORCH = "PyTorch CPU"
MINIGRAD = "minigrad (numba)"
# (workload, metric, implementation compared, highest allowed ratio to torch) from issue 4
RATIO_TARGETS = [
    ("W1", "step", 1.5),
    ("W2", "epoch", 1.0),
    ("W3", "epoch", 1.0),
    ("W4", "forward/op", 2.0),
    ("W4", "backward/op", 2.0),
    ("W5", "step", 1.5),  # issue 21: the courses' models
    ("W6", "step", 1.5),
]
MICROGRAD_SPEEDUP = 1000.0
WARM_FIRST_CALL_S = 1.5


def machine() -> dict:
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = {}
    for pkg in ("numpy", "numba", "torch", "micrograd", "scikit-learn"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": versions,
        "load_average_1min": os.getloadavg()[0],
    }


def rows(results: dict[str, list[Series]]) -> list[dict]:
    out = []
    for workload, series in results.items():
        for metric in METRICS[workload]:
            torch_s = next((s.stats(metric)["median_s"] for s in series if s.impl == TORCH), None)
            for s in series:
                st = s.stats(metric)
                out.append(
                    {
                        "workload": workload,
                        "metric": metric,
                        "impl": s.impl,
                        **st,
                        "inner": s.inner,
                        "first_loss": s.loss,
                        "ratio_to_torch": st["median_s"] / torch_s if torch_s else None,
                    }
                )
    return out


def _median(table: list[dict], workload: str, metric: str, impl: str) -> float | None:
    return next(
        (
            r["median_s"]
            for r in table
            if (r["workload"], r["metric"], r["impl"]) == (workload, metric, impl)
        ),
        None,
    )


def targets(table: list[dict], jit: dict | None) -> list[dict]:
    """Each target (issue 4's; W5, W6: issue 21): the measured value, the bound, met or not."""
    out = []
    for workload, metric, bound in RATIO_TARGETS:
        mg, th = _median(table, workload, metric, MINIGRAD), _median(table, workload, metric, TORCH)
        if mg and th:
            out.append(
                {
                    "target": f"{workload} {metric} <= {bound}x PyTorch",
                    "value": mg / th,
                    "bound": bound,
                    "met": mg / th <= bound,
                }
            )
    mg, micro = _median(table, "W1", "step", MINIGRAD), _median(table, "W1", "step", "micrograd")
    if mg and micro:
        out.append(
            {
                "target": f"W1 over {MICROGRAD_SPEEDUP:.0f}x faster than micrograd",
                "value": micro / mg,
                "bound": MICROGRAD_SPEEDUP,
                "met": micro / mg > MICROGRAD_SPEEDUP,
            }
        )
    if jit:
        out.append(
            {
                "target": f"warm first CNN step under {WARM_FIRST_CALL_S} s",
                "value": jit["warm_first_step_s"],
                "bound": WARM_FIRST_CALL_S,
                "met": jit["warm_first_step_s"] < WARM_FIRST_CALL_S,
            }
        )
    return out


def _time(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:8.2f} {unit:2s}"
    return f"{seconds / 1e-9:8.1f} ns"


def text(table: list[dict], goals: list[dict], jit: dict | None, info: dict, settings: dict) -> str:
    lines = [
        f"machine: {info['cpu']}, {info['cores']} cores, Python {info['python']}, "
        + ", ".join(f"{k} {v}" for k, v in info["versions"].items() if v),
        f"{settings['threads']} thread(s), {settings['clock']} clock, "
        f"{settings['rounds']} interleaved samples each; load average when done: "
        f"{info['load_average_1min']:.2f}"
        + ("  (busy machine: numbers are noisy)" if info["load_average_1min"] > 1 else ""),
    ]
    header = (
        f"  {'implementation':20s} {'metric':12s} {'median':>11s} {'IQR':>6s} "
        f"{'vs torch':>9s} {'first loss':>11s}"
    )
    workload = None
    for r in table:
        if r["workload"] != workload:
            workload = r["workload"]
            lines += ["", f"{workload}  {DESCRIPTIONS[workload]}", header]
        iqr = (r["p75_s"] - r["p25_s"]) / r["median_s"] * 100
        ratio = f"{r['ratio_to_torch']:8.2f}x" if r["ratio_to_torch"] else "        -"
        lines.append(
            f"  {r['impl']:20s} {r['metric']:12s} {_time(r['median_s'])} {iqr:5.0f}% "
            f"{ratio} {r['first_loss']:11.5g}"
        )
    if jit:
        lines += [
            "",
            f"numba, fresh process: import minigrad {jit['import_minigrad_s']:.2f} s; "
            f"first CNN step cold (compile) {jit['cold_first_step_s']:.1f} s, "
            f"warm (cached) {jit['warm_first_step_s']:.2f} s",
        ]
    if goals:
        lines += ["", "targets (issue 4; W5, W6: issue 21):"]
        for g in goals:
            lines.append(
                f"  {'met   ' if g['met'] else 'MISSED'} {g['target']:40s} "
                f"measured {g['value']:.3g}"
            )
    return "\n".join(lines)


def write_json(
    path: str, table: list[dict], goals: list[dict], jit: dict | None, info: dict, settings: dict
) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    doc = {
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": info,
        "settings": settings,
        "workloads": DESCRIPTIONS,
        "results": table,
        "jit": jit,
        "targets": goals,
    }
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
