"""Checks for lesson 11 (debugging gradients).

The test models are built so that each classic cause of a missing gradient appears once
(unused parameter, detached path, zero-but-present gradient), and the NaN check uses the exact
input (an all-zero row) that exposes the `where` trap; feedback names the cause it saw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minigrad as mg

from .feedback import Verdict, close, verdict
from .hints import register

register(
    "11",
    "Find the parameters without a gradient",
    "A parameter that backward never reached has `.grad` equal to None; one that was reached but "
    "got a zero gradient holds a tensor of zeros. Only the first kind is missing.",
    "Loop over `model.named_parameters()` and keep the NAME of each parameter whose `.grad is "
    "None`. Test that before using `.grad` as a tensor: None has no `.abs()`, `.norm()`, ...",
)
register(
    "11",
    "A NaN-free norm",
    "A row's norm is the square root of its sum of squares, `(v * v).sum(dim=1)`. The trouble is "
    "sqrt's derivative at 0, which is infinite.",
    "`where(s > 0, s.sqrt(), 0)` does not help: both branches are differentiated, and 0 * inf is "
    "NaN. Change the INPUT of sqrt so that it never sees a 0.",
    "First replace the zero sums by 1 with an inner `where`, take the sqrt of that, then choose 0 "
    "for those rows with an outer `where` on the same condition.",
)


def _stop(v: Verdict) -> None:
    """Print what is wrong so far and end the check (later steps depend on this one)."""
    v.done("")


class _Leaky(mg.nn.Module):
    """Four layers, four fates: used, unused, detached, and used with an all-zero gradient."""

    def __init__(self) -> None:
        super().__init__()
        mg.manual_seed(5)
        self.used = mg.nn.Linear(3, 3)
        self.unused = mg.nn.Linear(3, 3)
        self.detached = mg.nn.Linear(3, 3)
        self.zeroed = mg.nn.Linear(3, 1)

    def forward(self, x: mg.Tensor) -> mg.Tensor:
        h = self.used(x)
        side = self.detached(x).detach()
        dead = self.zeroed(x) * 0  # in the graph, so it gets a gradient, which is zero
        return h.sum() + side.sum() + dead.sum()


def _names_or_problem(v: Verdict, fn: Any, model: mg.nn.Module) -> set[str] | None:
    """The names `fn(model)` returns, or None after saying precisely what went wrong."""
    try:
        result = fn(model)
    except AttributeError as err:
        if "NoneType" in str(err):
            v.require(
                False,
                f"your function used a missing gradient as a tensor ({err}): for exactly the "
                "parameters you are looking for, `p.grad` is None, which has no tensor methods. "
                "Test `p.grad is None` first, and only then look at values (you do not need to).",
            )
        else:
            v.require(False, f"params_without_grad(model) raised AttributeError: {err}")
        return None
    except RuntimeError as err:
        if "ambiguous" in str(err):
            v.require(
                False,
                "`not p.grad` (or `if p.grad:`) asks for the truth value of a whole tensor, "
                "which is ambiguous. Test `p.grad is None`.",
            )
        else:
            v.require(False, f"params_without_grad(model) raised RuntimeError: {err}")
        return None
    except Exception as err:  # the learner's code: say what it raised
        v.require(False, f"params_without_grad(model) raised {type(err).__name__}: {err}")
        return None
    if result is None:
        v.require(
            False,
            "params_without_grad(model) returned None: is its body still `...`, or is the "
            "`return` missing? Return a list of names.",
        )
        return None
    if isinstance(result, str) or not hasattr(result, "__iter__"):
        v.require(False, f"return a list of names, got {type(result).__name__}.")
        return None
    items = list(result)
    if not v.require(
        all(isinstance(n, str) for n in items),
        "return parameter NAMES (strings) as model.named_parameters() gives them, "
        "e.g. 'unused.weight', not the tensors.",
    ):
        return None
    return set(items)


def check_params_without_grad(fn: Any) -> None:
    """`fn(model)` after a backward: the names of parameters whose .grad is None."""
    v = verdict("Find the parameters without a gradient")
    if not v.answered(fn, "params_without_grad"):
        return _stop(v)
    model = _Leaky()
    mg.manual_seed(6)
    model(mg.randn(4, 3)).backward()
    got = _names_or_problem(v, fn, model)
    if got is None:
        return _stop(v)
    names = {n for n, _ in model.named_parameters()}
    if got and not got & names:
        v.require(
            False,
            f"{sorted(got)} are not parameters of the model the check passes in (its "
            f"parameters are {sorted(names)}): compute the names from the `model` argument, "
            "not from the example above.",
        )
        return _stop(v)
    if got == names:
        v.require(
            False,
            "you listed every parameter. Did your function clear the gradients (zero_grad sets "
            "them to None), or test something every parameter has in common?",
        )
        return _stop(v)
    want = {"unused.weight", "unused.bias", "detached.weight", "detached.bias"}
    if {"zeroed.weight", "zeroed.bias"} & got:
        v.require(
            False,
            "zeroed.* did receive a gradient; it is all zeros, but a zero "
            "gradient is not a missing one. Test `p.grad is None`, not its values.",
        )
    missing = sorted(want - got)
    extra = sorted(got - want - {"zeroed.weight", "zeroed.bias"})
    v.require(
        not missing,
        f"missing {missing}: their .grad is None after backward "
        "(unused in forward, or cut off by .detach()).",
    )
    v.require(not extra, f"{extra} have a gradient; they should not be in the list.")
    v.done(
        "unused.* never took part, detached.* were cut off by .detach(); zeroed.* has a real "
        "(zero) gradient."
    )


def _op_names(root: Any) -> set[str]:
    """The names of the backward nodes behind `root` (to tell which ops built a result)."""
    names, seen, stack = set(), set(), [root]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        names.add(node.name())
        stack.extend(n for n, _ in node.next_functions)
    return names


def check_safe_norm(fn: Any) -> None:
    """`fn(v)`: per-row Euclidean norm of a 2-D tensor, with finite gradients at zero rows."""
    v = verdict("A NaN-free norm")
    if not v.answered(fn, "safe_norm"):
        return _stop(v)
    x = mg.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]], requires_grad=True)
    try:
        n = fn(x)
    except Exception as err:  # the learner's code: say what it raised
        v.require(False, f"safe_norm(v) raised {type(err).__name__}: {err}")
        return _stop(v)
    if n is None:
        v.require(
            False,
            "safe_norm(v) returned None: is its body still `...`, or is the `return` missing?",
        )
        return _stop(v)
    if not v.require(
        isinstance(n, mg.Tensor),
        f"safe_norm(v) returned a {type(n).__name__}; return a minigrad tensor computed from v "
        "with tensor operations (numpy cuts the graph, so no gradient could flow).",
    ):
        return _stop(v)
    want = [5.0, 0.0, 2.0**0.5]
    if close(n, [5.0, 0.0, 1.0]):
        v.require(
            False,
            "you returned the distances of the lesson's `a` and `b` (5, 0, 1): compute the norms "
            "of the argument `v` (here its rows are [3, 4], [0, 0], [1, -1]).",
        )
        return _stop(v)
    if not v.require(
        close(n, want, atol=1e-5),
        f"values: expected the row norms {want}, got {n.tolist()} (one number per row).",
    ):
        return _stop(v)
    if n.grad_fn is not None and any("Norm" in name for name in _op_names(n.grad_fn)):
        v.require(
            False,
            "you used the built-in norm, whose backward already special-cases 0. The exercise "
            "is to build it yourself from `(v * v).sum(dim=1)` and `sqrt`, safely.",
        )
        return _stop(v)
    try:
        n.sum().backward()
    except RuntimeError as err:
        if "does not require grad" in str(err):
            v.require(
                False,
                "the result is not connected to v (backward says it does not require grad): "
                "was it computed under no_grad(), or from detached values?",
            )
        else:
            v.require(False, f"backward through your result raised RuntimeError: {err}")
        return _stop(v)
    if not v.require(x.grad is not None, "x.grad is None: the result is not connected to x."):
        return _stop(v)
    g = np.asarray(x.grad.tolist())
    if not v.require(
        bool(np.isfinite(g).all()),
        f"the gradient of the zero row is {g[1].tolist()}. If you wrote "
        "where(s > 0, s.sqrt(), 0), the sqrt branch still runs at 0 and its "
        "backward computes 0 * inf = nan even though where discards its value. "
        "Make the INPUT of sqrt safe first: where(s > 0, s, 1).sqrt().",
    ):
        return _stop(v)
    v.require(
        close(g[0], [0.6, 0.8], atol=1e-4) and close(g[2], [0.5**0.5, -(0.5**0.5)], atol=1e-4),
        f"gradients of the non-zero rows should be x / |x| = [0.6, 0.8] and "
        f"[0.707, -0.707], got {g[0].tolist()} and {g[2].tolist()}.",
    )
    v.done("right values, and the zero row gets a finite gradient.")
