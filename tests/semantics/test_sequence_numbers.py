"""Sequence numbers (`node._sequence_nr()`) of every node of many small random programs, against
PyTorch's.

Lesson 12 orders its ready queue by them and prints them, so they must match PyTorch's: numbers
count the backward nodes in creation order with no gaps (an AccumulateGrad uses no number up: it
reports UINT64_MAX), whatever else the program does. The programs are the fuzzer's (leaves,
elementwise ops, reductions, views, in-place ops on views and bases, grad-mode blocks, hooks,
retain_grad, autograd.grad with create_graph, repeated backward), with lines of this file's own
mixed in: custom Functions (one output, two outputs, in place with mark_dirty, a marked
non-differentiable output), a leaf's AccumulateGrad reached through `grad_fn.next_functions`,
in-place writes through views (CopySlices) by values that need the old one kept, and a
grad_fn looked at. Each library's counter runs on from earlier work, so numbers are
compared relative to a node the program makes first, and the number the next node would get
is compared too: PyTorch also numbers nodes it makes and drops at once (a GraphRoot above
several roots, an Identity for an input no graph has reached, the clone of the old value an
in-place op keeps, a view's re-derived history that an in-place write rebases at once), and a
custom Function's node is made after its inputs' edges (a view's re-derived history first).

Known differences, left out here: an op that fails in its kernel has made its node in
PyTorch (minigrad checks before it records), so the programs keep only lines PyTorch runs;
under create_graph PyTorch's mul, div and pow work out the second operand's gradient first
(pinned by the xfail test at the end).
"""

from __future__ import annotations

import random
import re
import warnings
from typing import Any

import numpy as np
import pytest
from fuzz.programs import PRELUDE, generate
from parity import load_lib

UINT64_MAX = 2**64 - 1
NAME = re.compile(r"^[tf]\d+$")

FUNCTIONS = """
class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


class Halves(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 0.5, x * 1.5

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 0.5 + g2 * 1.5


class AddOneInPlace(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class WithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        flags = (x > 0).float()
        ctx.mark_non_differentiable(flags)
        return x * 3, flags

    @staticmethod
    def backward(ctx, g, g_flags):
        return g * 3


_base = (torch.ones(1, requires_grad=True) * 1).grad_fn._sequence_nr()
"""


def _extra(rng: random.Random, names: list[str], count: int) -> str | None:
    """One of this file's own lines, using tensors the program has named so far."""
    if not names:
        return None
    t = rng.choice(names)
    kind = rng.randrange(8)
    if kind == 0:
        return f"f{count} = Twice.apply({t})"
    if kind == 1:
        return f"f{count}, f{count + 1} = Halves.apply({t})"
    if kind == 2:
        return f"f{count} = AddOneInPlace.apply({t} * 1)"
    if kind == 3:
        return f"f{count}, f{count + 1} = WithIndex.apply({t})"
    if kind == 4:  # a leaf's AccumulateGrad made through the graph, then an op using the leaf
        return f"_ = [n for n, _ in {t}.grad_fn.next_functions] if {t}.grad_fn else None"
    if kind == 5:
        return f"f{count} = ({t} * 1).sum()"
    if kind == 6:
        return f"with torch.no_grad(): f{count} = {t} * 2"
    # in place through a view (CopySlices), by a value that needs the old one kept
    return f"f{count} = {t} * 1; f{count}.view(-1)[:1].mul_({t}.view(-1)[:1])"


def program(seed: int) -> list[str]:
    """The fuzzer's program of `seed` with this file's lines mixed in, keeping the lines that
    run in PyTorch. (An op that fails in its kernel has already made its node there, and so
    used a number up; minigrad checks before it records, so a failed op uses none. That is a
    difference this file leaves out.)"""
    lines = _written(seed)
    return [line for line, err in zip(lines, _run(lines, "torch")[1], strict=True) if err is None]


def _written(seed: int) -> list[str]:
    """The fuzzer's program of `seed` with this file's lines mixed in."""
    rng = random.Random(seed * 7919 + 1)
    lines, names, count = [], [], 0
    for line in generate(seed, max_steps=18):
        lines.append(line)
        names += [n for n in re.findall(r"\bt\d+\b", line.split("=")[0]) if n not in names]
        if rng.random() < 0.3:
            extra = _extra(rng, names, count)
            if extra is not None:
                lines.append(extra)
                count += 2
    return lines


