"""Lessons 08-12 and 17: hints for every exercise, the lesson frame (hint import, hint reminder,
"Next:"), and the checks' answers to the learner-copy stubs, shortcuts and copied cells (lesson
17's own checks: test_lesson17.py).

A learner copy leaves `def f(...): ...` (a function returning None) or a Function whose methods
are `...`; each check must say "still `...`" there, never raise. The method checks (rejecting a
copied helper, `.data` updates, a forward outside `no_grad`, tensors kept on ctx) are pinned down
with the exact answer a learner would write.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from labkit import hints, lesson08, lesson09, lesson10, lesson11, lesson12, lesson17

import minigrad as mg
from minigrad.autograd import Function

NB_DIR = Path(__file__).resolve().parents[2] / "notebooks"
MODULES = {
    "08": lesson08,
    "09": lesson09,
    "10": lesson10,
    "11": lesson11,
    "12": lesson12,
    "17": lesson17,
}
CHECK_CALL = re.compile(r"lesson(\d\d)\.(check_\w+)\(")


def passed(out: str) -> bool:
    return out.startswith("✓")


def failed_with(out: str, *words: str) -> bool:
    """A failed check that names the problem (every word present) and offers no traceback."""
    return out.startswith("✗") and all(w in out for w in words) and "Traceback" not in out


def _notebook(number: str) -> nbformat.NotebookNode:
    (path,) = NB_DIR.glob(f"{number}_*.ipynb")
    return nbformat.read(path, as_version=4)


def _checks(number: str) -> list[str]:
    """The check functions the lesson's cells call, in order."""
    nb = _notebook(number)
    found = [
        m.group(2) for c in nb.cells if c.cell_type == "code" for m in CHECK_CALL.finditer(c.source)
    ]
    return list(dict.fromkeys(found))


# --- hints and the lesson frame -------------------------------------------------------------


@pytest.mark.parametrize("number", sorted(MODULES))
def test_every_exercise_has_one_to_three_hints(number, capsys):
    checks = _checks(number)
    assert checks, f"lesson {number} has no checks"
    for name in checks:
        getattr(MODULES[number], name)(...)  # names its exercise (verdict), then: still `...`
        out = capsys.readouterr().out
        exercise = hints._last[0]
        assert "still `...`" in out and "Stuck? Run `hint()`" in out, (number, name, out)
        assert 1 <= len(hints.HINTS[exercise]) <= 3, exercise
        assert hints.LESSON_OF[exercise] == number, exercise


@pytest.mark.parametrize("number", sorted(MODULES))
def test_lesson_imports_hint_reminds_of_it_once_and_ends_with_next(number):
    nb = _notebook(number)
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    assert re.search(rf"from labkit import hint, lesson{number}\b", code[0]), code[0]
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    reminders = [m for m in markdown if "`hint()`" in m]
    assert len(reminders) == 1 and "one at a time" in reminders[0]
    first_exercise = next(m for m in markdown if re.search(r"^#+ .*Exercise", m, re.MULTILINE))
    assert first_exercise == reminders[0], "the reminder belongs to the first exercise"
    last = markdown[-1].rstrip().splitlines()
    assert last[0].startswith("## Summary")
    assert any(line.startswith("Next:") for line in last[-5:]), last[-5:]
    for source in code:
        assert "import minigrad as torch" not in source


def test_lesson_12_next_is_13():
    last = [c.source for c in _notebook("12").cells if c.cell_type == "markdown"][-1]
    assert "Next: **13 ·" in last


# --- 08 ---------------------------------------------------------------------------------------


def test_08_swish_stub_and_shortcuts(said):
    def stub(x): ...

    assert failed_with(said(lesson08.check_swish, stub), "still `...`")

    def under_no_grad(x):
        with mg.no_grad():
            s = x.sigmoid()
            s.mul_(x)
            return s

    assert failed_with(said(lesson08.check_swish, under_no_grad), "no_grad()")

    def detached(x):
        s = x.sigmoid().detach()
        s.mul_(x)
        return s

    assert failed_with(said(lesson08.check_swish, detached), "just sigmoid(x)")
    assert failed_with(said(lesson08.check_swish, lambda x: x.detach().numpy()), "ndarray")
    assert failed_with(said(lesson08.check_swish, lambda x: [1.0]), "returned a list")

    def cloned(x):  # a fine fix: the in-place write hits a copy nobody saved
        s = x.sigmoid().clone()
        s.mul_(x)
        return s

    assert passed(said(lesson08.check_swish, cloned))


# --- 09 ---------------------------------------------------------------------------------------


def test_09_clip_hook_stub_and_copies(said):
    def stub(limit): ...

    assert failed_with(said(lesson09.check_clip_hook, stub), "still `...`")
    halves = said(lesson09.check_clip_hook, lambda limit: lambda g: g * 0.5)
    assert failed_with(halves, "halves the gradient", "section 2")
    fixed = said(lesson09.check_clip_hook, lambda limit: lambda g: g.clamp(-2.0, 2.0))
    assert failed_with(fixed, "its own `limit`")
    assert failed_with(
        said(lesson09.check_clip_hook, lambda limit: lambda g: [0.0]), "must return a minigrad"
    )


