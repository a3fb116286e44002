"""Lessons 01-07: hints for every exercise, checks that verify the method, and lessons that work
as learner copies.

The checks must tell a right answer from the right *numbers*: one full-batch backward (05), a
`.data` update (07), a Jacobian copied from the lesson's table (04) or a hand-derived second
derivative (06) each get their own message, and so does every other mistake foreseen here;
none of them may surface as a raw exception.
"""

from __future__ import annotations

import ast
import re
import textwrap
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest
from labkit import hints, lesson01, lesson02, lesson03, lesson04, lesson05, lesson06, lesson07

import minigrad as mg

NB_DIR = Path(__file__).resolve().parents[2] / "notebooks"
MODULES = {
    "01": lesson01,
    "02": lesson02,
    "03": lesson03,
    "04": lesson04,
    "05": lesson05,
    "06": lesson06,
    "07": lesson07,
}
LESSONS = {number: next(NB_DIR.glob(f"{number}_*.ipynb")) for number in MODULES}
BEGIN, END = "# BEGIN SOLUTION", "# END SOLUTION"


def passed(out: str) -> bool:
    return out.startswith("✓")


def problem(out: str) -> str:
    """A failed check's text, which must never be a traceback."""
    assert out.startswith("✗") and "Traceback" not in out, out
    return out


def _exercises(module) -> list[str]:
    source = Path(module.__file__).read_text(encoding="utf-8")
    return re.findall(r'verdict(?:_or_demo)?\("([^"]+)"', source)


def _solutions(number: str) -> list[str]:
    """The code between the markers of every solution cell of a lesson."""
    nb = nbformat.read(LESSONS[number], as_version=4)
    blocks = []
    for cell in nb.cells:
        if "solution" in cell.metadata.get("tags", []):
            body = cell.source.split(BEGIN, 1)[1].split(END, 1)[0]
            blocks.append(textwrap.dedent(body.strip("\n")))
    return blocks


# --- hints, alias and the lesson frame --------------------------------------------------------


@pytest.mark.parametrize("number", sorted(MODULES))
def test_every_exercise_has_one_to_three_hints_that_are_not_the_solution(number):
    exercises = _exercises(MODULES[number])
    assert exercises, f"lesson {number} has no checks"
    solution_lines = {
        line.strip()
        for block in _solutions(number)
        for line in block.splitlines()
        if len(line.strip()) > 12  # short lines such as `return names` are no giveaway
    }
    for exercise in exercises:
        assert hints.LESSON_OF.get(exercise) == number, exercise
        assert 1 <= len(hints.HINTS[exercise]) <= 3, exercise
        for text in hints.HINTS[exercise]:
            assert not any(line in text for line in solution_lines), (exercise, text)


@pytest.mark.parametrize("number", sorted(MODULES))
def test_lesson_imports_hint_uses_mg_mentions_hints_and_ends_with_next(number):
    nb = nbformat.read(LESSONS[number], as_version=4)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert any(re.search(r"from labkit import .*\bhint\b", src) for src in code)
    assert not any("minigrad as torch" in src for src in code)
    assert any("import minigrad as mg" in src for src in code)
    cells = nb.cells
    first_solution = next(
        i for i, c in enumerate(cells) if "solution" in c.metadata.get("tags", [])
    )
    intro = next(c.source for c in reversed(cells[:first_solution]) if c.cell_type == "markdown")
    assert "hint()" in intro, "the first exercise says how hints work"
    assert "Next:" in markdown[-1]


def test_lesson_01_says_once_that_minigrad_runs_pytorch_code_and_shows_the_course():
    nb = nbformat.read(LESSONS["01"], as_version=4)
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    assert text.count("import minigrad as torch") == 1
    assert any("course.show()" in c.source for c in nb.cells if c.cell_type == "code")


def test_checks_speak_of_mg_not_torch(said):
    def no_no_grad(params, lr):
        for p in params:
            p.sub_(lr * p.grad)

    out = said(lesson07.check_sgd_step, no_no_grad)
    assert "mg.no_grad()" in out and "torch." not in out
    for module in MODULES.values():
        assert "torch.no_grad" not in Path(module.__file__).read_text(encoding="utf-8")
        assert "torch.autograd" not in Path(module.__file__).read_text(encoding="utf-8")


