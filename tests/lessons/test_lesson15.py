"""Lesson 15 (memory): its frame, its hints, and the answers its two checks give.

The saved-bytes counter must be a pack/unpack pair the forward goes through (the check's own outer
pair sees nothing then) whose unpack gives the tensor back; the freeze must switch requires_grad
itself. Each slip a learner is likely to make is pinned to the words of its message, and the
notebook's own solutions (and their learner-copy stubs) are run through the checks.
"""

from __future__ import annotations

import copy
import importlib.util
import re
import sys
from pathlib import Path

import nbformat
import pytest
from labkit import hints, lesson15

import minigrad as mg

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "15_memory.ipynb"
COUNT = lesson15.check_count_saved_bytes
FREEZE = lesson15.check_freeze_first_layer


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    """A failed check that names the problem (every word present) and offers no traceback."""
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


@pytest.fixture(scope="module")
def nb() -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK, as_version=4)


def _solutions(nb: nbformat.NotebookNode) -> list[str]:
    return [c.source for c in nb.cells if "solution" in c.metadata.get("tags", [])]


def _run(source: str) -> dict:
    namespace = {"mg": mg}
    exec(compile(source, "<solution cell>", "exec"), namespace)
    return namespace


def _counter(pack_body, *, unpack=lambda t: t, hooks=True, grad=True, keep=lambda t: t.detach()):
    """A count_saved_bytes whose pack adds pack_body(t) to a fresh total and returns keep(t)."""

    def count(model, x):
        total = [0]

        def pack(t):
            total[0] += pack_body(t)
            return keep(t)

        with mg.set_grad_enabled(grad):
            if not hooks:
                return model(x), 0
            with mg.autograd.graph.saved_tensors_hooks(pack, unpack):
                out = model(x)
        return out, total[0]

    return count


def _nbytes(t):
    return t.numel() * t.dtype.itemsize


def _unbound(model, x):
    total = 0

    def pack(t):
        total += _nbytes(t)  # noqa: F823, F841 - the slip under test
        return t

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return out, total


def _params(model, x):
    return model(x), sum(_nbytes(p) for p in model.parameters())


def _unique(model, x):
    seen = {}

    def pack(t):
        seen[id(t)] = t  # kept alive here, so no id is reused
        return t.detach()

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return out, sum(_nbytes(t) for t in seen.values())


_kept = [0]  # _carried_over's running total: set it to 0 before a test uses it


def _carried_over(model, x):
    def pack(t):
        _kept[0] += _nbytes(t)
        return t.detach()

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(x)
    return out, _kept[0]


def _sizes_only(model, x):
    total = [0]

    def pack(t):
        total[0] += _nbytes(t)
        return _nbytes(t)

    with mg.autograd.graph.saved_tensors_hooks(pack, lambda n: n):
        out = model(x)
    return out, total[0]


def _ran_backward(model, x):
    out, total = _counter(_nbytes)(model, x)
    out.sum().backward()
    return out, total


# --- the frame --------------------------------------------------------------------------------


def test_frame_imports_hint_reminds_once_and_points_to_17(nb):
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert nb.cells[0].source.startswith("# 15 · ")
    assert re.search(r"from labkit import hint, lesson15\b", code[0])
    assert "import minigrad as mg" in code[0] and "import torch" in code[0]
    reminders = [m for m in markdown if "`hint()`" in m]
    assert len(reminders) == 1 and "one at a time" in reminders[0]
    assert "Exercise 1" in reminders[0]
    assert markdown[-1].startswith("## Summary") and "Next: **16 ·" in markdown[-1]
    assert all("import minigrad as torch" not in source for source in code)


@pytest.mark.parametrize("check", [COUNT, FREEZE], ids=["counter", "freeze"])
def test_each_exercise_has_hints_and_answers_the_ellipsis(check, said):
    out = said(check, ...)
    assert failed_with(out, "still `...`", "Stuck? Run `hint()`")
    exercise = hints._last[0]
    assert 1 <= len(hints.HINTS[exercise]) <= 3 and hints.LESSON_OF[exercise] == "15"


