"""The sweep's `jvp` check (observe.py): forward mode and forward over reverse agree with torch."""

from .cases import run

CHECK = "jvp"


def test_jvp(case):
    problems = run(case)
    assert not problems, "\n".join(problems)
