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


def check_params_without_grad(fn: Any) -> None:
    """`fn(model)` after a backward: the names of parameters whose .grad is None."""
    v = verdict("Find the parameters without a gradient")
    if not v.answered(fn, "params_without_grad"):
        return _stop(v)
    model = _Leaky()
    mg.manual_seed(6)
    model(mg.randn(4, 3)).backward()
    try:
        items = list(fn(model))
    except Exception as err:
        v.require(False, f"params_without_grad(model) raised {type(err).__name__}: {err}")
        return _stop(v)
    if not v.require(
        all(isinstance(n, str) for n in items),
        "return parameter NAMES (strings) as model.named_parameters() gives them, "
        "e.g. 'unused.weight', not the tensors.",
    ):
        return _stop(v)
    got = set(items)
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


def check_safe_norm(fn: Any) -> None:
    """`fn(v)`: per-row Euclidean norm of a 2-D tensor, with finite gradients at zero rows."""
    v = verdict("A NaN-free norm")
    if not v.answered(fn, "safe_norm"):
        return _stop(v)
    x = mg.tensor([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]], requires_grad=True)
    try:
        n = fn(x)
        n.sum().backward()
    except Exception as err:
        v.require(False, f"safe_norm or its backward raised {type(err).__name__}: {err}")
        return _stop(v)
    want = [5.0, 0.0, 2.0**0.5]
    if not v.require(
        close(n, want, atol=1e-5),
        f"values: expected the row norms {want}, got {n.tolist()} (one number per row).",
    ):
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
