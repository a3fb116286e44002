"""Summary of the sweep's known failures: counts per class and per op, with examples.

    python -m tests.sweep.report [--examples N] [--no-run]

Counts are cases of the full sweep (and of the CI sample) that an entry of known_failures.py
covers. Examples run the first case of N entries per class and print its first difference,
PyTorch's outcome against minigrad's.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

from .cases import all_cases, in_ci, run
from .known import entry_for
from .known_failures import KNOWN


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=2, help="examples per class")
    parser.add_argument("--no-run", action="store_true", help="no examples (no torch runs)")
    args = parser.parse_args(argv)

    cases = all_cases()
    by_entry: dict[int, list] = defaultdict(list)
    for case in cases:
        entry = entry_for(case)
        if entry is not None:
            by_entry[id(entry)].append(case)
    per_class: dict[str, Counter] = defaultdict(Counter)
    per_op: dict[str, Counter] = defaultdict(Counter)
    for entry in KNOWN:
        hit = by_entry.get(id(entry), [])
        per_class[entry.cls].update(entries=1, full=len(hit), ci=sum(map(in_ci, hit)))
        for case in hit:
            per_op[case.op.name][entry.cls] += 1

    failing = sum(c["full"] for c in per_class.values())
    print(f"{len(KNOWN)} known-failure entries cover {failing} of {len(cases)} cases\n")
    print(f"{'class':48} {'entries':>7} {'cases':>7} {'in CI':>6}  ops")
    for cls, c in sorted(per_class.items(), key=lambda kv: -kv[1]["full"]):
        ops = sorted(op for op, counts in per_op.items() if cls in counts)
        print(f"{cls:48} {c['entries']:7} {c['full']:7} {c['ci']:6}  {len(ops)}: {', '.join(ops)}")
    print("\nper op (cases by class):")
    for op, counts in sorted(per_op.items(), key=lambda kv: -sum(kv[1].values())):
        detail = ", ".join(f"{cls} {n}" for cls, n in counts.most_common())
        print(f"  {op:24} {sum(counts.values()):5}  {detail}")
    if args.no_run:
        return
    print("\nexamples (first case of an entry: the first difference, torch vs minigrad):")
    shown: Counter = Counter()
    for entry in KNOWN:
        hit = by_entry.get(id(entry), [])
        if not hit or shown[entry.cls] >= args.examples:
            continue
        shown[entry.cls] += 1
        problems = run(hit[0])
        print(f"\n[{entry.cls}] {hit[0].id}")
        print("   ", problems[0][:600] if problems else "passes now: the entry is stale")


if __name__ == "__main__":
    main()
