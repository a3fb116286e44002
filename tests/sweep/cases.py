"""The cross product: op x sample x layout x value kind x dtype x check (x seed), its fixed CI
sample, and running one case on both libraries.

Crossing rules (one factor at a time around each sample, so the product stays near a hundred
thousand): every sample runs contiguous with every value kind and dtype combo of its op; the
layouts (T, s, e, same) run with "n" values and single dtypes. float64 gets every check
(backward once per seed); float32 the forward, backward (rand, nan) and grad; promotions with a
float the forward, backward (rand) and grad; the rest, error samples, and ops without gradients
the forward alone.
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import torch
from ops._support import rng_for

import minigrad

from .compare import compare
from .observe import CHECKS, Ctx, Recorder
from .opinfo import TABLE
from .seeds import SEEDS
from .spec import OpInfo, Sample
from .values import has_same, layout_applies, plan

# The CI part: every case whose id hashes below CI_RATE, plus each op's first sample (contiguous,
# first value kind, first dtype and float64) with every check it has, so every op and check runs.
# Fixed: change CI_SALT to draw another sample.
CI_RATE = 0.15
CI_SALT = "sweep-ci-1"

FLOAT_CHECKS = (
    "forward",
    *(f"backward.{s}" for s in SEEDS),
    "grad.noncontig",
    "accumulate.rand",
    "double.rand",
    "hook.rand",
    "anomaly",
    "version.rand",
    "jvp.rand",
)
# float32 second-order gradients cancel down to rounding noise (x / x): float64 covers them
F32_CHECKS = ("forward", "backward.rand", "backward.nan", "grad.noncontig", "jvp.rand")
PROMOTION_CHECKS = ("forward", "backward.rand", "grad.rand")


@dataclass(frozen=True, eq=False)
class Case:
    op: OpInfo
    sample: Sample
    layout: str
    values: str
    dtype: str
    check: str  # "backward.nan": the check, then its seed

    @property
    def sample_id(self) -> str:
        return f"{self.sample.name}/{self.layout}/{self.values}/{self.dtype}"

    @property
    def id(self) -> str:
        return f"{self.op.name}:{self.sample_id}/{self.check}"

    @property
    def kind(self) -> str:
        return self.check.split(".")[0]


def _checks(op: OpInfo, sample: Sample, dtype: str) -> tuple[str, ...]:
    parts = dtype.split("+")
    floats = [p in ("f32", "f64") for p in parts]
    if sample.error or not op.grad or op.random or not any(floats):
        return ("forward",)
    if dtype == "f64":
        return FLOAT_CHECKS
    return F32_CHECKS if dtype == "f32" else PROMOTION_CHECKS


def _layouts(op: OpInfo, sample: Sample) -> list[str]:
    if not sample.crossed or sample.error:
        return []
    shapes = [a.shape for a in sample.tensors()]
    found = [
        lay for lay in op.layouts if lay != "same" and any(layout_applies(lay, s) for s in shapes)
    ]
    if "same" in op.layouts and has_same(sample):
        found.append("same")
    return found


def op_cases(op: OpInfo) -> Iterator[Case]:
    for sample in op.samples:
        combos = sample.dtypes or op.dtypes
        if sample.error:
            combos = combos[:1]
        for dtype in combos:
            single, floats = "+" not in dtype, dtype in ("f32", "f64")
            kinds = op.values if floats else [k for k in op.values if k in ("n", "k")]
            if not sample.crossed or sample.error or not single:
                kinds = kinds[:1]
            runs = [("c", k) for k in kinds]
            if single:
                runs += [(lay, "n") for lay in _layouts(op, sample)]
            for layout, kind in runs:
                for check in _checks(op, sample, dtype):
                    yield Case(op, sample, layout, kind, dtype, check)


@cache
def all_cases() -> tuple[Case, ...]:
    return tuple(c for op in TABLE for c in op_cases(op))


def _anchor(case: Case) -> bool:
    s = case.op.samples[0]
    return case.sample is s and case.layout == "c" and case.values == case.op.values[0]


def in_ci(case: Case) -> bool:
    if _anchor(case) and case.dtype in ((case.sample.dtypes or case.op.dtypes)[0], "f64"):
        return True
    return zlib.crc32(f"{CI_SALT}:{case.id}".encode()) < CI_RATE * 2**32


@cache
def ci_cases() -> tuple[Case, ...]:
    return tuple(c for c in all_cases() if in_ci(c))


# --- running -------------------------------------------------------------------------------


def observe(case: Case, lib) -> list:
    sample = case.sample
    rng = rng_for(f"{sample.name}/{case.layout}/{case.values}/{case.dtype}")
    planned = plan(sample, case.layout, case.values, case.dtype, case.op.domain, rng)
    clone = "first" if case.op.inplace and not sample.leaf else ""
    seed = case.check.split(".")[1] if "." in case.check else "rand"
    ctx = Ctx(case.op, planned, clone, seed, case.id)
    rec = Recorder(random=case.op.random)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        CHECKS[case.kind](lib, ctx, rec)
    return rec.obs


def run(case: Case) -> list[str]:
    """Every difference between minigrad and PyTorch on this case (empty: they agree)."""
    expected = observe(case, torch)
    if case.sample.error and not any(label == "raises" for _, label, _ in expected):
        return [f"sample {case.sample.name!r} is declared an error but PyTorch does not raise"]
    floor = "float32" if "f32" in case.dtype else ""
    return compare(expected, observe(case, minigrad), floor)
