"""Run sweep cases outside pytest and report where they disagree with known_failures.py.

    python -m tests.sweep.triage [--full] [--op NAME ...] [--check KIND ...] [--jobs N] [--out FILE]

Prints the cases that fail without an entry (new mismatches: fix minigrad or add an entry) and
the cases an entry covers that pass (fixed: remove or narrow the entry). ``--out`` writes every
failing case with its first problem as JSON lines, for drafting entries.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from collections import Counter

from . import cases
from .known import entry_for


def _run(index_and_full: tuple[int, bool]) -> tuple[int, list[str]]:
    index, full = index_and_full
    pool = cases.all_cases() if full else cases.ci_cases()
    try:
        return index, cases.run(pool[index])
    except Exception as exc:  # a harness bug must not stop the triage
        return index, [f"harness error: {type(exc).__name__}: {exc}"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="every case, not the CI sample")
    parser.add_argument("--op", action="append", help="only these ops (repeatable)")
    parser.add_argument("--check", action="append", help="only these checks, e.g. jvp (repeatable)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", help="write failing cases as JSON lines here")
    args = parser.parse_args(argv)
    pool = cases.all_cases() if args.full else cases.ci_cases()
    todo = [
        i
        for i, c in enumerate(pool)
        if (not args.op or c.op.name in args.op) and (not args.check or c.kind in args.check)
    ]
    with multiprocessing.get_context("fork").Pool(args.jobs) as workers:
        results = dict(workers.imap_unordered(_run, [(i, args.full) for i in todo], 64))
    new, fixed, failing = [], [], []
    for i in todo:
        case, problems = pool[i], results[i]
        entry = entry_for(case)
        if problems:
            failing.append(
                {
                    "id": case.id,
                    "op": case.op.name,
                    "sample": case.sample_id,
                    "check": case.check,
                    "problem": problems[0],
                }
            )
        if problems and entry is None:
            new.append((case.id, problems[0]))
        elif not problems and entry is not None:
            fixed.append((case.id, entry))
    if args.out:
        with open(args.out, "w") as f:
            for row in failing:
                f.write(json.dumps(row) + "\n")
    for cid, problem in new:
        print(f"NEW   {cid}\n      {problem}")
    for cid, entry in fixed:
        print(f"FIXED {cid}  (entry {entry.op} {entry.sample} {entry.check})")
    by_op = Counter(cid.split(":")[0] for cid, _ in new)
    print(f"{len(todo)} cases, {len(failing)} failing, {len(new)} new, {len(fixed)} fixed")
    if by_op:
        print("new by op:", ", ".join(f"{k} {v}" for k, v in by_op.most_common()))
    return 1 if new or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
