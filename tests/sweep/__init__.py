"""Issue 10's differential sweep: every public op of minigrad against PyTorch, OpInfo style.

opinfo.py is the one table (op name, how to call it, its sample inputs); cases.py crosses it with
layouts, value kinds, dtypes, checks and gradient seeds; known_failures.py lists every known
mismatch (applied as strict xfails, so the table only shrinks). `pytest tests/sweep` runs a fixed,
seeded CI sample; `pytest -m sweep tests/sweep` runs the whole cross product;
`python -m tests.sweep.report` summarizes the known failures; `python -m tests.sweep.triage`
finds the cases that fail outside the table or pass inside it.
"""

import sys
from pathlib import Path

# tests/ on the path, as under pytest: `ops._support` and `parity` import the same way from
# `python -m tests.sweep.report` as from the test files
_TESTS = str(Path(__file__).resolve().parents[1])
if _TESTS not in sys.path:
    sys.path.insert(0, _TESTS)
