"""Lesson 14 (broadcasting and gradients): its frame, and every answer its two checks foresee.

Each wrong answer below is one a learner would plausibly write; the check must name its mistake
(never a traceback). The model of exercise 2 is read from the notebook itself, so the notebook's
buggy `init_params` and the check's reference cannot drift apart.
"""

from __future__ import annotations

import ast
import random
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
from labkit import hints, lesson14

import minigrad as mg

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "14_broadcasting_and_gradients.ipynb"
SUM_TO_SIZE = mg.Tensor.sum_to_size  # the check spies on it while the learner's function runs


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    """A failed check that names the problem (every word present) and offers no traceback."""
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


@pytest.fixture(scope="module")
def cells() -> list:
    return nbformat.read(NOTEBOOK, as_version=4).cells


def _definitions(source: str, notebook: Path) -> dict:
    """Run only the function definitions of a cell (not its training loop)."""
    tree = ast.parse(source)
    tree.body = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    namespace = {"mg": mg}
    exec(compile(tree, str(notebook), "exec"), namespace)
    return namespace


def notebook_model(cells: list, notebook: Path) -> dict:
    """A lesson's buggy model (init_params, predict) and its solution (init_params_fixed)."""
    (given,) = [c.source for c in cells if "def init_params(" in c.source]
    (solution,) = [c.source for c in cells if "def init_params_fixed(" in c.source]
    return {**_definitions(given, notebook), **_definitions(solution, notebook)}


@pytest.fixture(scope="module")
def model(cells) -> dict:
    """The notebook's buggy model (init_params, predict) and its solution (init_params_fixed)."""
    return notebook_model(cells, NOTEBOOK)


# --- the frame: hints, the import cell, the hint reminder, "Next:" ----------------------------


@pytest.mark.parametrize("check", [lesson14.check_sum_to_shape, lesson14.check_fixed_model])
def test_unanswered_says_still_ellipsis_and_offers_a_hint(check, said):
    out = said(check, ...) if check is lesson14.check_sum_to_shape else said(check, ..., print)
    assert failed_with(out, "still `...`", "Stuck? Run `hint()`"), out
    exercise = hints._last[0]
    assert 1 <= len(hints.HINTS[exercise]) <= 3
    assert hints.LESSON_OF[exercise] == "14"


def test_lesson_frame(cells):
    code = [c.source for c in cells if c.cell_type == "code"]
    markdown = [c.source for c in cells if c.cell_type == "markdown"]
    assert "from labkit import hint, lesson14" in code[0]
    reminders = [m for m in markdown if "`hint()`" in m]
    assert len(reminders) == 1 and "one at a time" in reminders[0]
    assert markdown[-1].startswith("## Summary") and "Next: **15" in markdown[-1]
    assert cells[0].source.startswith("# 14 · ")


def test_learner_copy_stubs_say_still_ellipsis(said):
    def sum_to_shape(grad, shape): ...  # what make_student_copies leaves

    def init_params_fixed(seed): ...

    assert failed_with(said(lesson14.check_sum_to_shape, sum_to_shape), "still `...`")
    assert failed_with(said(lesson14.check_fixed_model, init_params_fixed, print), "still `...`")


# --- exercise 1: sum_to_shape ------------------------------------------------------------------


def right(grad, shape):
    lead = grad.dim() - len(shape)
    if lead:
        grad = grad.sum(dim=tuple(range(lead)))
    ones = tuple(i for i, s in enumerate(shape) if s == 1 and grad.shape[i] != 1)
    return grad.sum(dim=ones, keepdim=True) if ones else grad


def _dims(grad, shape):
    lead = grad.dim() - len(shape)
    return tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and grad.shape[lead + i] != 1
    )


def keeps_leading_dims(grad, shape):
    dims = _dims(grad, shape)
    return grad.sum(dim=dims, keepdim=True) if dims else grad


def drops_size_one_dims(grad, shape):
    dims = _dims(grad, shape)
    return grad.sum(dim=dims) if dims else grad


def sums_empty_dims(grad, shape):  # sum(dim=()) sums everything
    lead = grad.dim() - len(shape)
    grad = grad.sum(dim=tuple(range(lead)))
    ones = tuple(i for i, s in enumerate(shape) if s == 1 and grad.shape[i] != 1)
    return grad.sum(dim=ones, keepdim=True)


def averages(grad, shape):
    dims = _dims(grad, shape)
    return grad.mean(dim=dims, keepdim=True).reshape(shape) if dims else grad


