"""The sweep's `backward` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "backward"


def test_backward(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
