"""Issue 9, "a house you can read": every module of minigrad/ops/ keeps one fixed order.

The node class(es) an op records come first, immediately followed by the forward function(s)
that record them. Checked on the source (ast), for every top-level function that records a node
class of its own module: through `record(...)`, `record_many(...)` or `formula.result(...)` with
the class as first argument, either named there or held in a local name (`cls = A if x else B`),
or passed to a helper of the module that records its parameter (`_unary(ExpBackward0, ...)`).

For each such class C and function F: C stands above F, and no other function recording a
different node class stands between them, except
- a nested group: a function recording a class defined between C and itself (a double-backward
  node and its forward, right after the node whose backward records them), and
- the other forwards of the same group: a group may hold several nodes in one run of classes,
  followed directly by their forwards (`SubBackward0`, `RsubBackward1`, then `sub`, `rsub`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

import pytest

OPS = Path(__file__).resolve().parents[1] / "minigrad" / "ops"


def _is_record_call(call: ast.Call) -> bool:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id in ("record", "record_many")
    return (
        isinstance(f, ast.Attribute)
        and f.attr == "result"
        and isinstance(f.value, ast.Name)
        and f.value.id == "formula"
    )


def _param_names(fn: ast.FunctionDef) -> list[str]:
    a = fn.args
    return [p.arg for p in (*a.posonlyargs, *a.args)]


@dataclass
class _Function:
    node: ast.FunctionDef
    index: int
    aliases: dict[str, set[str]] = field(default_factory=dict)
    records: set[str] = field(default_factory=set)


@dataclass
class Layout:
    """A module's top-level statements, its node classes and what each function records."""

    path: str
    body: list[ast.stmt]
    classes: dict[str, int]  # class name -> index in body
    functions: list[_Function]

    def records(self, index: int) -> set[str]:
        return next((f.records for f in self.functions if f.index == index), set())