def _module_level_names(source: str) -> set[str]:
    """Names a cell reads outside any function body (a stubbed name read there is `...`)."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            names.add(node.id)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return names


@pytest.mark.parametrize("number", sorted(MODULES))
def test_demo_cells_do_not_read_what_a_learner_copy_stubs(number):
    """In a learner copy every name a solution assigns is `...`: only the check cell right
    after the solution may read them (its "still `...`" is the point); a demo cell may not
    (lesson 06's `check_second_derivative(first)` said "`second` is still `...`")."""
    cells = nbformat.read(LESSONS[number], as_version=4).cells
    stubbed: set[str] = set()
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        if "solution" in cell.metadata.get("tags", []):
            body = cell.source.split(BEGIN, 1)[1].split(END, 1)[0]
            if f"\n{BEGIN}" in f"\n{cell.source}":  # at module level, not a function body
                block = ast.parse(textwrap.dedent(body.strip("\n")))
                stubbed |= {
                    t.id
                    for n in ast.walk(block)
                    if isinstance(n, ast.Assign)
                    for t in ast.walk(n)
                    if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
                }
            continue
        previous = cells[i - 1] if i else None
        if previous is not None and "solution" in previous.metadata.get("tags", []):
            continue  # the check cell
        redefined = {
            t.id
            for n in ast.walk(ast.parse(cell.source))
            if isinstance(n, ast.Assign)
            for t in ast.walk(n)
            if isinstance(t, ast.Name) and isinstance(t.ctx, ast.Store)
        }
        read = _module_level_names(cell.source) & stubbed
        assert not read, f"cell {i} reads {read}, which a learner copy leaves as `...`"
        stubbed -= redefined


# --- 01, 02, 03 -------------------------------------------------------------------------------


def test_01_none_and_x_itself_get_their_own_messages(said):
    assert "stays None until a backward pass" in problem(said(lesson01.check_first_gradient, None))
    assert "x itself" in problem(said(lesson01.check_first_gradient, mg.tensor(2.0)))
    assert "not list" in problem(said(lesson01.check_first_gradient, [14.0]))


def test_02_names_deduplicated_by_name_objects_and_non_lists(said):
    def by_name(t):
        seen, names = set(), []
        stack = [t.grad_fn] if t.grad_fn is not None else []
        while stack:
            node = stack.pop()
            if node.name() not in seen:
                seen.add(node.name())
                names.append(node.name())
                stack.extend(n for n, _ in node.next_functions if n is not None)
        return names

    out = problem(said(lesson02.check_node_names, by_name))
    # (the graphs are drawn afresh for each check: which name repeats varies)
    assert "can share a name" in out and re.search(r"\w+ should appear \d times", out)
    objects = problem(said(lesson02.check_node_names, lambda t: [t.grad_fn]))
    assert "not node objects" in objects
    assert "return a list of names" in problem(said(lesson02.check_node_names, lambda t: 5))
    assert "return a list of names" in problem(said(lesson02.check_node_names, lambda t: "ab"))


def test_03_a_hand_formula_for_h_grad_is_not_a_backward_pass(said):
    x = mg.tensor([0.0, 0.5, 1.0], requires_grad=True)
    h = x.exp()
    out = problem(said(lesson03.check_hidden_grad, 2 * h, h, x))
    assert "has a grad_fn" in out and "retain_grad()" in out


# --- 04: the Jacobian is checked at points and on a function the notebook never shows ---------


def _rows(f, x, reset=True, retain=True, transpose=False, total=False):
    y = f(x)
    rows = []
    for i in range(len(y)):
        if reset:
            x.grad = None
        y.backward(mg.eye(len(y))[i], retain_graph=retain)
        rows.append(x.grad.clone())
    jac = mg.stack(rows)
    if total:
        return jac.sum(0)
    return jac.T if transpose else jac


def finite_differences(f, x):
    base, eps, cols = f(x).detach().numpy(), 1e-3, []
    for j in range(len(x)):
        moved = x.detach().clone()
        moved[j] += eps
        cols.append((f(moved).detach().numpy() - base) / eps)
    return np.stack(cols, 1)


def three_outputs(f, x):  # the lesson's 3 outputs, fixed
    y = f(x)
    return mg.stack([mg.autograd.grad(y, x, mg.eye(3)[i], retain_graph=True)[0] for i in range(3)])


def new_x(f, x):
    x = mg.tensor(x.tolist())
    return mg.autograd.grad(f(x), x, mg.ones(len(f(x))))


def test_04_the_table_finite_differences_and_formulas_do_not_pass(said):
    check = lesson04.check_jacobian
    assert passed(said(check, _rows))
    assert passed(said(check, lambda f, x: [row for row in _rows(f, x)]))  # a list of rows
    table = problem(said(check, lambda f, x: lesson04.TABLE.tolist()))
    assert "the lesson's table" in table
    assert "no backward pass ran" in problem(said(check, finite_differences))


def test_04_each_foreseen_error_gets_its_explanation(said):
    check = lesson04.check_jacobian
    cases = {
        "retain_graph=True": lambda f, x: _rows(f, x, retain=False),
        "each pass needs a gradient vector": lambda f, x: f(x).backward(),
        "read its length from y": three_outputs,
        "do not make a new one": new_x,
        "`...` returns None": lambda f, x: None,
        "return a tensor or a nested list": lambda f, x: {"rows": 3},
        "should be a function": 3,
    }
    for needle, answer in cases.items():
        assert needle in problem(said(check, answer)), needle
    assert "2 outputs, 3 inputs" in problem(said(check, three_outputs))


# --- 05: one backward per micro-batch, each micro-batch through the model ----------------------


def _mse(model, X, Y):
    return mg.nn.functional.mse_loss(model(X), Y)


def test_05_one_full_batch_backward_does_not_pass(said):
    def one_big_pass(model, X, Y, n_micro):
        model.zero_grad()
        _mse(model, X, Y).backward()

    out = problem(said(lesson05.check_accumulated_grads, one_big_pass))
    assert "one backward pass over the whole batch" in out and "3 micro-batches of 4 rows" in out


def test_05_the_whole_batch_through_the_model_does_not_pass(said):
    def full_batch_each_time(model, X, Y, n_micro):
        model.zero_grad()
        for _ in range(n_micro):
            (_mse(model, X, Y) / n_micro).backward()

    def slices_of_one_output(model, X, Y, n_micro):
        model.zero_grad()
        out, size = model(X), len(X) // n_micro
        for i in range(n_micro):
            part = slice(i * size, (i + 1) * size)
            loss = mg.nn.functional.mse_loss(out[part], Y[part]) / n_micro
            loss.backward(retain_graph=True)

    check = lesson05.check_accumulated_grads
    assert "batches of [12, 12, 12] rows" in problem(said(check, full_batch_each_time))
    one_forward = problem(said(check, slices_of_one_output))
    assert "the whole batch went through the model in one forward pass (12 rows)" in one_forward


def test_05_too_many_passes_reused_graphs_and_vector_backward(said):
    def twice_per_micro_batch(model, X, Y, n_micro):
        model.zero_grad()
        size = len(X) // n_micro
        for i in range(n_micro):
            part = slice(i * size, (i + 1) * size)
            loss = _mse(model, X[part], Y[part]) / n_micro
            (loss / 2).backward(retain_graph=True)
            (loss / 2).backward()

    def reused_graph(model, X, Y, n_micro):
        model.zero_grad()
        loss = _mse(model, X, Y) / n_micro
        for _ in range(n_micro):
            loss.backward()

    check = lesson05.check_accumulated_grads
    assert "ran 6 backward passes" in problem(said(check, twice_per_micro_batch))
    assert "its own forward pass" in problem(said(check, reused_graph))
    vector = problem(said(check, lambda model, X, Y, n: model(X).backward()))
    assert "on the (scalar) loss" in vector
    assert "should be a function" in problem(said(check, None))


def test_05_chunked_micro_batches_pass(said):
    def chunked(model, X, Y, n_micro):
        model.zero_grad()
        for xb, yb in zip(X.chunk(n_micro), Y.chunk(n_micro)):
            (_mse(model, xb, yb) / n_micro).backward()

    assert passed(said(lesson05.check_accumulated_grads, chunked))


# --- 06: f'' must come from two backward passes, the first with create_graph ------------------


def _first(f, x, create_graph=True):
    return mg.autograd.grad(f(x).sum(), x, create_graph=create_graph)[0]


def test_06_formulas_do_not_pass(said):
    check = lesson06.check_second_derivative

    def numpy_formula(f, x):
        x = x.detach().numpy()
        return 2 * np.cos(x) - x * np.sin(x)

    def tensor_formula(f, x):
        return 2 * mg.cos(x) - x * mg.sin(x)

    assert "no backward pass ran" in problem(said(check, numpy_formula))
    assert "no backward pass ran" in problem(said(check, tensor_formula))
    raw = problem(said(check, lambda f, x: np.cos(x.numpy())))
    assert "numpy cannot differentiate" in raw


def without_create_graph(f, x):
    return mg.autograd.grad(_first(f, x, create_graph=False).sum(), x)[0]


def through_grad(f, x):  # the second backward adds f'' onto x.grad, which holds f'
    f(x).sum().backward(create_graph=True)
    x.grad.sum().backward()
    return x.grad


def test_06_each_foreseen_mistake_gets_its_message(said):
    check = lesson06.check_second_derivative

    def without_sum(f, x):
        return mg.autograd.grad(f(x), x, create_graph=True)[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # backward(create_graph=True)'s reference-cycle warning
        assert "compute it with create_graph=True" in problem(said(check, without_create_graph))
        assert "f' + f''" in problem(said(check, through_grad))
    assert "Differentiate a scalar" in problem(said(check, without_sum))
    assert "`...` returns None" in problem(said(check, lambda f, x: None))
    assert "should be a function" in problem(said(check, 2.0))
    assert "return a tensor of f''(x)" in problem(said(check, lambda f, x: object()))


def test_06_backward_with_create_graph_and_a_reset_passes(said):
    def through_backward(f, x):
        f(x).sum().backward(create_graph=True)
        first, x.grad = x.grad, None
        first.sum().backward()
        return x.grad

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert passed(said(lesson06.check_second_derivative, through_backward))


# --- 07: the update must be one autograd can see -----------------------------------------------


def test_07_data_updates_do_not_pass(said):
    def through_data(params, lr):
        for p in params:
            p.data -= lr * p.grad

    def assigning_data(params, lr):
        for p in params:
            p.data = p.data - lr * p.grad

    for step in (through_data, assigning_data):
        out = problem(said(lesson07.check_sgd_step, step))
        assert "version counters of w and b did not move" in out and "`.data`" in out


def test_07_detach_shares_the_counter_and_passes(said):
    def through_detach(params, lr):
        for p in params:
            p.detach().sub_(lr * p.grad)

    assert passed(said(lesson07.check_sgd_step, through_detach))


def ascent(params, lr):
    with mg.no_grad():
        for p in params:
            p += lr * p.grad


def no_lr(params, lr):
    with mg.no_grad():
        for p in params:
            p -= p.grad


def test_07_sign_learning_rate_and_errors(said):
    def typo(params, lr):
        with mg.no_grad():
            for p in params:
                p -= lr * p.gard

    check = lesson07.check_sgd_step
    assert "moved *up* the gradient" in problem(said(check, ascent))
    assert "multiply it by the learning rate" in problem(said(check, no_lr))
    assert "AttributeError" in problem(said(check, typo))
    assert "should be a function" in problem(said(check, None))


# --- learner copies: an untouched stub is named as one ----------------------------------------


def test_untouched_function_stubs_say_so(said):
    def stub(*args): ...

    assert "is the body still `...`" in problem(said(lesson05.check_accumulated_grads, stub))
    assert "is the body still `...`" in problem(said(lesson07.check_sgd_step, stub))
    for check in (lesson02.check_node_names, lesson04.check_jacobian):
        assert "a function body of `...` returns None" in problem(said(check, stub))
    assert "`...` returns None" in problem(said(lesson06.check_second_derivative, stub))
