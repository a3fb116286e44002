"""The sweep's own bookkeeping: the table covers minigrad's public surface, the known-failures
table names real ops and cases, and the CI sample reaches every op and check."""

from __future__ import annotations

from collections import Counter, defaultdict

from .cases import all_cases, ci_cases
from .known import entry_for
from .known_failures import KNOWN
from .opinfo import BY_NAME, MISSING
from .surface import has_op, public_ops


def test_every_public_op_is_in_the_table():
    missing = sorted(public_ops() - set(BY_NAME))
    assert not missing, f"public ops without samples in tests/sweep/opinfo.py: {missing}"


def test_table_ops_exist_unless_listed_missing():
    absent = sorted(n for n in BY_NAME if not has_op(n) and n not in MISSING)
    assert not absent, f"ops minigrad lacks, not in opinfo.MISSING: {absent}"


def test_missing_ops_are_missing():
    present = sorted(n for n in MISSING if has_op(n))
    assert not present, f"minigrad has these now: remove them from opinfo.MISSING: {present}"


def test_case_ids_are_unique():
    counts = Counter(c.id for c in all_cases())
    assert not [i for i, n in counts.items() if n > 1][:5]


def test_known_failures_name_table_ops():
    unknown = {op for e in KNOWN for op in ((e.op,) if isinstance(e.op, str) else e.op)}
    assert not sorted(unknown - set(BY_NAME))


def test_every_known_failure_covers_a_case():
    """An entry no case reaches (a typo, or shadowed by an earlier entry) must go."""
    used = {id(entry_for(c)) for c in all_cases()}
    dead = [e for e in KNOWN if id(e) not in used]
    assert not dead, f"entries matching no case: {dead[:5]}"


def test_ci_sample_reaches_every_op_and_check():
    full, ci = defaultdict(set), defaultdict(set)
    for c in all_cases():
        full[c.op.name].add(c.kind)
    for c in ci_cases():
        ci[c.op.name].add(c.kind)
    gaps = {op: sorted(kinds - ci[op]) for op, kinds in full.items() if kinds - ci[op]}
    assert not gaps