def uses_the_builtin(grad, shape):
    return grad.sum_to_size(shape)


def aligns_from_the_left(grad, shape):
    ones = tuple(i for i, s in enumerate(shape) if s == 1 and grad.shape[i] != 1)
    if ones:
        grad = grad.sum(dim=ones, keepdim=True)
    lead = grad.dim() - len(shape)
    return grad.sum(dim=tuple(range(lead))) if lead else grad


def zeroes_its_argument(grad, shape):
    out = right(grad, shape).clone()
    grad.zero_()
    return out


def returns_numpy(grad, shape):
    return right(grad, shape).numpy()


def calls_torch(grad, shape):
    return torch.sum(grad)


def reshapes(grad, shape):
    return grad.reshape(shape)


def remembers_the_hand_picked_cases(grad, shape):
    """A table of the fixed cases' shapes: right there, wrong on anything new."""
    known = {big_small[1] for big_small in lesson14.SUM_TO_SHAPE_CASES}
    if tuple(shape) in known and grad.dim() <= 3:
        return right(grad, shape)
    return grad


def test_the_right_answer_passes(said):
    out = said(lesson14.check_sum_to_shape, right)
    assert passed(out) and "40 fresh random" in out, out


@pytest.mark.parametrize(
    "answer, words",
    [
        (keeps_leading_dims, ["leading dims are still there as 1s", "(3,)"]),
        (drops_size_one_dims, ["size-1 dims were dropped", "keepdim=True"]),
        (sums_empty_dims, ["everything was summed", "EMPTY tuple"]),
        (averages, ["averaged", "ADD up"]),
        (uses_the_builtin, ["the answers are right", "sum_to_size"]),
        (aligns_from_the_left, ["(4, 2, 3)", "Line the shapes up from the right"]),
        (zeroes_its_argument, ["changed `grad` in place"]),
        (returns_numpy, ["numpy.ndarray", "return a minigrad tensor"]),
        (calls_torch, ["real PyTorch function", "Use minigrad"]),
        (reshapes, ["raised RuntimeError", "(2, 3)"]),
        ("not a function", ["should be a function"]),
    ],
    ids=lambda a: getattr(a, "__name__", None),
)
def test_each_wrong_answer_gets_its_message(said, answer, words):
    out = said(lesson14.check_sum_to_shape, answer)
    assert failed_with(out, *words), out
    assert mg.Tensor.sum_to_size is SUM_TO_SIZE  # the spy is gone, whatever happened
    assert mg.ones(2, 3).sum_to_size(3).tolist() == [2.0, 2.0, 2.0]


def test_a_table_of_the_hand_picked_cases_fails_on_fresh_pairs(said):
    out = said(lesson14.check_sum_to_shape, remembers_the_hand_picked_cases)
    assert failed_with(out, "you returned shape"), out


def test_the_random_pairs_are_broadcast_pairs_with_leading_and_size_one_dims():
    rng = random.Random(5)
    pairs = [lesson14._random_pair(rng) for _ in range(200)]
    for big, small in pairs:
        assert np.broadcast_shapes(small, big) == big
    assert any(len(small) < len(big) for big, small in pairs)
    assert any(s == 1 and b != 1 for big, small in pairs for s, b in zip(small[::-1], big[::-1]))
    assert any(small == () for _, small in pairs)
    assert len(set(pairs)) > 50  # fresh shapes, not a handful repeated


# --- exercise 2: the silent bias --------------------------------------------------------------


def test_the_notebook_solution_passes_and_its_buggy_model_is_recognised(said, model):
    out = said(lesson14.check_fixed_model, model["init_params_fixed"], model["predict"])
    assert passed(out), out
    out = said(lesson14.check_fixed_model, model["init_params"], model["predict"])
    assert failed_with(out, "b still has shape (3, 1), the bug", "(3, 3)", ".mean()"), out


def test_the_notebook_model_and_the_check_reference_agree(model):
    """The check's reference is the notebook's init_params with b flattened, draw for draw."""
    for seed in (0, 7):
        params = model["init_params"](seed)
        reference = lesson14._reference_values(seed)
        assert tuple(params["b"].shape) == (3, 1)
        for name, want in reference.items():
            assert np.allclose(params[name].detach().numpy().reshape(-1), want.reshape(-1))


