"""One fuzzing round: generate a program, run it in both libraries, shrink what differs."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from .differ import first_difference
from .execute import run
from .programs import generate
from .shrink import shrink, snippet


@dataclass
class Finding:
    seed: int
    step: int
    why: str
    lines: list[str]

    def report(self) -> str:
        where = f"seed {self.seed}, differs at line {self.step + 1}: {self.why}"
        return f"{where}\n\n{snippet(self.lines, f'fuzz seed {self.seed}')}"


def differs(lines: list[str], torch: ModuleType, minigrad: ModuleType) -> tuple[int, str] | None:
    return first_difference(run(lines, torch), run(lines, minigrad))


def fuzz(seed: int, torch: ModuleType, minigrad: ModuleType) -> Finding | None:
    """The shrunk program of `seed` if the libraries differ on it, else None."""
    lines = generate(seed)
    found = differs(lines, torch, minigrad)
    if found is None:
        return None
    small = shrink(lines[: found[0] + 1], lambda ls: differs(ls, torch, minigrad) is not None)
    step, why = differs(small, torch, minigrad)
    return Finding(seed, step, why, small)
