"""Checks for lesson 09 (hooks).

The checks call the learner's hooks both directly and inside a real backward pass, so they can
tell apart "returned nothing", "changed the gradient in place" and "computed the wrong thing".
"""

from __future__ import annotations

from typing import Any

import minigrad as mg

from .feedback import Verdict, close, verdict
from .hints import register

register(
    "09",
    "Clipping hook",
    "`clip_grad_hook(limit)` builds a hook: define an inner function `hook(grad)` and return the "
    "function itself (do not call it).",
    "A tensor hook replaces the gradient by the tensor it returns; returning None keeps the "
    "gradient as it was, and changing `grad` in place is not allowed here.",
    "Limit every entry to the range from -limit to limit with the out-of-place `clamp` (not "
    "`clamp_`), and return its result.",
)
register(
    "09",
    "Gradient monitor",
    "Loop over `model.named_parameters()`; register one hook per parameter and keep the handle "
    "each `register_*` call returns.",
    "`register_post_accumulate_grad_hook(fn)` calls `fn(param)` once `.grad` is complete, so "
    "`param.grad.norm().item()` is there to read. A lambda made in a loop needs `name=name` as a "
    "default argument, or every hook sees the loop's last name.",
    "Create `norms[name]` once as an empty list (`setdefault`), append one float per call in the "
    "hook, and return the list of handles.",
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


def _raised(err: Exception, doing: str) -> str:
    """A sentence for an error raised by the learner's hook, naming the likely cause."""
    if isinstance(err, TypeError) and "Tensor" in str(err) and "expected" in str(err):
        return (
            f"{doing} raised TypeError: the hook received a minigrad tensor but called a real "
            "PyTorch function (`torch.…`) on it. Use minigrad here: `grad.clamp(...)` or `mg.…`."
        )
    return f"{doing} raised {type(err).__name__}: {err}"


def _as_list(value: Any) -> Any:
    return value.tolist() if hasattr(value, "tolist") else value


def check_clip_hook(make_hook: Any) -> None:
    """`make_hook(limit)` returns a tensor hook clamping each entry to [-limit, limit]."""
    v = verdict("Clipping hook")
    if not v.answered(make_hook, "clip_grad_hook"):
        return _stop(v)
    if not v.require(callable(make_hook), "clip_grad_hook should be a function of `limit`."):
        return _stop(v)
    try:
        hook = make_hook(2.0)
    except Exception as err:  # the learner's code: report whatever it raised
        v.require(False, _raised(err, "clip_grad_hook(2.0)"))
        return _stop(v)
    if hook is None:
        v.require(
            False,
            "clip_grad_hook(2.0) returned None: is its body still `...`, or is the "
            "`return hook` line missing? It should RETURN the hook function.",
        )
        return _stop(v)
    if not v.require(
        callable(hook),
        f"clip_grad_hook(limit) should RETURN a function (the hook), got {type(hook).__name__}: "
        "return the inner function itself, without calling it.",
    ):
        return _stop(v)
    g = mg.tensor([-5.0, 0.5, 3.0])
    try:
        out = hook(g)
    except Exception as err:
        v.require(False, _raised(err, "calling the hook on a gradient"))
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
    if not v.require(
        isinstance(out, mg.Tensor),
        f"the hook returned a {type(out).__name__}; a hook must return a minigrad tensor "
        "(the new gradient) or None.",
    ):
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
    elif close(out, [-2.5, 0.25, 1.5]):
        v.require(
            False,
            "your hook halves the gradient, like the example in section 2. Here each entry "
            "must be clamped to [-limit, limit]: small entries stay as they are.",
        )
    else:
        v.require(
            close(out, [-2.0, 0.5, 2.0]),
            "for limit 2 the gradient [-5, 0.5, 3] should become [-2, 0.5, 2], "
            f"got {_as_list(out)}.",
        )
    if v.problems:
        return _stop(v)
    x = mg.tensor([1.0, 1.0, 1.0], requires_grad=True)
    try:
        x.register_hook(make_hook(1.0))
        (x * mg.tensor([10.0, 0.1, -10.0])).sum().backward()
    except Exception as err:
        v.require(False, _raised(err, "a backward pass with your hook (limit 1) registered"))
        return _stop(v)
    v.require(
        x.grad is not None and close(x.grad, [1.0, 0.1, -1.0]),
        f"registered on a leaf with incoming gradient [10, 0.1, -10] and limit 1, x.grad "
        f"should be [1, 0.1, -1], got {None if x.grad is None else x.grad.tolist()}: does the "
        "hook use its own `limit` rather than a fixed number?",
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


def _watch_error(err: Exception) -> str:
    """The usual reasons a monitor's hook raises, in words."""
    if isinstance(err, AttributeError) and "NoneType" in str(err):
        return (
            f"your hook raised AttributeError ({err}): it read `p.grad` while it was still None. "
            "A tensor hook (`register_hook`) runs BEFORE the gradient is accumulated into `.grad`: "
            "use the gradient the hook receives, or `register_post_accumulate_grad_hook`, whose "
            "hook gets the parameter after `.grad` is written."
        )
    if isinstance(err, KeyError):
        return (
            f"your hook raised KeyError {err}: create `norms[name]` (an empty list) when you "
            "register the hook, before the first backward appends to it."
        )
    return f"registering or running your hooks raised {type(err).__name__}: {err}"


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
        v.require(False, _watch_error(err))
        return _stop(v)
    if handles is None and not norms:
        v.require(
            False,
            "watch_gradients recorded nothing and returned None: is its body still `...`?",
        )
        return _stop(v)
    missing = [n for n in names if n not in norms]
    if not v.require(
        not missing,
        f"no entry in norms for {', '.join(missing)}: register one hook "
        "per parameter, keyed by its name from model.named_parameters() (norms starts "
        "empty here, unlike the training loop in section 6).",
    ):
        return _stop(v)
    filled = [n for n in names if isinstance(norms[n], list) and norms[n]]
    if len(filled) == 1 and len(norms[filled[0]]) == 2 * len(names):
        v.require(
            False,
            f"every hook appended to norms['{filled[0]}']: a lambda (or inner function) made in "
            "a loop looks up `name` when it RUNS, after the loop has ended. Bind it when the "
            "hook is made: `lambda p, name=name: ...`.",
        )
        return _stop(v)
    for n in names:
        got = norms[n]
        if not v.require(
            isinstance(got, list) and len(got) == 2,
            f"norms['{n}'] should hold one number per backward pass (2 so far), got "
            f"{got!r}. Append to a list rather than overwrite.",
        ):
            return _stop(v)
        if not v.require(
            all(isinstance(a, float) for a in got),
            f"norms['{n}'] holds {type(got[0]).__name__} values; append Python floats "
            "(`.item()`), which keep no tensor (and no graph) alive.",
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
