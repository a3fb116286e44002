"""Which known-failures entry (known_failures.py) covers a case, indexed by op name."""

from __future__ import annotations

from fnmatch import fnmatchcase
from functools import cache

from .cases import Case
from .known_failures import KF, KNOWN


@cache
def _by_op() -> dict[str, list[KF]]:
    index: dict[str, list[KF]] = {}
    for entry in KNOWN:
        for op in (entry.op,) if isinstance(entry.op, str) else entry.op:
            index.setdefault(op, []).append(entry)
    return index


def matches(text: str, pattern: str) -> bool:
    """A glob; a leading "!" negates it ("!forward": every check but the forward)."""
    if pattern.startswith("!"):
        return not fnmatchcase(text, pattern[1:])
    return fnmatchcase(text, pattern)


def entry_for(case: Case) -> KF | None:
    sample, check = case.sample_id, case.check
    for entry in _by_op().get(case.op.name, ()):
        if matches(sample, entry.sample) and matches(check, entry.check):
            return entry
    return None