def test_the_notebooks_solutions_pass_and_their_stubs_say_still(nb, said):
    spec = importlib.util.spec_from_file_location(
        "make_student_copies", ROOT / "scripts" / "make_student_copies.py"
    )
    students = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_student_copies", students)
    spec.loader.exec_module(students)
    counter_cell, freeze_cell = _solutions(nb)
    assert passed(said(COUNT, _run(counter_cell)["count_saved_bytes"]))
    assert passed(said(FREEZE, _run(freeze_cell)["freeze_first_layer"]))
    stubbed = _run(students.strip_solutions(counter_cell))["count_saved_bytes"]
    assert failed_with(said(COUNT, stubbed), "returned None", "still `...`")
    stubbed = _run(students.strip_solutions(freeze_cell))["freeze_first_layer"]
    assert failed_with(said(FREEZE, stubbed), "nothing is frozen", "still `...`")


# --- exercise 1: the saved-bytes counter ---------------------------------------------------------


def test_counter_accepts_other_correct_forms(said):
    assert passed(said(COUNT, _counter(_nbytes)))
    assert passed(said(COUNT, _counter(_nbytes, unpack=lambda t: t.clone())))
    in_a_tuple = _counter(_nbytes, keep=lambda t: (t.detach(), _nbytes(t)), unpack=lambda p: p[0])
    assert passed(said(COUNT, in_a_tuple))


def test_counter_must_not_keep_the_tensor_itself(said):
    for keep in (lambda t: t, lambda t: (t, _nbytes(t))):
        unpack = (lambda p: p[0]) if keep(mg.ones(1)).__class__ is tuple else (lambda t: t)
        out = said(COUNT, _counter(_nbytes, keep=keep, unpack=unpack))
        assert failed_with(out, "keeps the tensor itself", "t.detach()")


def test_counter_names_python_and_api_slips(said):
    assert failed_with(said(COUNT, _unbound), "UnboundLocalError", "nonlocal total")
    element_size = _counter(lambda t: t.numel() * t.element_size())
    assert failed_with(said(COUNT, element_size), "no `element_size`", "t.dtype.itemsize")
    assert failed_with(said(COUNT, lambda m, x: None), "returned None", "still `...`")
    assert failed_with(said(COUNT, lambda m, x: m(x)), "only the output", "(out, total)")
    assert failed_with(said(COUNT, lambda m, x: (3, m(x))), "wrong way round")
    tensor_total = _counter(lambda t: t.numel() * t.dtype.itemsize * mg.tensor(1))
    assert failed_with(said(COUNT, tensor_total), "Python number")


def test_counter_must_use_hooks_around_a_recorded_forward(said):
    assert failed_with(said(COUNT, _counter(_nbytes, hooks=False)), "did not go through your hooks")
    assert failed_with(said(COUNT, _params), "did not go through your hooks")
    assert failed_with(said(COUNT, _counter(_nbytes, grad=False)), "no_grad")


def test_counter_names_each_wrong_total(said):
    assert failed_with(said(COUNT, _counter(lambda t: t.numel())), "elements, not bytes")
    assert failed_with(said(COUNT, _counter(lambda t: 1)), "number of saved tensors")
    assert failed_with(said(COUNT, _counter(lambda t: 0)), "total is 0", "nonlocal")
    assert failed_with(said(COUNT, _counter(lambda t: 2 * _nbytes(t))), "twice")
    grad_only = _counter(lambda t: _nbytes(t) if t.requires_grad else 0)
    assert failed_with(said(COUNT, grad_only), "do not require grad")
    four = _counter(lambda t: t.numel() * 4)
    assert failed_with(said(COUNT, four), "float64", "hard-coded", "itemsize")
    assert failed_with(said(COUNT, _unique), "each tensor once", "every call to pack")


def test_counter_must_start_from_zero_each_call(said):
    _kept[0] = 0
    assert failed_with(said(COUNT, _carried_over), "calling it again", "start the total at 0")


def test_counter_backward_must_run_through_unpack(said):
    assert failed_with(said(COUNT, _sizes_only), "`unpack` must give back", "not only its size")
    wrong = _counter(_nbytes, unpack=lambda t: t * 2)
    assert failed_with(said(COUNT, wrong), "gradients through your hooks differ")
    assert failed_with(said(COUNT, _ran_backward), "only run the forward")


# --- exercise 2: freezing the first layer --------------------------------------------------------


def _freeze_with_flag(model):
    for p in model[0].parameters():
        p.requires_grad = False


def _freeze_with_detach_(model):
    model[0].weight.detach_()
    model[0].bias.detach_()


