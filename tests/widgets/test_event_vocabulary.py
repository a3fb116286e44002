"""Fences around the one event vocabulary (minigrad/core/events.py).

A kind is declared once; these tests name every place that must follow it: the explorer's frames
handler and its words in each language, the engine's reporter, and the records both producers
(minigrad's engine and the torch adapter) make of the same graphs, field by field and type by type.
"""

from __future__ import annotations

import ast
import collections.abc
import types
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from explorer_graphs import abc, lib, libraries, mlp

import minigrad as mg
from minigrad.autograd import record_steps, report
from minigrad.core import events
from widgets import record_backward, record_forward
from widgets.frames import FrameMaker
from widgets.language import LANGUAGES
from widgets.texts import TEXTS
from widgets.walk import GraphBuilder

ENGINE = Path(mg.__file__).parent / "autograd" / "engine.py"


# --- every kind has its handler, its words and its moment -------------------------------------
@pytest.mark.parametrize("kind", sorted(events.KINDS))
def test_every_kind_has_a_frames_handler(kind):
    maker = FrameMaker(GraphBuilder())
    assert callable(maker.handlers[kind]), f"widgets/frames.py needs on_{kind}"


def words_of(kind: str) -> list[str]:
    """The texts.py keys that word a kind: `step.<kind>`; a hook, its kind's names instead."""
    if kind == "hook":
        return [f"{side}hook.{h}" for h in events.HOOK_KINDS for side in ("", "ui.")]
    return [f"step.{kind}"]


@pytest.mark.parametrize("kind", sorted(events.KINDS))
def test_every_kind_is_worded_in_every_language(kind):
    for key in words_of(kind):
        assert key in TEXTS, f"widgets/texts.py lacks {key!r}"
        assert len(TEXTS[key]) == len(LANGUAGES) and all(TEXTS[key]), key


def test_a_new_kind_without_its_handler_is_caught_when_a_maker_is_made(monkeypatch):
    monkeypatch.setattr(events, "KINDS", dict(events.KINDS))  # the kind below lives in the test

    @events.kind
    def teleport(*, node: Any) -> dict:
        """(a kind declared for this test only)"""

    with pytest.raises(AttributeError, match="on_teleport"):
        FrameMaker(GraphBuilder())
    assert words_of("teleport")[0] not in TEXTS


def test_an_unknown_kind_is_refused_not_skipped():
    maker = FrameMaker(GraphBuilder())
    with pytest.raises(ValueError, match="no such kind of record: 'teleport'"):
        maker.frame({"kind": "teleport"})


def test_the_reporter_reports_every_moment_the_silent_one_lists():
    moments = [m for m in vars(report.Silent) if not m.startswith("_") and m != "listening"]
    assert moments, "Silent lists the moments"
    assert [m for m in moments if m not in vars(report.Reporter)] == []


def test_a_constructor_refuses_missing_and_unknown_fields():
    wrong = r"missing fields \['slot'\], unknown fields \['gradient'\]"
    with pytest.raises(TypeError, match=wrong):
        events.edge(source=None, target=object(), gradient=None, grad=None)
    record = events.hook(
        hook="pre", node=None, slot=None, fn="f", function=None, grad=None, returned=None
    )
    assert record["kind"] == "hook" and record["tensor"] is None and record["module"] is None


def test_the_engine_reports_only_through_its_reporter():
    tree = ast.parse(ENGINE.read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert not imported & {"emit", "LISTENERS", "events", "observe"}
    calls = [n.func for n in ast.walk(tree) if isinstance(n, ast.Call)]
    assert "emit" not in {f.id for f in calls if isinstance(f, ast.Name)}


# --- both producers, the same graphs, every record against its kind's fields -------------------
def conforms(value: Any, hint: Any) -> bool:
    """Whether `value` has the type `hint` (the few typing forms events.py uses)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is typing.Literal:
        return value in args
    if origin is list:
        return isinstance(value, list) and all(conforms(v, args[0]) for v in value)
    if origin is tuple:  # tuple[int, ...]
        return isinstance(value, tuple) and all(conforms(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            conforms(k, args[0]) and conforms(v, args[1]) for k, v in value.items()
        )
    if origin is collections.abc.Callable:
        return callable(value)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def check_records(records: list[dict]) -> set[str]:
    """Every record has exactly its kind's fields, each of its declared type; the kinds seen."""
    for rec in records:
        declared = events.fields(rec["kind"])
        assert set(rec) == {"kind", *declared}, rec["kind"]
        for field, hint in declared.items():
            assert conforms(rec[field], hint), f"{rec['kind']}.{field} = {rec[field]!r}"
    return {r["kind"] for r in records}


def hooked_mlp_pass(torch) -> list[dict]:
    """The MLP with a hook of every kind its library lets Python see, run twice, the second
    time through freed buffers (an error)."""
    model = mlp(torch)
    x = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    model[0].register_full_backward_hook(lambda m, gi, go: None)
    model[2].register_full_backward_pre_hook(lambda m, go: None)
    with record_forward(model, names={"x": x}) as fwd:
        h = model[0](x)
        out = model[2](model[1](h))
        loss = out.pow(2).mean()
    h.register_hook(lambda g: g * 1.0)
    h.retain_grad()
    x.register_post_accumulate_grad_hook(lambda t: None)
    if torch is mg:  # torch keeps node hooks in C++, out of the adapter's sight
        loss.grad_fn.register_prehook(lambda go: None)
        loss.grad_fn.register_hook(lambda gi, go: None)
    with record_backward(loss, forward=fwd, names={"x": x, "h": h}, catch=True) as bwd:
        loss.backward()
        loss.backward()
    assert isinstance(bwd.error, RuntimeError)
    return fwd.records + bwd.records


def golden_passes(torch) -> list[dict]:
    a, b, y = abc(torch)
    with record_forward(names={"a": a, "b": b}) as fwd:
        y = (a * b + a * 2).sum()
    with record_backward(y, names={"a": a, "b": b}) as bwd:
        y.backward()
    return fwd.records + bwd.records + hooked_mlp_pass(torch)


def minigrad_only_passes() -> list[dict]:
    """What only minigrad reports: autograd.grad's captures, a second-order pass."""
    x = mg.tensor([0.5, -2.0], requires_grad=True)
    with record_steps() as steps:
        y = (x.tanh() * x).sum()
        (g,) = mg.autograd.grad(y, x, create_graph=True)
        g.sum().backward(inputs=[x])
    return steps.records


@pytest.mark.parametrize("name", libraries())
def test_both_producers_make_records_of_the_declared_fields_and_types(name):
    torch = lib(name)
    seen = check_records(golden_passes(torch))
    expected = set(events.KINDS) - {"capture"}  # (torch's autograd.grad is not observed)
    assert seen == expected


def test_minigrad_reports_every_kind():
    seen = check_records(golden_passes(mg)) | check_records(minigrad_only_passes())
    assert seen == set(events.KINDS)


def test_records_are_copies_taken_when_the_step_happened():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with record_steps() as steps:
        (x * 3).sum().backward()
        (x * 3).sum().backward()
    first, second = (r for r in steps if r["kind"] == "accumulate")
    np.testing.assert_array_equal(first["after"], [3.0, 3.0])
    np.testing.assert_array_equal(second["before"], [3.0, 3.0])
    np.testing.assert_array_equal(second["after"], [6.0, 6.0])