def _walk(root: Any) -> list:
    """Every node reachable from root, in a fixed depth-first order."""
    seen, order, stack = set(), [], [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(reversed([n for n, _ in node.next_functions]))
    return order


def _run(lines: list[str], lib_name: str) -> tuple[dict, list]:
    """Run the program: its namespace, and each line's error (or None)."""
    lib = load_lib(lib_name)
    env: dict[str, Any] = {"torch": lib}
    exec(PRELUDE, env)
    exec(FUNCTIONS, env)
    errors = []
    try:
        for line in lines:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    exec(line, env)
                    errors.append(None)
                except Exception as err:  # noqa: BLE001 - an error is part of the program's path
                    errors.append(type(err).__name__)
    finally:
        lib.set_grad_enabled(True)
    return env, errors


def numbers(lines: list[str], lib_name: str) -> list:
    """Run the program; each line's error, then for each named tensor with a grad_fn, its
    graph's nodes and numbers, and last the number a new node gets."""
    env, errors = _run(lines, lib_name)
    base = env["_base"]
    seen: list = [("errors", errors)]
    for name in sorted((n for n in env if NAME.match(n)), key=lambda n: (n[0], int(n[1:]))):
        try:
            node = getattr(env[name], "grad_fn", None)
        except Exception as err:  # noqa: BLE001 - a view of a modified multi-output op raises
            seen.append((name, ("raises", type(err).__name__)))
            continue
        if node is None:
            continue
        graph = []
        for n in _walk(node):
            nr = n._sequence_nr()
            graph.append((n.name(), "UINT64_MAX" if nr == UINT64_MAX else nr - base))
        seen.append((name, graph))
    with env["torch"].enable_grad():
        after = (env["torch"].ones(1, requires_grad=True) * 1).grad_fn._sequence_nr()
    seen.append(("next number", after - base))
    return seen


SEEDS = range(300)


@pytest.mark.parametrize("chunk", [SEEDS[i : i + 50] for i in range(0, len(SEEDS), 50)])
def test_sequence_numbers_match_pytorch(chunk):
    for seed in chunk:
        lines = program(seed)
        want, got = numbers(lines, "torch"), numbers(lines, "minigrad")
        assert got == want, f"seed {seed}:\n" + "\n".join(lines)


def test_the_programs_exercise_what_they_should():
    """The sample reaches custom Functions, CopySlices, AccumulateGrad and no_grad lines."""
    text = "\n".join("\n".join(program(seed)) for seed in SEEDS)
    for needle in (
        "Twice.apply",
        "Halves.apply",
        "AddOneInPlace.apply",
        "WithIndex.apply",
        "next_functions",
        "no_grad",
        "retain_grad",
        "register_hook",
        "create_graph",
    ):
        assert needle in text, needle
    names = {
        entry[0]
        for seed in SEEDS[:60]
        for label, graph in numbers(program(seed), "torch")
        if label[0] in "tf" and isinstance(graph, list)
        for entry in graph
    }
    assert {"CopySlices", "torch::autograd::AccumulateGrad", "TwiceBackward"} <= {
        n.removeprefix("torch::autograd::") if "CopySlices" in n else n for n in names
    }


def test_a_graph_is_numbered_without_gaps():
    """Lesson 12's graph: seven nodes numbered 0..6 after the first, leaves at UINT64_MAX."""

    def lesson(torch):
        x = torch.tensor([0.5, -1.0], requires_grad=True)
        w = torch.tensor([2.0, 3.0], requires_grad=True)
        a = x * w
        loss = (a.exp() + a * a).sum() + a.sum()
        nodes = _walk(loss.grad_fn)
        first = min(n._sequence_nr() for n in nodes)
        return sorted(
            n._sequence_nr() - first if n._sequence_nr() != UINT64_MAX else -1 for n in nodes
        )

    want = lesson(load_lib("torch"))
    assert want == [-1, -1, 0, 1, 2, 3, 4, 5, 6]
    assert lesson(load_lib("minigrad")) == want


@pytest.mark.xfail(
    strict=True,
    reason="known difference: under create_graph PyTorch's mul, div and pow (tensor ** tensor) "
    "work out the second operand's gradient first, so its nodes take the smaller numbers; "
    "minigrad's formulas go in operand order (ops/elementwise.py)",
)
def test_double_backward_numbers_the_second_operand_first():
    def numbered(torch):
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = torch.tensor([3.0, 4.0], requires_grad=True)
        ga, gb = torch.autograd.grad((a * b).sum(), [a, b], create_graph=True)
        return ga.grad_fn._sequence_nr() - gb.grad_fn._sequence_nr()

    want = numbered(load_lib("torch"))
    assert want == 1
    assert numbered(load_lib("minigrad")) == want