def read_layout(source: str, path: str) -> Layout:
    body = ast.parse(source).body
    classes = {n.name: i for i, n in enumerate(body) if isinstance(n, ast.ClassDef)}
    functions = [_Function(n, i) for i, n in enumerate(body) if isinstance(n, ast.FunctionDef)]

    def resolve(expr: ast.expr | None, fn: _Function) -> set[str]:
        if isinstance(expr, ast.Name):
            if expr.id in classes:
                return {expr.id}
            return fn.aliases.get(expr.id, set())
        return set()

    # local names bound to node classes, and helpers that record one of their parameters
    helpers: dict[str, tuple[int, str]] = {}
    for fn in functions:
        for n in ast.walk(fn.node):
            if isinstance(n, ast.Assign) and len(n.targets) == 1:
                target = n.targets[0]
                if isinstance(target, ast.Name):
                    names = {x.id for x in ast.walk(n.value) if isinstance(x, ast.Name)}
                    if names & classes.keys():
                        fn.aliases.setdefault(target.id, set()).update(names & classes.keys())
        params = _param_names(fn.node)
        for n in ast.walk(fn.node):
            if isinstance(n, ast.Call) and _is_record_call(n) and n.args:
                first = n.args[0]
                fn.records |= resolve(first, fn)
                if isinstance(first, ast.Name) and first.id in params:
                    helpers[fn.node.name] = (params.index(first.id), first.id)
    for fn in functions:
        for n in ast.walk(fn.node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in helpers:
                pos, name = helpers[n.func.id]
                arg = n.args[pos] if pos < len(n.args) else None
                arg = next((k.value for k in n.keywords if k.arg == name), arg)
                fn.records |= resolve(arg, fn)
    return Layout(path, body, classes, functions)


def _class_run(layout: Layout, index: int) -> range:
    """The unbroken run of top-level class definitions holding body[index]."""
    lo = hi = index
    while lo > 0 and isinstance(layout.body[lo - 1], ast.ClassDef):
        lo -= 1
    while hi + 1 < len(layout.body) and isinstance(layout.body[hi + 1], ast.ClassDef):
        hi += 1
    return range(lo, hi + 1)


def _same_group(layout: Layout, c: int, other: str, g: int) -> bool:
    """`other` stands in C's run of classes, which its forwards follow directly up to G."""
    run = _class_run(layout, c)
    if layout.classes[other] not in run:
        return False
    names = {layout.body[i].name for i in run}
    return all(
        0 < len(layout.records(i)) and layout.records(i) <= names for i in range(run[-1] + 1, g)
    )


def layout_errors(source: str, path: str) -> list[str]:
    layout = read_layout(source, path)
    errors = []
    for fn in layout.functions:
        f, name = fn.index, fn.node.name
        for cls in sorted(fn.records):
            c = layout.classes[cls]
            line = layout.body[c].lineno
            if c > f:
                errors.append(
                    f"{path}: {name} (line {fn.node.lineno}) records {cls}, which is defined "
                    f"below it (line {line}): the node class comes first"
                )
                continue
            stray = next(
                (
                    (g, other)
                    for g in range(c + 1, f)
                    if cls not in layout.records(g)
                    for other in sorted(layout.records(g))
                    if not (c < layout.classes[other] < g or _same_group(layout, c, other, g))
                ),
                None,
            )
            if stray is not None:
                stmt = layout.body[stray[0]]
                errors.append(
                    f"{path}: {stmt.name} (line {stmt.lineno}, records {stray[1]}) stands "
                    f"between {cls} (line {line}) and {name} (line {fn.node.lineno}), which "
                    f"records it: {name} belongs right after {cls}'s group of classes"
                )
    return errors


MODULES = sorted(OPS.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(OPS).as_posix())
def test_nodes_stand_right_above_the_forwards_that_record_them(path: Path) -> None:
    rel = path.relative_to(OPS.parents[1]).as_posix()
    errors = layout_errors(path.read_text(), rel)
    assert not errors, "\n".join(errors)


def test_the_check_sees_the_recording_forwards() -> None:
    """Guard against a vacuous pass: the ops modules record dozens of their own node classes."""
    pairs = {}
    for path in MODULES:
        layout = read_layout(path.read_text(), path.name)
        pairs[path.relative_to(OPS).as_posix()] = {
            (fn.node.name, c) for fn in layout.functions for c in fn.records
        }
    assert ("add", "AddBackward0") in pairs["elementwise.py"]
    assert ("exp", "ExpBackward0") in pairs["elementwise.py"]  # through _unary
    assert ("split", "SplitWithSizesBackward0") in pairs["split.py"]  # through a local name
    assert ("conv2d_input_grad", "ConvInputGrad") in pairs["nn/conv.py"]  # formula.result
    assert sum(len(p) for p in pairs.values()) > 80


def test_the_check_catches_a_mixed_layout() -> None:
    mixed = """
class AddBackward0(Node):
    pass


class SubBackward0(Node):
    pass


class MulBackward0(Node):
    pass


def add(a, b):
    return record(AddBackward0, a, (a, b))


def _helper():
    pass


def sub(a, b):
    return record(SubBackward0, a, (a, b))


def mul(a, b):
    return record(MulBackward0, a, (a, b))


def where(c, a, b):
    return record(WhereBackward0, a, (a, b))


class WhereBackward0(Node):
    pass
"""
    errors = layout_errors(mixed, "mixed.py")
    assert any("where (line" in e and "WhereBackward0" in e and "below" in e for e in errors)
    assert any("sub (line" in e and "MulBackward0" in e and "mul (line" in e for e in errors)


def test_groups_may_nest_and_hold_several_nodes() -> None:
    grouped = """
def _check_sub(a, b):
    pass


class SubBackward0(Node):
    pass


class RsubBackward1(Node):
    pass


def sub(a, b):
    return record(SubBackward0, a, (a, b))


def rsub(a, b):
    return record(RsubBackward1, a, (a,))


class ReluBackward0(Node):
    pass


class ThresholdBackwardBackward0(Node):
    pass


def threshold_backward(g, r):
    return record(ThresholdBackwardBackward0, g, (g, r))


def relu(a):
    return record(ReluBackward0, a, (a,))
"""
    assert layout_errors(grouped, "grouped.py") == []