def _variant(model, **change):
    """init_params_fixed with some parameters replaced, each made by change[name](params)."""

    def init(seed):
        params = model["init_params_fixed"](seed)
        for name, make in change.items():
            params[name] = make(params)
        return params

    return init


def _reshaped_bias(model):
    """init_params with b reshaped to (3,) after it is made: no longer a leaf."""

    def init(seed):
        params = model["init_params"](seed)
        params["b"] = params["b"].reshape(3)
        return params

    return init


def _averaged(model):
    """predict with its (3, 3) result averaged away."""
    return lambda params, x: model["predict"](params, x).mean()


def _flat_predict(params, x):
    hidden = (params["W"] @ x + params["b"].reshape(3)).tanh()
    return params["v"] @ hidden + params["c"]


def _relu_predict(params, x):
    hidden = (params["W"] @ x + params["b"]).relu()
    return params["v"] @ hidden + params["c"]


def _raises(params, x):
    return params["W"] @ x.unsqueeze(0)


def _three_numbers(params, x):
    return (params["W"] @ x + params["b"]).tanh()


def test_a_reshaped_bias_is_not_a_leaf(said, model):
    out = said(lesson14.check_fixed_model, _reshaped_bias(model), model["predict"])
    assert failed_with(out, "params['b'] is not a leaf", "ViewBackward0"), out


def test_a_detached_reshaped_bias_is_a_fine_fix(said, model):
    buggy = model["init_params"]

    def init(seed):
        params = buggy(seed)
        params["b"] = params["b"].detach().reshape(3).requires_grad_()
        return params

    assert passed(said(lesson14.check_fixed_model, init, model["predict"]))


@pytest.mark.parametrize(
    "change, words",
    [
        (
            {"b": lambda p: mg.zeros(3, requires_grad=True)},
            ["changes more than b's shape", "b differs"],
        ),
        (
            {"b": lambda p: p["b"].detach().reshape(1, 3).requires_grad_()},
            ["b has shape (1, 3)", "nn.Linear(2, 3).bias"],
        ),
        (
            {"c": lambda p: mg.zeros(1, requires_grad=True)},
            ["changes more than b's shape", "c differs"],
        ),
        ({"W": lambda p: p["W"].detach()}, ["params['W'] does not require grad"]),
        ({"v": lambda p: torch.zeros(3, requires_grad=True)}, ["torch.Tensor", "minigrad tensor"]),
    ],
)
def test_other_changes_to_the_parameters(said, model, change, words):
    out = said(lesson14.check_fixed_model, _variant(model, **change), model["predict"])
    assert failed_with(out, *words), out


def test_no_seed_means_different_parameters(said, model):
    def init(seed):
        return model["init_params_fixed"](0)

    out = said(lesson14.check_fixed_model, init, model["predict"])
    assert failed_with(out, "changes more than b's shape", "mg.manual_seed(seed)"), out


def test_hiding_the_bug_in_predict_is_recognised(said, model):
    out = said(lesson14.check_fixed_model, model["init_params"], _averaged(model))
    assert failed_with(out, "sums or averages the (3, 3) result away"), out


def test_working_around_the_bug_in_predict_is_told_to_fix_b(said, model):
    out = said(lesson14.check_fixed_model, model["init_params"], _flat_predict)
    assert failed_with(out, "predict gives the right numbers", "fix the bug where it is made"), out


def test_a_different_predict_gets_wrong_gradients(said, model):
    out = said(lesson14.check_fixed_model, model["init_params_fixed"], _relu_predict)
    assert failed_with(out, "from the correct model's", "Did predict change?"), out


@pytest.mark.parametrize(
    "init, words",
    [
        (lambda seed: [1, 2], ["a dict with the keys"]),
        (lambda seed: {"W": 1}, ["a dict with the keys", "['W']"]),
        (lambda seed: 1 / 0, ["init_params_fixed(", "raised ZeroDivisionError"]),
    ],
)
def test_broken_init_functions(said, model, init, words):
    out = said(lesson14.check_fixed_model, init, model["predict"])
    assert failed_with(out, *words), out


def test_a_predict_that_raises_or_returns_the_wrong_thing(said, model):
    out = said(lesson14.check_fixed_model, model["init_params_fixed"], _raises)
    assert failed_with(out, "predict(params, x) and backward on fresh samples raised"), out
    out = said(lesson14.check_fixed_model, model["init_params_fixed"], _three_numbers)
    assert failed_with(out, "returned (3,)", "0-d minigrad tensor"), out
