"""Lesson 17 (forward mode and the functional API): counting passes, and checking two methods.

`backward_passes(lib, run)` counts the backward passes a piece of code starts, in minigrad (its
engine reports each one) and in PyTorch (every pass of its functional API goes through
`torch.autograd.grad`). The checks call the learner's functions on functions and points of their
own, count the passes minigrad's engine ran, and compare with `mg.autograd.functional` on fresh
inputs: a matrix copied from the notebook, a formula, the library doing the work, or the costlier
direction cannot pass.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.autograd import functional as mg_functional
from minigrad.autograd import record_steps

from .feedback import Verdict, verdict
from .hints import register
from .jacobians import same as _same
from .jacobians import slip

JACOBIAN = "Jacobian, the cheaper way"
HVP = "Hessian-vector product"

register(
    "17",
    JACOBIAN,
    "First run f(x) once to learn the shape: m = y.numel() outputs, n = x.numel() inputs. Rows "
    "cost one backward pass per output (m), columns by the double-backward trick one pass for "
    "g = Jᵀu plus one per input (n + 1). Pick the smaller.",
    "Rows: jacobian_by_rows(f, x) from section 4. Columns: u = mg.zeros_like(y, "
    "requires_grad=True), then g = Jᵀu from ONE mg.autograd.grad(y, x, grad_outputs=u, "
    "create_graph=True); it does not depend on which column you want, so reuse it.",
    "For each input j: column j is mg.autograd.grad(g, u, grad_outputs=mg.eye(n)[j], "
    "retain_graph=True)[0] (retain_graph: g's graph serves every column). mg.stack(columns, "
    "dim=1) puts them side by side: shape (m, n).",
)
register(
    "17",
    HVP,
    "Two backward passes, whatever the size of x: the first gives the gradient g as a tensor "
    "with a graph of its own, the second differentiates g in the direction v.",
    "g = mg.autograd.grad(f(x), x, create_graph=True)[0]. Without create_graph, g is plain "
    "numbers and cannot be differentiated.",
    "Differentiate g weighted by v: mg.autograd.grad(g, x, grad_outputs=v)[0] (the same as "
    "the gradient of (g * v).sum()). That is vᵀH, and vᵀH = Hv because H is symmetric.",
)


# --- counting passes, in both libraries ---------------------------------------------------------


@contextmanager
def _counting_torch_passes() -> Iterator[list[str]]:
    """Count calls of torch.autograd.grad and torch.autograd.backward (Tensor.backward calls the
    latter) while the block runs; each call is one backward pass of PyTorch's engine."""
    import torch  # here, not at the top: labkit.progress() imports every lesson module

    calls: list[str] = []
    real = {name: getattr(torch.autograd, name) for name in ("grad", "backward")}

    def counted(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return real[name](*args, **kwargs)

        return call

    for name in real:
        setattr(torch.autograd, name, counted(name))
    try:
        yield calls
    finally:
        for name, fn in real.items():
            setattr(torch.autograd, name, fn)


def backward_passes(lib: Any, run: Callable[[], Any]) -> int:
    """How many backward passes `run()` starts, with `lib` minigrad or torch."""
    if lib is mg:
        with record_steps() as steps:
            run()
        return steps.kinds().count("backward_start")
    with _counting_torch_passes() as calls:
        run()
    return len(calls)


# --- what the learner's function did -----------------------------------------------------------


@contextmanager
def _watching() -> Iterator[set[str]]:
    """Which functions of mg.autograd.functional run while the block runs, however the learner
    reached them (even bound to a name before the check): each of them differentiates through
    the module's `_grad`, and the spy notes who called it ("jacobian", which `hessian` uses too,
    "vjp", "jvp", or "hvp"/"vhp")."""
    used: set[str] = set()
    real = mg_functional._grad

    def spy(*args: Any, **kwargs: Any) -> Any:
        caller = sys._getframe(1)
        name = caller.f_code.co_name
        used.add(caller.f_locals.get("name", name) if name == "_hessian_product" else name)
        return real(*args, **kwargs)

    mg_functional._grad = spy
    try:
        yield used
    finally:
        mg_functional._grad = real


def _run(fn: Callable[..., Any], args: tuple) -> tuple:
    """(result, error, backward passes, their create_graph flags, library functions used)."""
    result, error = None, None
    with _watching() as used, record_steps() as steps:
        try:
            result = fn(*args)
        except Exception as err:  # the learner's error is feedback, not a crash of the check
            error = err
    starts = [r for r in steps if r["kind"] == "backward_start"]
    return result, error, len(starts), [bool(r["create_graph"]) for r in starts], used


def _as_array(value: Any) -> np.ndarray | None:
    if isinstance(value, list | tuple) and value and all(hasattr(v, "detach") for v in value):
        value = [v.detach().tolist() for v in value]  # a list of row (or column) tensors
    if hasattr(value, "detach"):
        value = value.detach()
    if hasattr(value, "tolist"):
        value = value.tolist()
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None


def _first_sentence(err: Exception) -> str:
    return str(err).split(". ")[0].split("\n")[0].rstrip(".")


def _explain(err: Exception) -> str:
    """What a typical error inside the learner's function means, in the lesson's words."""
    text = str(err)
    known = (
        (
            "One of the differentiated Tensors does not require grad",
            "The dummy u must require grad, since the column passes differentiate with respect "
            "to it: mg.zeros_like(y, requires_grad=True).",
        ),
        (
            "does not require grad and does not have a grad_fn",
            "The first pass has to build a graph of its own: pass create_graph=True to it, or "
            "its result is plain numbers that cannot be differentiated again.",
        ),
        (
            "backward through the graph a second time",
            "A pass freed a graph that a later pass needs: retain_graph=True on every pass "
            "that reuses a graph (create_graph=True already keeps the first one).",
        ),
        (
            "implicitly created only for scalar outputs",
            "That output has several entries, so its pass needs a vector: grad_outputs= a "
            "tensor shaped like it (a one-hot vector, u, or v).",
        ),
        (
            "Mismatch in shape",
            "grad_outputs must have the shape of what you differentiate: read the sizes from "
            "y and x instead of fixing them.",
        ),
        (
            "appears to not have been used in the graph",
            "Differentiate with respect to the x your function was given (the one f used), "
            "or, for a column, with respect to u.",
        ),
        ("Can't call numpy()", "Stay with tensors and autograd: numpy cannot differentiate."),
    )
    for key, meaning in known:
        if key in text:
            return " " + meaning
    if isinstance(err, IndexError):
        return " Read the sizes from y and x (y.numel(), x.numel()) instead of fixing them."
    return ""


def _usable(v: Verdict, label: str, result: Any, error: Exception | None, what: str) -> Any:
    """The answer as an array, or None after saying why there is nothing to compare."""
    if error is not None:
        v.require(
            False,
            f"on {label} your function raised {type(error).__name__}: “{_first_sentence(error)}”."
            + _explain(error),
        )
        return None
    if result is None or result is Ellipsis:
        v.require(
            False,
            f"on {label} your function returned {result!r}: is its body still `...`, or is "
            f"the `return` missing? It should return {what}.",
        )
        return None
    got = _as_array(result)
    if got is None:
        v.require(
            False,
            f"on {label} you returned a {type(result).__name__}: return a tensor of {what}.",
        )
    return got


def _callable(v: Verdict, fn: Any, name: str, signature: str) -> bool:
    if not v.answered(fn, f"`{name}`"):
        return False
    return v.require(
        callable(fn), f"`{name}` should be a function {signature}, not {type(fn).__name__}."
    )


# --- exercise 1: a Jacobian, the cheaper way ----------------------------------------------------


def _jacobian_cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray]]:
    """(description, f, point): a wide and a tall function, at points the notebook never shows."""
    rng = np.random.default_rng(1717)
    times = mg.linspace(0.0, 1.0, 7)

    def wide(x: Any) -> Any:
        return mg.stack([(x * x.exp()).sum(), (x[:-1] * x[1:]).sum()])

    def tall(x: Any) -> Any:
        return (x[0] * times).sin() + x[1] * times**2

    return [
        (
            "a wide f (6 inputs, 2 outputs: [Σ x·eˣ, Σ x_k·x_k+1])",
            wide,
            rng.uniform(-1, 1, 6).round(2),
        ),
        (
            "a tall f (2 inputs, 7 outputs: sin(x0·t) + x1·t² at 7 times t)",
            tall,
            rng.uniform(-1, 1, 2).round(2),
        ),
    ]


