"""Shared by the lesson tests: labkit on the path and a way to read what a check printed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))


@pytest.fixture
def said(capsys):
    """Call a check and return what it printed."""

    def run(check, *args, **kwargs) -> str:
        check(*args, **kwargs)
        return capsys.readouterr().out

    return run


@pytest.fixture
def chinese():
    """labkit (and the explorer) speaking Chinese for one test, English again afterwards."""
    from labkit import language

    language.use("zh")
    yield
    language.use("en")


@pytest.fixture
def witness_on():
    """The lessons' witness of backward passes, as a lesson's first cell starts it."""
    from labkit import witness

    with witness.watching():
        yield


@pytest.fixture(params=["en", "zh"])
def lang(request):
    """The test once in each of the course's languages."""
    from labkit import language

    language.use(request.param)
    yield request.param
    language.use("en")
