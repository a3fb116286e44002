"""The sweep's `version` check (observe.py): minigrad agrees with torch on each case."""

from .cases import run

CHECK = "version"


def test_version(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