def _jacobian_passes(label: str, passes: int, flags: list[bool], m: int, n: int) -> str | None:
    """None if the passes are the cheaper direction's, else what the learner's passes show."""
    by_rows, by_columns = m, n + 1
    best = min(by_rows, by_columns)
    if passes == best and (best == by_rows or (flags and flags[0])):
        return None
    cost = (
        f"with {m} outputs and {n} inputs, rows cost {by_rows} passes (one per output) and "
        f"columns {by_columns} (one for g = Jᵀu, then one per input)"
    )
    if passes == by_columns and by_rows < by_columns:
        return (
            f"on {label} the matrix is right, but your {passes} backward passes went column by "
            f"column: {cost}. Here rows are cheaper."
        )
    if passes == by_rows and by_columns < by_rows:
        return (
            f"on {label} the matrix is right, but your {passes} backward passes went row by "
            f"row, one per output: {cost}. Here columns are cheaper."
        )
    if passes == 2 * n and by_columns < by_rows:
        return (
            f"on {label} the matrix is right, but it took {passes} passes, two per column: "
            "each column ran its own first pass (mg.autograd.functional.jvp does that). The "
            "first pass, g = Jᵀu, is the same for every column: run it once and reuse it with "
            f"retain_graph=True, {by_columns} passes in all."
        )
    return f"on {label} the matrix is right, but it took {passes} backward passes: {cost}."


