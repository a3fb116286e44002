"""The sweep's `grad` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "grad"


def test_grad(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