def test_09_clip_hook_calling_real_torch_is_named(said):
    torch = pytest.importorskip("torch")
    out = said(lesson09.check_clip_hook, lambda limit: lambda g: torch.clamp(g, -limit, limit))
    assert failed_with(out, "real PyTorch function")


def _monitor(kind: str):
    def watch(model, norms):
        handles = []
        for name, p in model.named_parameters():
            if kind != "no setdefault":
                norms[name] = []
            if kind == "late binding":
                hook = lambda t: norms[name].append(t.grad.norm().item())  # noqa: E731, B023
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind == "tensor hook reads .grad":
                hook = lambda g, p=p, name=name: norms[name].append(p.grad.norm().item())  # noqa: E731
                handles.append(p.register_hook(hook))
            elif kind == "tensors":
                hook = lambda t, name=name: norms[name].append(t.grad.norm())  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind == "overwrite":
                hook = lambda t, name=name: norms.__setitem__(name, [t.grad.norm().item()])  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind == "no setdefault":
                hook = lambda t, name=name: norms[name].append(t.grad.norm().item())  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
            elif kind in ("right", "no handles", "wrong norm"):
                scale = 2.0 if kind == "wrong norm" else 1.0
                hook = lambda t, name=name, s=scale: norms[name].append(s * t.grad.norm().item())  # noqa: E731
                handles.append(p.register_post_accumulate_grad_hook(hook))
        return [] if kind == "no handles" else handles

    return watch


def test_09_watch_gradients_stub_and_classic_slips(said):
    def stub(model, norms): ...

    check = lesson09.check_watch_gradients
    assert failed_with(said(check, stub), "still `...`")
    assert failed_with(said(check, _monitor("late binding")), "name=name")
    assert failed_with(
        said(check, _monitor("tensor hook reads .grad")), "BEFORE", "post_accumulate"
    )
    assert failed_with(said(check, _monitor("tensors")), "Python floats")

    def copied_from_section_6(model, norms):  # only watches names already in norms
        for name, p in model.named_parameters():
            if name in norms:
                p.register_post_accumulate_grad_hook(lambda t: None)
        return []

    assert failed_with(said(check, copied_from_section_6), "norms starts empty")


# --- 10 ---------------------------------------------------------------------------------------


def _function(forward, backward):
    return type(
        "Answer",
        (Function,),
        {"forward": staticmethod(forward), "backward": staticmethod(backward)},
    )


def _stub(ctx, *args): ...


def _tanh_forward(ctx, x, scale):
    t = x.tanh()
    ctx.save_for_backward(t)
    ctx.scale = scale
    return t * scale


def _tanh_backward(ctx, g):
    (t,) = ctx.saved_tensors
    return g * ctx.scale * (1 - t * t), None


def _tanh_on_ctx(ctx, x, scale):
    ctx.t, ctx.scale = x.tanh(), scale
    return ctx.t * scale


def _tanh_from_ctx(ctx, g):
    return g * ctx.scale * (1 - ctx.t * ctx.t), None


def _tuple_not_unpacked(ctx, g):
    t = ctx.saved_tensors
    return g * ctx.scale * (1 - t * t), None


def _saves_scale(ctx, x, scale):
    ctx.save_for_backward(x, scale)
    return x.tanh() * scale


def test_10_scaled_tanh_stubs_and_ctx_mistakes(said):
    check = lesson10.check_scaled_tanh
    assert passed(said(check, _function(_tanh_forward, _tanh_backward)))
    assert failed_with(said(check, _function(_stub, _stub)), "still `...`")
    assert failed_with(said(check, _function(_tanh_forward, _stub)), "None for scale", "`...`")

    on_ctx = _function(_tanh_on_ctx, _tanh_from_ctx)
    assert failed_with(said(check, on_ctx), "ctx.t", "save_for_backward")
    assert failed_with(said(check, _function(_tanh_forward, _tuple_not_unpacked)), "(t,) =")
    assert failed_with(said(check, _function(_saves_scale, _tanh_backward)), "tensors only")


def _sign_forward(ctx, x):
    ctx.save_for_backward(x)
    return mg.where(x >= 0, 1.0, -1.0)


def _true_sign(ctx, x):
    ctx.save_for_backward(x)
    return x.sign()


def _mask_on_ctx(ctx, x):
    ctx.mask = x.abs() <= 1
    return mg.where(x >= 0, 1.0, -1.0)


def test_10_sign_ste_stubs_and_near_misses(said):
    check = lesson10.check_sign_ste
    assert failed_with(said(check, _function(_stub, _stub)), "still `...`")
    assert failed_with(said(check, _function(_sign_forward, _stub)), "x.grad is None", "`...`")

    assert failed_with(said(check, _function(_true_sign, lambda ctx, g: g)), "sign(0) is 0")
    clamped = _function(_sign_forward, lambda ctx, g: g.clamp(-1, 1))
    assert failed_with(said(check, clamped), "clamped the gradient itself")
    on_ctx = _function(_mask_on_ctx, lambda ctx, g: g * ctx.mask)
    assert failed_with(said(check, on_ctx), "ctx.mask")