def _diagnose_jacobian(got: np.ndarray, want: np.ndarray) -> str:
    rows, cols = want.shape
    if _same(got, want.T):
        return (
            f"you have the transpose: rows should be the {rows} outputs and columns the {cols} "
            "inputs (J[i][j] = ∂y_i/∂x_j). Columns collected in a list go side by side with "
            "mg.stack(columns, dim=1)."
        )
    if _same(got, want.sum(1)):
        return (
            "that is one Jacobian-vector product with v = all ones (J·1): a one-hot v per "
            "input gives each column."
        )
    return slip(got, want)


def check_jacobian(jacobian: Callable[[Callable[[Any], Any], Any], Any]) -> None:
    """`jacobian(f, x)` must be f's Jacobian at x, built in the direction with fewer passes."""
    v = verdict(JACOBIAN)
    if not _callable(v, jacobian, "jacobian", "jacobian(f, x)"):
        v.done("")
        return
    for label, f, point in _jacobian_cases():
        want = mg_functional.jacobian(f, mg.tensor(point.tolist())).numpy()
        m, n = want.shape
        x = mg.tensor(point.tolist(), requires_grad=True)
        result, error, passes, flags, used = _run(jacobian, (f, x))
        got = _usable(v, label, result, error, "the Jacobian")
        if got is None:
            break
        if "jacobian" in used:
            v.require(
                False,
                f"on {label} mg.autograd.functional.jacobian did the work (and it always goes "
                "row by row). Build J yourself, by rows or by columns, whichever needs fewer "
                "backward passes.",
            )
            break
        if passes == 0:
            v.require(
                False,
                f"on {label} no backward pass ran: build J with backward passes (vjp rows or "
                "jvp columns), not from a formula or finite differences.",
            )
            break
        if not _same(got, want):
            v.require(False, f"on {label}: " + _diagnose_jacobian(got, want))
            break
        slower = _jacobian_passes(label, passes, flags, m, n)
        if not v.require(slower is None, slower or ""):
            break
    v.done(
        "rows for the wide f (2 passes), columns for the tall one (3 passes): one pass per "
        "output or one per input plus one, whichever is fewer."
    )


# --- exercise 2: a Hessian-vector product -------------------------------------------------------


def _hvp_cases() -> list[tuple[str, Callable[[Any], Any], np.ndarray, np.ndarray]]:
    """(description, f, point, v): two scalar functions with dense Hessians, fresh points."""
    rng = np.random.default_rng(1718)

    def chain(x: Any) -> Any:
        return (x.sin() * x).sum() + (x[:-1] * x[1:] ** 2).sum()

    def log_norm(x: Any) -> Any:
        return ((x**2).sum() + 1).log() + x[0] * x.exp().sum()

    return [
        (
            "f(x) = Σ x·sin(x) + Σ x_k·x_k+1² with 8 inputs",
            chain,
            rng.uniform(-1, 1, 8).round(2),
            rng.uniform(-1, 1, 8).round(2),
        ),
        (
            "f(x) = log(|x|² + 1) + x0·Σ eˣ with 5 inputs",
            log_norm,
            rng.uniform(-1, 1, 5).round(2),
            rng.uniform(-1, 1, 5).round(2),
        ),
    ]


