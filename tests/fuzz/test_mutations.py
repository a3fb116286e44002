"""The fuzzer must notice a broken minigrad: each mutation below breaks one formula or one
piece of bookkeeping the way a slip would, and within the first few hundred programs some
program must differ, shrunk to a few lines that still show the slip."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad.core.tensor import Tensor
from minigrad.ops import elementwise, formula, reduction

from .fuzzing import fuzz

torch = pytest.importorskip("torch")

SEEDS = range(300)


def _mul_swapped(self, g):
    """The two gradients returned in the wrong order: d(a*b)/da taken as a instead of b."""
    a, b = self.saved("self"), self.saved("other")
    return (None if a is None else g * a), (None if b is None else g * b)


def _exp_of_input(self, g):
    """exp's gradient off by one: g * (e^x + 1)."""
    return (g * (self.saved("result") + 1),)


def _sum_halved(self, g):
    return (formula.expand(g * 0.5, self.self_sym_sizes),)


def _no_version(self):
    """In-place writes stop counting: saved tensors written later go unnoticed."""


def _tanh_wrong(self, g):
    return (g * (1 - self.saved("result")),)


MUTATIONS = {  # name: (class, attribute, replacement, one of which the shrunk program shows)
    "mul formula": (elementwise.MulBackward0, "backward", _mul_swapped, (" * ", "mul")),
    "exp formula": (elementwise.ExpBackward0, "backward", _exp_of_input, ("exp",)),
    "tanh formula": (elementwise.TanhBackward0, "backward", _tanh_wrong, ("tanh",)),
    "sum formula": (reduction.SumBackward0, "backward", _sum_halved, ("sum",)),
    "version counter": (Tensor, "_bump", _no_version, ("_(",)),
}


@pytest.mark.parametrize("name", MUTATIONS)
def test_fuzzer_finds_a_deliberate_slip(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cls, attribute, replacement, shown = MUTATIONS[name]
    monkeypatch.setattr(cls, attribute, replacement)
    with np.errstate(all="ignore"):
        finding = next((f for f in (fuzz(s, torch, minigrad) for s in SEEDS) if f), None)
    assert finding is not None, f"{len(SEEDS)} programs and none noticed the broken {name}"
    assert len(finding.lines) <= 8, finding.report()
    assert any(op in "\n".join(finding.lines) for op in shown), finding.report()
