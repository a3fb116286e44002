"""The sweep's `anomaly` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "anomaly"


def test_anomaly(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
