"""Exit 0 if the Python side of `make install` is in place, 1 (saying why) if it must be redone.

Used by the Makefile so a repeat `make test` skips pip, yet redoes the install when the stamp is
stale: torch is not exactly 2.13.0, the project is not installed, or a package directory of the
repository (minigrad/, widgets/) is not importable from outside the repository (an editable install
made before that directory existed does not see it).
"""

from __future__ import annotations

import importlib.metadata as md
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TORCH = "2.13.0"


def problems() -> list[str]:
    out = []
    try:
        torch = md.version("torch")
        if torch.split("+")[0] != TORCH:
            out.append(f"torch {torch} installed, want {TORCH}")
    except md.PackageNotFoundError:
        out.append("torch not installed")
    try:
        md.version("autograd-lab")
    except md.PackageNotFoundError:
        out.append("autograd-lab not installed")
    # look packages up as an outside process would: the Makefile runs this from `/`, so what
    # finds them is the editable install's .pth entry (the repository's own folder), nothing else
    for pkg in ("minigrad", "widgets"):
        if os.path.isfile(os.path.join(ROOT, pkg, "__init__.py")):
            spec = importlib.util.find_spec(pkg)
            if spec is None or not (spec.origin or "").startswith(os.path.join(ROOT, pkg)):
                out.append(f"{pkg} is not installed from {ROOT}")
    return out


if __name__ == "__main__":
    found = problems()
    for p in found:
        print(f"python deps: {p}")
    sys.exit(1 if found else 0)
