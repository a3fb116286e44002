"""The sweep's `hook` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "hook"


def test_hook(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
