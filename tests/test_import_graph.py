"""minigrad reads bottom-up: no import circle, and only a few imports hidden inside functions.

The graph is counted the way Python runs imports (see import_graph.py): an import inside a
function counts, and so does the package `__init__` an import runs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from import_graph import ROOT, build, circles  # noqa: E402

MAX_LOCAL_IMPORTS = 8
FLOORS = {  # each may import only from floors at or below its own number
    "minigrad.core": 0,
    "minigrad.kernels": 0,
    "minigrad.ops": 1,
    "minigrad.creation": 1,
    "minigrad.autograd": 2,
    "minigrad.nn": 3,
    "minigrad.func": 3,
    "minigrad.optim": 3,
    "minigrad.utils": 3,
    "minigrad.serialization": 3,
    "minigrad.amp": 3,  # autocast blocks and GradScaler (work with optimizers)
    "minigrad.distributions": 3,
}


def _floor(module: str) -> int | None:
    for prefix, floor in FLOORS.items():
        if module == prefix or module.startswith(prefix + "."):
            return floor
    return None  # the top-level package re-exports everything


@pytest.mark.parametrize("package", ["minigrad", "widgets"])
def test_no_import_circle(package: str) -> None:
    graph, _ = build(ROOT / package)
    assert graph, f"no modules found in {package}"
    assert circles(graph) == []


def test_few_function_local_imports_each_with_a_reason() -> None:
    _, local = build(ROOT / "minigrad")
    assert len(local) <= MAX_LOCAL_IMPORTS, [f"{i.module}:{i.line}" for i in local]
    assert [f"{i.module}:{i.line}" for i in local if not i.reason] == []


def test_imports_only_go_down_the_floors() -> None:
    graph, _ = build(ROOT / "minigrad")
    upward = [
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if _floor(module) is not None
        and _floor(target) is not None
        and _floor(target) > _floor(module)
    ]
    assert upward == []


def test_the_circle_finder_finds_circles() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_counts_local_imports_and_package_inits(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import deep\n")
    (pkg / "sub" / "deep.py").write_text("from ..low import x\n")
    (pkg / "low.py").write_text("def f():\n    from .sub.deep import y  # why\n")
    graph, local = build(pkg)
    assert graph["pkg.low"] == {"pkg.sub", "pkg.sub.deep"}  # running pkg.sub's __init__ too
    assert circles(graph) == [["pkg.low", "pkg.sub", "pkg.sub.deep"]]
    assert [(i.module, i.reason) for i in local] == [("pkg.low", "why")]