def _diagnose_hvp(got: np.ndarray, f: Callable[[Any], Any], point: np.ndarray, vec: np.ndarray):
    x = mg.tensor(point.tolist())
    want = mg_functional.hvp(f, x, mg.tensor(vec.tolist()))[1].numpy()
    gradient = mg_functional.vjp(f, x)[1].numpy()
    row_sums = mg_functional.hvp(f, x, mg.ones(len(point)))[1].numpy()
    if _same(got, gradient):
        return (
            "that is the gradient g: differentiate it once more, in the direction v (compute g "
            "with create_graph=True, then mg.autograd.grad(g, x, grad_outputs=v))."
        )
    if _same(got, gradient * vec):
        return (
            "that is g·v entry by entry, one derivative only: Hv needs a second backward pass "
            "through g, weighted by v."
        )
    if _same(got, row_sums):
        return (
            "that is H·1, the sums of H's rows: the second pass differentiated g.sum(). Weight "
            "it by v instead: grad_outputs=v, or (g * v).sum()."
        )
    if _same(got, gradient + want):
        return (
            "that is g + Hv: the second backward() added Hv onto x.grad, which already held g. "
            "Use mg.autograd.grad, which returns gradients instead of accumulating them."
        )
    if got.shape != want.shape:
        return f"Hv has one entry per input, shape {want.shape}; yours has shape {got.shape}."
    wrong = np.argwhere(~np.isclose(got, want, rtol=1e-4, atol=1e-5)).ravel()
    return (
        f"{len(wrong)} entries differ; e.g. (Hv)[{wrong[0]}] should be {want[wrong[0]]:.4f} but "
        f"is {got[wrong[0]]:.4f}."
    )


def check_hvp(hvp: Callable[[Callable[[Any], Any], Any, Any], Any]) -> None:
    """`hvp(f, x, v)` must be H v by two backward passes, with no Hessian built."""
    v = verdict(HVP)
    if not _callable(v, hvp, "hvp", "hvp(f, x, v)"):
        v.done("")
        return
    for label, f, point, vec in _hvp_cases():
        n = len(point)
        want = mg_functional.hvp(f, mg.tensor(point.tolist()), mg.tensor(vec.tolist()))[1]
        x = mg.tensor(point.tolist(), requires_grad=True)
        direction = mg.tensor(vec.tolist())
        result, error, passes, flags, used = _run(hvp, (f, x, direction))
        got = _usable(v, label, result, error, "Hv")
        if got is None:
            break
        if "jacobian" in used:
            v.require(
                False,
                f"on {label} you built the whole Hessian ({n}×{n}) with the library, {passes} "
                "backward passes. Hv needs two passes and no matrix at all: the gradient with "
                "create_graph=True, then its derivative in the direction v.",
            )
            break
        products = sorted(used & {"hvp", "vhp"})
        if products:
            v.require(
                False,
                f"on {label} mg.autograd.functional.{products[0]} did the work. Write its two "
                "passes yourself: that is all it does inside.",
            )
            break
        if passes == 0:
            v.require(
                False,
                f"on {label} no backward pass ran: you computed Hv from a formula. Let "
                "autograd do it, so that it works for any f.",
            )
            break
        if passes >= n:
            v.require(
                False,
                f"on {label} your function ran {passes} backward passes for {n} inputs: that "
                f"is the cost of building the whole Hessian (one pass per row, {n + 1} with "
                "the gradient), which is what this exercise avoids. Hv needs two passes, "
                "whatever n.",
            )
            break
        if not _same(got, want.numpy()):
            v.require(False, f"on {label}: " + _diagnose_hvp(got, f, point, vec))
            break
        if not v.require(
            passes == 2 and flags[0],
            f"on {label} the values are right, but the engine ran {passes} backward passes: "
            "two are enough, the first with create_graph=True.",
        ):
            break
    v.done("Hv from two backward passes whatever the size of x; the n×n Hessian was never built.")
