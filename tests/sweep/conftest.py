"""Parametrize the sweep's tests: the fixed CI sample by default, every case when the marker
expression selects `sweep` (`pytest -m sweep tests/sweep`); known failures become strict xfails."""

from __future__ import annotations

import pytest

from .cases import all_cases, ci_cases
from .known import entry_for


def full_sweep(config: pytest.Config) -> bool:
    expr = config.getoption("markexpr", "") or ""
    return "sweep" in expr and "not sweep" not in expr


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" not in metafunc.fixturenames:
        return
    kind = metafunc.module.CHECK
    full = full_sweep(metafunc.config)
    params = []
    for case in all_cases() if full else ci_cases():
        if case.kind != kind:
            continue
        marks = [pytest.mark.sweep] if full else []
        entry = entry_for(case)
        if entry is not None:
            marks.append(pytest.mark.xfail(strict=True, reason=f"{entry.cls}: {entry.why}"))
        params.append(pytest.param(case, id=case.id, marks=marks))
    metafunc.parametrize("case", params)
