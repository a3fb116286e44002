"""Lesson 01 (start here): the setup check and the first exercise's check."""

from __future__ import annotations

from typing import Any

from .feedback import close, verdict
from .hints import register

register(
    "01",
    "first gradient",
    "Three steps: build f from x, call f.backward(), then read the gradient where backward "
    "left it.",
    "f is a one-element tensor, so its backward() needs no argument; afterwards the slope at "
    "x = 2 is in x.grad.",
)


def setup_check() -> None:
    """Say, line by line, whether everything the lessons need is in place.

    A learner on a broken install should learn *which* piece is missing and how to get it, here in
    lesson 01, rather than from a traceback in the middle of lesson 05.
    """
    ok = True
    try:
        import minigrad

        x = minigrad.tensor([3.0], requires_grad=True)
        (x * x).sum().backward()
        works = x.grad is not None and close(x.grad, [6.0])
        print(f"{'✓' if works else '✗'} minigrad {minigrad.__version__} imports and differentiates")
        ok &= works
    except Exception as err:  # any failure here is what the learner must read about
        print(f"✗ minigrad does not import: {err}. Run `pip install -e .` in the repository.")
        return

    try:
        from widgets import draw_graph

        y = (x * 2).sum()
        svg = draw_graph(y).svg()
        drawn = "<svg" in svg
        print(f"{'✓' if drawn else '✗'} the graph explorer draws a tiny graph")
        ok &= drawn
    except Exception as err:
        ok = False
        print(f"✗ the graph explorer could not draw: {type(err).__name__}: {err}")
    print("All set: on to the lessons!" if ok else "Fix the ✗ lines above before you go on.")


def check_first_gradient(answer: Any) -> None:
    """f(x) = 3x² + 2x at x = 2: df/dx = 6x + 2 = 14."""
    v = verdict("first gradient")
    if not v.answered(answer, "`answer`"):
        v.done("")
        return
    if answer is None:
        v.require(
            False,
            "`answer` is None: x.grad stays None until a backward pass reaches x. "
            "Call f.backward() before reading x.grad.",
        )
        v.done("")
        return
    if v.require(
        hasattr(answer, "grad_fn") or isinstance(answer, int | float),
        f"`answer` should be a tensor (x.grad) or a number, not {type(answer).__name__}.",
    ):
        if close(answer, [14.0]) or close(answer, 14.0):
            v.done("df/dx = 6x + 2 = 14 at x = 2, exactly what x.grad holds.")
            return
        if close(answer, [16.0]) or close(answer, 16.0):
            v.require(
                False,
                "you got 16, the value of f(2) = 3·4 + 2·2, not its slope: "
                "read x.grad after f.backward().",
            )
        elif hasattr(answer, "grad_fn") and answer.numel() != 1:
            v.require(False, f"`answer` should hold one number, got {answer!r}.")
        elif close(answer, [2.0]) or close(answer, 2.0):
            v.require(False, "you handed in x itself (2): the gradient is in x.grad.")
        elif close(answer, [28.0]) or close(answer, 28.0):
            v.require(
                False,
                "you got 28 = 2 × 14: did you call backward twice? Gradients add "
                "up (lesson 05); rebuild x before running again.",
            )
        else:
            v.require(
                False,
                f"x.grad should be 6·x + 2 = 14 at x = 2 (the derivative of "
                f"3x² + 2x), but you got {_show(answer)}.",
            )
    v.done("")


def _show(value: Any) -> str:
    return str(value.tolist()) if hasattr(value, "tolist") else repr(value)
