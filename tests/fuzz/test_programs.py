"""Random programs mixing views, in-place writes, hooks, grad modes and repeated backward, run
under PyTorch and minigrad: every difference fails with its program shrunk to a few lines. A
quarter of the sample runs on the plain-numpy kernels (the path wherever numba is missing)."""

from __future__ import annotations

import pytest

import minigrad
from minigrad import kernels

from .fuzzing import fuzz

torch = pytest.importorskip("torch")


@pytest.fixture
def backend(seeds: range):
    """The numpy kernels for every fourth chunk, numba (where installed) for the rest."""
    before = kernels.backend()
    kernels.use("numpy" if (seeds[0] // len(seeds)) % 4 == 3 else before)
    yield kernels.backend()
    kernels.use(before)


def test_programs_agree_with_pytorch(seeds: range, backend: str) -> None:
    findings = [f for f in (fuzz(seed, torch, minigrad) for seed in seeds) if f is not None]
    reports = "\n\n".join(f.report() for f in findings[:3])
    assert not findings, f"{len(findings)} of {len(seeds)} programs differ ({backend}):\n{reports}"
