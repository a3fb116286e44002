"""The sweep's `forward` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "forward"


def test_forward(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
