"""Shrink a failing program to a few lines, and print it as a snippet anyone can run.

The shrinker drops lines (first in chunks, then one at a time) and keeps each cut after which the
two libraries still differ somewhere; it stops when no single line can go. `snippet` writes the
result as a script: `import torch` (or `import minigrad as torch`), the hooks' prelude, the lines,
and a last line printing what the hooks logged.
"""

from __future__ import annotations

from collections.abc import Callable

from .programs import PRELUDE


def shrink(lines: list[str], fails: Callable[[list[str]], bool]) -> list[str]:
    current = list(lines)
    chunk = max(1, len(current) // 2)
    while chunk >= 1:
        start = len(current) - chunk
        while start >= 0:
            trial = current[:start] + current[start + chunk :]
            if trial and fails(trial):
                current = trial
            start -= chunk
        chunk //= 2
    return current


def snippet(lines: list[str], where: str = "") -> str:
    body = "\n".join(lines)
    note = f"  # {where}" if where else ""
    return (
        f"import torch  # or: import minigrad as torch{note}\n"
        f"{PRELUDE.strip()}\n\n{body}\nprint(LOG)\n"
    )
