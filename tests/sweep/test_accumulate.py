"""The sweep's `accumulate` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "accumulate"


def test_accumulate(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