@pytest.mark.parametrize(
    "freeze",
    [lambda m: m[0].requires_grad_(False), _freeze_with_flag, _freeze_with_detach_],
    ids=["module requires_grad_", "flag per parameter", "detach_ on the leaves"],
)
def test_freeze_accepts_every_way_of_switching_the_flag(freeze, said):
    out = said(FREEZE, freeze)
    assert passed(out) and "8 -> 5" in out


def _no_grad_forward(model):
    layer, forward = model[0], model[0].forward

    def run(x):
        with mg.no_grad():
            return forward(x)

    layer.forward = run


def _zero_hooks(model):
    for p in model[0].parameters():
        p.register_hook(lambda g: g * 0)


def _eval_too(model):
    model.eval()
    model[0].requires_grad_(False)


def _too_much(model):
    model[0].requires_grad_(False)
    model[2].requires_grad_(False)


def _assign_tensor(model):
    model[0].weight = model[0].weight.detach()


def _new_parameters(model):
    layer = model[0]
    layer.weight = mg.nn.Parameter(layer.weight.data, requires_grad=False)
    layer.bias = mg.nn.Parameter(layer.bias.data, requires_grad=False)


def _reinitialised(model):
    model[0].reset_parameters()
    model[0].requires_grad_(False)


def _frozen_copy(model):
    other = copy.deepcopy(model)
    other[0].requires_grad_(False)
    return other


def _stale(model):
    model[0].requires_grad_(False)
    model[0].weight.grad = mg.zeros_like(model[0].weight)


def _broken(model):
    raise KeyError("layer")


def _data_forward(model):
    layer = model[0]
    layer.forward = lambda x: mg.nn.functional.linear(x, layer.weight.data, layer.bias.data)


def _detaching_hook(model):
    model[0].register_forward_hook(lambda module, inputs, output: output.detach())


@pytest.mark.parametrize(
    "trick", [_no_grad_forward, _data_forward, _detaching_hook], ids=["no_grad", ".data", "detach"]
)
def test_freeze_names_tricks_that_keep_requires_grad_true(trick, said):
    out = said(FREEZE, trick)
    assert failed_with(out, "still have requires_grad=True", "`no_grad()`, `.data` or `detach()`")


def test_freeze_names_zero_gradients_and_eval(said):
    assert failed_with(said(FREEZE, _zero_hooks), "a .grad of zeros", "weight decay")
    assert failed_with(said(FREEZE, lambda m: m[0].eval()), "eval() freezes nothing")
    assert failed_with(said(FREEZE, _eval_too), "the whole model to eval mode")


def test_freeze_names_the_wrong_amount_or_the_wrong_layer(said):
    weight_only = said(FREEZE, lambda m: m[0].weight.requires_grad_(False))
    assert failed_with(weight_only, "0.bias still requires grad", "weight and bias")
    assert failed_with(said(FREEZE, lambda m: m.requires_grad_(False)), "every parameter")
    wrong_layer = said(FREEZE, lambda m: m[2].requires_grad_(False))
    assert failed_with(wrong_layer, "you froze 2.weight and 2.bias", "model[0]")
    assert failed_with(said(FREEZE, _too_much), "2.weight and 2.bias are frozen too")


def test_freeze_names_replacing_or_changing_the_parameters(said):
    assert failed_with(said(FREEZE, _assign_tensor), "TypeError", "nn.Parameter")
    assert failed_with(said(FREEZE, _new_parameters), "are new tensors", "in place")
    computed = said(FREEZE, lambda m: m[0].weight.t().requires_grad_(False))
    assert failed_with(computed, "computed tensor")
    assert failed_with(said(FREEZE, _reinitialised), "changed parameter values")


def test_freeze_must_change_the_model_it_is_given(said):
    assert failed_with(said(FREEZE, _frozen_copy), "returned another model", "in place")

    def returns_itself(model):
        model[0].requires_grad_(False)
        return model

    assert passed(said(FREEZE, returns_itself))


def test_freeze_names_a_gradient_left_on_a_frozen_parameter(said):
    out = said(FREEZE, _stale)
    assert failed_with(out, "0.weight has a .grad", "not None")


def test_freeze_reports_an_error_raised_inside_the_learners_code(said):
    assert failed_with(said(FREEZE, _broken), "raised KeyError")
