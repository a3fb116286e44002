"""Draft known_failures.py entries from failing cases (triage.py --out), for a person to review.

    python -m tests.sweep.draft FAILURES.jsonl > entries.py

Per op, a greedy cover by the most general patterns (each token of ``name/layout/values/dtype``
kept or ``*``; the check exact, any seed, every check or every check but the forward) that match
only failing cases among every case of the full sweep (strict xfails need patterns that match no
passing case); each entry takes the class (classify.py) most of its cases have, and ops whose
entries are equal share one.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections import Counter, defaultdict

from . import classify as classify_module
from . import known
from .cases import all_cases
from .classify import classify

Key = tuple[str, str, str, str, str]  # name, layout, values, dtype, check


def key_of(sample_id: str, check: str) -> Key:
    name, layout, values, dtype = sample_id.rsplit("/", 3)
    return (name, layout, values, dtype, check)


def _check_patterns(check: str) -> list[str]:
    kind = check.split(".")[0]
    out = [check, f"{kind}*", "*"]
    return out if kind == "forward" else [*out, "!forward"]


def matches(pattern: tuple, key: Key) -> bool:
    *sample, check = pattern
    if not all(p is None or p == k for p, k in zip(sample, key)):
        return False
    return known.matches(key[4], check)


def patterns_of(key: Key) -> list[tuple]:
    out = []
    for mask in itertools.product((False, True), repeat=4):
        sample = tuple(None if m else k for m, k in zip(mask, key))
        out += [(*sample, c) for c in _check_patterns(key[4])]
    return out


def cover(failing: set[Key], passing: set[Key]) -> list[tuple]:
    """Patterns covering ``failing`` and matching nothing in ``passing``, most general first."""
    candidates: dict[tuple, set[Key]] = {}
    for key in failing:
        for p in patterns_of(key):
            if p not in candidates and not any(matches(p, o) for o in passing):
                candidates[p] = {k for k in failing if matches(p, k)}
    chosen, left = [], set(failing)
    while left:
        best = max(candidates, key=lambda p: (len(candidates[p] & left), sum(x is None for x in p)))
        chosen.append(best)
        left -= candidates[best]
    return chosen


def render(pattern: tuple) -> tuple[str, str]:
    *sample, check = pattern
    text = "/".join("*" if x is None else x for x in sample)
    return ("*" if text == "*/*/*/*" else text), check


def summary(problem: str) -> str:
    """The problem, shortened for the table: where, then torch's outcome and minigrad's."""
    text = " ".join(problem.split())
    text = re.sub(r"\d+ of \d+ values differ, first at \([^)]*\): ", "", text)
    text = text.replace(" w.r.t. inputs and seeds", "").replace(
        "grads of sum(grad * w)", "grad of grad"
    )
    return text[:160].replace('"', "'").replace("\\", "")


def entries(rows: list[dict]) -> list[tuple]:
    """(ops, sample, check, class, why) drafts, alias ops with equal patterns merged."""
    universe: dict[str, set[Key]] = defaultdict(set)
    for c in all_cases():
        universe[c.op.name].add(key_of(c.sample_id, c.check))
    failing: dict[str, dict[Key, dict]] = defaultdict(dict)
    for r in rows:
        failing[r["op"]][key_of(r["sample"], r["check"])] = r
    merged: dict[tuple, list] = {}
    for op, found in sorted(failing.items()):
        for p in cover(set(found), universe[op] - set(found)):
            hit = [r for k, r in found.items() if matches(p, k)]
            classes = Counter(classify(r["check"], r["problem"], op) for r in hit)
            cls = classes.most_common(1)[0][0]
            example = next(r for r in hit if classify(r["check"], r["problem"], op) == cls)
            why = summary(example["problem"])
            sample, check = render(p)
            merged.setdefault((sample, check, cls), [[], why])[0].append(op)
    return [(tuple(ops), s, c, cls, why) for (s, c, cls), (ops, why) in merged.items()]


def main(path: str) -> None:
    """Print a KNOWN table for known_failures.py, grouped by class (classify.py's constants)."""
    rows = [json.loads(line) for line in open(path)]
    names = {v: k for k, v in vars(classify_module).items() if k.isupper() and isinstance(v, str)}
    drafted = sorted(entries(rows), key=lambda e: (e[3], e[0], e[1], e[2]))
    print("# fmt: off\nKNOWN: tuple[KF, ...] = (")
    for cls, group in itertools.groupby(drafted, key=lambda e: e[3]):
        print(f"    # --- {cls}")
        for ops, sample, check, _, why in group:
            op = f'"{ops[0]}"' if len(ops) == 1 else "(" + ", ".join(f'"{o}"' for o in ops) + ")"
            print(f'    KF({op}, "{sample}", "{check}", {names[cls]}, "{why}"),')
    print(")\n# fmt: on")


if __name__ == "__main__":
    main(sys.argv[1])
