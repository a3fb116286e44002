"""Checks for lesson 09 (hooks).

The checks call the learner's hooks both directly and inside a real backward pass, so they can
tell apart "returned nothing", "changed the gradient in place" and "computed the wrong thing".
"""

from __future__ import annotations

from typing import Any

import minigrad as mg

from .feedback import Verdict, close, verdict


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def check_clip_hook(make_hook: Any) -> None:
    """`make_hook(limit)` returns a tensor hook clamping each entry to [-limit, limit]."""
    v = verdict("Clipping hook")
    if not v.answered(make_hook, "clip_grad_hook"):
        return _stop(v)
    try:
        hook = make_hook(2.0)
    except Exception as err:  # the learner's code: report whatever it raised
        v.require(False, f"clip_grad_hook(2.0) raised {type(err).__name__}: {err}")
        return _stop(v)
    if not v.require(
        callable(hook),
        f"clip_grad_hook(limit) should RETURN a function (the hook), got {type(hook).__name__}.",
    ):
        return _stop(v)
    g = mg.tensor([-5.0, 0.5, 3.0])
    try:
        out = hook(g)
    except Exception as err:
        v.require(False, f"calling the hook on a gradient raised {type(err).__name__}: {err}")
        return _stop(v)
    if out is None:
        if g.tolist() != [-5.0, 0.5, 3.0]:
            v.require(
                False,
                "your hook changed the gradient in place and returned None. Don't: "
                "the gradient tensor a hook receives may be shared with other parts "
                "of the graph. Return a new tensor instead.",
            )
        else:
            v.require(
                False,
                "your hook returned None, which means 'leave the gradient as it "
                "is'. Return the clipped gradient.",
            )
        return _stop(v)
    if g.tolist() != [-5.0, 0.5, 3.0]:
        v.require(
            False,
            "your hook modified its argument in place before returning. Compute "
            "a new tensor (e.g. grad.clamp(...)) and leave the argument alone.",
        )
    if close(out, [0.0, 0.5, 2.0]):
        v.require(
            False,
            "only the upper side is clipped: -5 became 0 instead of -2. Clamp to [-limit, limit].",
        )
    elif close(out, [-5.0, 0.5, 2.0]):
        v.require(False, "only the upper side is clipped: -5 should become -2.")
    elif close(out, (g * (2.0 / g.norm())).tolist(), atol=1e-4):
        v.require(
            False,
            "you rescaled the whole gradient to norm 2 (that is what "
            "clip_grad_norm_ does). Here each entry is clamped on its own.",
        )
    else:
        v.require(
            close(out, [-2.0, 0.5, 2.0]),
            f"for limit 2 the gradient [-5, 0.5, 3] should become [-2, 0.5, 2], "
            f"got {mg.tensor(out).tolist() if not hasattr(out, 'tolist') else out.tolist()}.",
        )
    if v.problems:
        return _stop(v)
    x = mg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    x.register_hook(make_hook(1.0))
    (x * mg.tensor([10.0, 0.1, -10.0])).sum().backward()
    v.require(
        x.grad is not None and close(x.grad, [1.0, 0.1, -1.0]),
        f"registered on a leaf with incoming gradient [10, 0.1, -10] and limit 1, x.grad "
        f"should be [1, 0.1, -1], got {None if x.grad is None else x.grad.tolist()}.",
    )
    v.done("the hook returns a new, clamped gradient and leaves its argument untouched.")


def _tiny_model() -> mg.nn.Module:
    mg.manual_seed(3)
    return mg.nn.Sequential(mg.nn.Linear(3, 4), mg.nn.Tanh(), mg.nn.Linear(4, 2))


def _run(model: mg.nn.Module, seed: int) -> dict[str, float]:
    """One backward with fresh .grad; returns each parameter's gradient norm."""
    model.zero_grad(set_to_none=True)
    mg.manual_seed(seed)
    model(mg.randn(5, 3)).pow(2).sum().backward()
    return {n: p.grad.norm().item() for n, p in model.named_parameters()}


def check_watch_gradients(watch: Any) -> None:
    """`watch(model, norms)` appends each parameter's grad norm per backward; returns handles."""
    v = verdict("Gradient monitor")
    if not v.answered(watch, "watch_gradients"):
        return _stop(v)
    model = _tiny_model()
    names = [n for n, _ in model.named_parameters()]
    norms: dict[str, list[float]] = {}
    try:
        handles = watch(model, norms)
        expected = [_run(model, 1), _run(model, 2)]
    except Exception as err:
        v.require(False, f"registering or running your hooks raised {type(err).__name__}: {err}")
        return _stop(v)
    missing = [n for n in names if n not in norms]
    if not v.require(
        not missing,
        f"no entry in norms for {', '.join(missing)}: register one hook "
        "per parameter, keyed by its name from model.named_parameters().",
    ):
        return _stop(v)
    for n in names:
        got = norms[n]
        if not v.require(
            isinstance(got, list) and len(got) == 2,
            f"norms['{n}'] should hold one number per backward pass (2 so far), got "
            f"{got!r}. Append to a list rather than overwrite.",
        ):
            return _stop(v)
        want = [e[n] for e in expected]
        v.require(
            close(got, want, rtol=1e-4),
            f"norms['{n}'] is {[round(float(a), 4) for a in got]}, expected "
            f"{[round(a, 4) for a in want]} (the norm of that parameter's gradient, "
            "p.grad.norm(), as a Python float).",
        )
    if v.problems:
        return _stop(v)
    try:
        handle_list = list(handles)
    except TypeError:
        handle_list = []
    if not v.require(
        len(handle_list) == len(names) and all(hasattr(h, "remove") for h in handle_list),
        f"return a list with the {len(names)} handles that register_hook (or "
        "register_post_accumulate_grad_hook) gave you, so the caller can remove "
        "the hooks.",
    ):
        return _stop(v)
    for h in handle_list:
        h.remove()
    _run(model, 3)
    v.require(
        all(len(norms[n]) == 2 for n in names),
        "after removing every handle the hooks still fired on the next backward: are the "
        "handles you returned the ones the hooks were registered with?",
    )
    v.done("one hook per parameter, one norm per backward, and removable.")
