"""The sweep's `double` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "double"


def test_double(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