# --- 11 ---------------------------------------------------------------------------------------


def test_11_missing_grad_is_never_a_raw_attribute_error(said):
    check = lesson11.check_params_without_grad

    def stub(model): ...

    assert failed_with(said(check, stub), "still `...`")
    by_value = said(
        check, lambda m: [n for n, p in m.named_parameters() if p.grad.abs().sum() == 0]
    )
    assert failed_with(by_value, "`p.grad` is None", "Test `p.grad is None` first")
    truthiness = said(check, lambda m: [n for n, p in m.named_parameters() if not p.grad])
    assert failed_with(truthiness, "ambiguous", "`p.grad is None`")
    copied = said(check, lambda m: ["temperature", "extra.weight", "extra.bias"])
    assert failed_with(copied, "not parameters of the model", "`model` argument")

    def clears_first(model):
        model.zero_grad()
        return [n for n, p in model.named_parameters() if p.grad is None]

    assert failed_with(said(check, clears_first), "every parameter", "zero_grad")


def test_11_safe_norm_stub_builtin_and_copied_cell(said):
    check = lesson11.check_safe_norm

    def stub(v): ...

    assert failed_with(said(check, stub), "still `...`")
    assert failed_with(said(check, lambda v: v.norm(dim=1)), "built-in norm")
    assert failed_with(said(check, lambda v: v.detach().numpy()), "returned a ndarray")
    a = mg.tensor([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]], requires_grad=True)
    b = mg.tensor([[3.0, 4.0], [1.0, 1.0], [2.0, 1.0]])

    def copied(v):  # the lesson's safe distance, on the lesson's a and b
        squared = ((a - b) ** 2).sum(dim=1)
        positive = squared > 0
        return mg.where(positive, mg.where(positive, squared, 1.0).sqrt(), 0.0)

    assert failed_with(said(check, copied), "lesson's `a` and `b`")


# --- 12 ---------------------------------------------------------------------------------------

LESSON_CELL = """
def walk(root):
    seen, stack = [], [root]
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.append(node)
            stack.extend(n for n, _ in node.next_functions)
    return seen


def dependencies(root):
    counts = {root: 0}
    for node in walk(root):
        for nxt, _ in node.next_functions:
            if nxt is not None:
                counts[nxt] = counts.get(nxt, 0) + 1
    return counts


def seq(node):
    return node._sequence_nr()
"""

LEARNER_CELL = """
def reuses_dependencies(root):
    return dependencies(root)


def own_walk(root):
    def walk(node):  # the learner's own helper, in the learner's own cell
        return [node]

    return {root: 0, **{n: 1 for n in walk(root)[1:]}}


def by_sequence_number(root):
    return sorted(walk(root), key=seq, reverse=True)


def no_none_check(root):
    counts, explored, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            counts[nxt] = counts.get(nxt, 0) + 1
            if nxt not in explored:
                explored.add(nxt)
                stack.append(nxt)
    return counts


def bfs(root):
    order, seen, queue = [], {root}, [root]
    while queue:
        node = queue.pop(0)
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return order
"""


@pytest.fixture(scope="module")
def cells() -> dict:
    """The lesson's helpers and a learner's answers, compiled as two notebook cells are."""
    namespace: dict = {}
    exec(compile(LESSON_CELL, "<lesson cell>", "exec"), namespace)
    exec(compile(LEARNER_CELL, "<learner cell>", "exec"), namespace)
    return namespace


def test_12_count_dependencies_rejects_the_lessons_answer_and_names_none_edges(said, cells):
    check = lesson12.check_count_dependencies

    def stub(root): ...

    assert failed_with(said(check, stub), "still `...`")
    assert failed_with(said(check, cells["dependencies"]), "lesson's `dependencies`/`walk`")
    assert failed_with(said(check, cells["reuses_dependencies"]), "lesson's `dependencies`/`walk`")
    own = said(check, cells["own_walk"])  # not flagged as borrowed: it fails on its counts instead
    assert own.startswith("✗") and "lesson's" not in own
    assert failed_with(said(check, cells["no_none_check"]), "(None, 0)", "Skip")
    names = said(check, lambda r: {n.name(): 1 for n, _ in r.next_functions})
    assert failed_with(names, "keys are strings")


def test_12_topological_order_needs_edges_not_sequence_numbers(said, cells):
    check = lesson12.check_topological_order

    def stub(root): ...

    assert failed_with(said(check, stub), "still `...`")
    assert failed_with(said(check, cells["by_sequence_number"]), "sequence numbers")
    bfs = said(check, cells["bfs"])
    assert failed_with(bfs, "MulBackward0 (a = x * w) comes before", "BFS")
    assert failed_with(said(check, lambda r: [r.name()]), "strings")
