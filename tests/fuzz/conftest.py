"""Which programs the fuzzer runs: a fixed sample by default (about a minute, in CI), many
more when the marker expression selects `fuzz` (`pytest -m fuzz tests/fuzz`; `FUZZ_PROGRAMS`
sets how many, 50,000 by default, from seed 1,000,000 on so they never repeat the sample)."""

from __future__ import annotations

import os

import pytest

CHUNK = 250
SAMPLE = range(0, 8000)
WIDE_START = 1_000_000


def wide(config: pytest.Config) -> bool:
    expr = config.getoption("markexpr", "") or ""
    return "fuzz" in expr and "not fuzz" not in expr


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "seeds" not in metafunc.fixturenames:
        return
    if wide(metafunc.config):
        count = int(os.environ.get("FUZZ_PROGRAMS", "50000"))
        seeds, marks = range(WIDE_START, WIDE_START + count), [pytest.mark.fuzz]
    else:
        seeds, marks = SAMPLE, []
    chunks = [seeds[i : i + CHUNK] for i in range(0, len(seeds), CHUNK)]
    params = [pytest.param(c, id=f"{c[0]}-{c[-1]}", marks=marks) for c in chunks]
    metafunc.parametrize("seeds", params)
