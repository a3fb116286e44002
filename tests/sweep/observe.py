"""The checks: what each does on one library, recorded as plain data (phase, label, value).

Each check runs in phases; an exception ends its phase and is recorded as the phase's outcome,
so a check compares errors (type and message) exactly like values. Every phase starts from
fresh leaves built from the same arrays on both libraries.

forward     the op without and with grad-requiring inputs: result (dtype, shape, values,
            requires_grad, grad_fn name), whether an in-place op returns self, the arguments after
backward    plain `.backward()` with one gradient seed (seeds.py): each leaf's .grad
grad        `autograd.grad(..., allow_unused=True)`; leaves' .grad stay None
accumulate  backward twice on one graph (retain_graph), then once on a new graph: .grad adds up
double      `create_graph=True`, then the gradient of sum(grad_i * w_i) w.r.t. inputs and seed
hook        a hook on each output is called once with the output's gradient (an in-place op's
            input gets one before the op too); a hook returning 2*g doubles what reaches leaves
anomaly     detect_anomaly(check_nan=True) with a finite and a nan/inf seed, check_nan=False
version     every argument written in place after the op, then backward; the same with the
            output written in place (PyTorch refuses when the op saved what was written)
jvp         forward mode: each differentiable argument made a dual tensor with a random tangent,
            the op run once inside a dual level, each output's primal and tangent; then forward
            over reverse: the gradients of a create_graph backward, and their tangents
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
from ops._support import dtype_name, node_name, rng_for

from .seeds import backward, seeds_for
from .spec import OpInfo
from .values import build


def is_tensor(value: Any) -> bool:
    return all(hasattr(value, n) for n in ("grad_fn", "dtype", "shape", "detach"))


def _values(t: Any) -> np.ndarray:
    d = t.detach()
    if getattr(d, "_is_zerotensor", lambda: False)():  # torch's storage-less zeros
        return np.zeros(tuple(d.shape))
    return np.array(d.numpy(), copy=True)


def normalize(value: Any, values: bool = True, names: bool = True) -> Any:
    """Plain, library-independent data; tensors as
    ("tensor", dtype, shape, values or None, requires_grad, grad_fn name or None)."""
    if is_tensor(value):
        return (
            "tensor",
            dtype_name(value.dtype),
            tuple(int(n) for n in value.shape),
            _values(value) if values else None,
            bool(value.requires_grad),
            node_name(value.grad_fn) if names else None,
        )
    kind = type(value).__name__
    if kind == "Size":
        return ("size", tuple(int(n) for n in value))
    if kind == "dtype":
        return ("dtype", dtype_name(value))
    if isinstance(value, (tuple, list)):
        items = [normalize(v, values, names) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return ("object", kind)


class Recorder:
    """Observations ``(phase, label, value)``; ``random``: tensor values are not kept."""

    def __init__(self, random: bool = False) -> None:
        self.obs: list[tuple[str, str, Any]] = []
        self.random = random
        self.current = ""

    def __call__(self, label: str, value: Any, names: bool = False) -> None:
        self.obs.append((self.current, label, normalize(value, not self.random, names)))

    def raw(self, label: str, value: Any) -> None:
        self.obs.append((self.current, label, value))

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        self.current = name
        try:
            yield
        except Exception as exc:  # the error is the outcome being compared
            self.obs.append((name, "raises", ("raises", type(exc).__name__, str(exc))))


@dataclass
class Ctx:
    """One case on one library: the op, its planned inputs, how to clone, the seed kind, and
    the key that seeds every random array of the case."""

    op: OpInfo
    planned: tuple
    clone: str
    seed: str
    key: str

    def fresh(self, lib: ModuleType, grad: bool = True, clone: str | None = None):
        b = build(lib, self.planned, grad, self.clone if clone is None else clone)
        return b, self.op.call(lib, *b.args, **b.kwargs)


def tensors_in(out: Any) -> list:
    items = out if isinstance(out, (tuple, list)) else [out]
    return [o for o in items if is_tensor(o)]


def diff_outputs(out: Any) -> list:
    """The outputs gradients flow from: float ones requiring grad (else the first tensor, so
    that PyTorch's error for it is compared)."""
    ts = tensors_in(out)
    return [t for t in ts if t.dtype.is_floating_point and t.requires_grad] or ts[:1]


def grads(b) -> list:
    return [leaf.grad for leaf in b.leaves]


def check_forward(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    for grad in (False, True):
        with rec.phase("forward, inputs requiring grad" if grad else "forward"):
            b, out = ctx.fresh(lib, grad)
            rec("result", out, names=True)
            if ctx.op.inplace and ctx.clone:
                rec("returns its first argument", out is b.args[0])
            rec("arguments afterwards", b.tensors)


def check_backward(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    with rec.phase(f"backward, seed {ctx.seed}"):
        b, out = ctx.fresh(lib)
        outs = diff_outputs(out)
        seeds = seeds_for(lib, outs, ctx.seed, ctx.key)
        backward(lib, outs, seeds, ctx.seed)
        rec("leaf .grad", grads(b))
        rec("seed afterwards", seeds)


def check_grad(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    with rec.phase(f"autograd.grad, seed {ctx.seed}"):
        b, out = ctx.fresh(lib)
        outs = diff_outputs(out)
        seeds = seeds_for(lib, outs, ctx.seed, ctx.key)
        rec("grads", list(lib.autograd.grad(outs, b.leaves, seeds, allow_unused=True)))
        rec("leaf .grad", grads(b))


def check_accumulate(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    with rec.phase(f"accumulate, seed {ctx.seed}"):
        b, out = ctx.fresh(lib)
        outs = diff_outputs(out)
        seeds = seeds_for(lib, outs, ctx.seed, ctx.key)
        backward(lib, outs, seeds, ctx.seed, retain_graph=True)
        rec("after one backward", grads(b))
        backward(lib, outs, seeds, ctx.seed)
        rec("after a second backward on the same graph", grads(b))
        again = diff_outputs(ctx.op.call(lib, *b.args, **b.kwargs))
        backward(lib, again, seeds_for(lib, again, ctx.seed, ctx.key), ctx.seed)
        rec("after a third backward on a new graph", grads(b))


def check_double(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    with rec.phase(f"create_graph, seed {ctx.seed}"):
        b, out = ctx.fresh(lib)
        outs = diff_outputs(out)
        seeds = seeds_for(lib, outs, ctx.seed, ctx.key, requires_grad=True)
        first = lib.autograd.grad(outs, b.leaves, seeds, create_graph=True, allow_unused=True)
        rec("grads", list(first))
        rng = rng_for(ctx.key + "/weights")
        terms = [
            (g * lib.tensor(rng.uniform(-1, 1, tuple(g.shape)), dtype=g.dtype)).sum()
            for g in first
            if g is not None and g.requires_grad
        ]
        if not terms:
            return
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        wrt = [*b.leaves, *seeds]
        second = lib.autograd.grad(total, wrt, allow_unused=True)
        # None is an all-zero second-order gradient (as in tests/ops/_support.py)
        second = [lib.zeros_like(x) if s is None else s for s, x in zip(second, wrt)]
        rec("grads of sum(grad * w) w.r.t. inputs and seeds", second)


def check_hook(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    with rec.phase(f"hook, seed {ctx.seed}"):
        b = build(lib, ctx.planned, True, ctx.clone)
        before: list = []
        first = b.args[0] if b.args else None
        if ctx.op.inplace and is_tensor(first) and first.requires_grad:
            first.register_hook(_recording(before))
        out = ctx.op.call(lib, *b.args, **b.kwargs)
        outs = diff_outputs(out)
        calls: list[list] = [[] for _ in outs]
        for o, seen in zip(outs, calls):
            o.register_hook(_recording(seen))
        backward(lib, outs, seeds_for(lib, outs, ctx.seed, ctx.key), ctx.seed)
        rec.raw("calls of each output's hook", calls)
        rec.raw("calls of the hook on the input before the in-place op", before)
        rec("leaf .grad", grads(b))
    with rec.phase("hook returning 2 * grad"):
        b, out = ctx.fresh(lib)
        outs = diff_outputs(out)
        outs[0].register_hook(lambda g: g * 2)
        backward(lib, outs, seeds_for(lib, outs, ctx.seed, ctx.key), ctx.seed)
        rec("leaf .grad", grads(b))


def _recording(calls: list) -> Callable[[Any], None]:
    def hook(g: Any) -> None:
        calls.append(normalize(g, names=False))

    return hook


def check_anomaly(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    for check_nan, seed in ((True, "rand"), (True, "nan"), (False, "nan")):
        with rec.phase(f"detect_anomaly(check_nan={check_nan}), seed {seed}"):
            with lib.autograd.detect_anomaly(check_nan=check_nan):
                b, out = ctx.fresh(lib)
                outs = diff_outputs(out)
                backward(lib, outs, seeds_for(lib, outs, seed, ctx.key), seed)
                rec("leaf .grad", grads(b))


def check_version(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    with rec.phase("every argument written in place after the op"):
        b, out = ctx.fresh(lib, clone="all")
        outs = diff_outputs(out)
        for base in b.bases:
            base.copy_(base.detach().clone())
        backward(lib, outs, seeds_for(lib, outs, ctx.seed, ctx.key), ctx.seed)
        rec("leaf .grad", grads(b))
    with rec.phase("the output written in place after the op"):
        b, out = ctx.fresh(lib)
        outs = diff_outputs(out)
        outs[0].mul_(1)
        backward(lib, outs, seeds_for(lib, outs, ctx.seed, ctx.key), ctx.seed)
        rec("leaf .grad", grads(b))


def _duals(lib: ModuleType, ctx: Ctx, b: Any, differentiable: list[bool]) -> tuple:
    """The op's args and kwargs with each differentiable tensor made a dual tensor (random
    tangents, the same on both libraries), and those tangents."""
    rng = rng_for(ctx.key + "/tangents")
    fw = lib.autograd.forward_ad
    swap, tangents = {}, []
    for t, wanted in zip(b.tensors, differentiable):
        if wanted and id(t) not in swap:
            tangent = lib.tensor(rng.uniform(-1, 1, tuple(t.shape)), dtype=t.dtype)
            swap[id(t)] = fw.make_dual(t, tangent)
            tangents.append(tangent)

    def one(a: Any) -> Any:
        if isinstance(a, list):
            return [one(i) for i in a]
        return swap.get(id(a), a) if is_tensor(a) else a

    return [one(a) for a in b.args], {k: one(v) for k, v in b.kwargs.items()}, tangents


def _tangents(lib: ModuleType, values: Any) -> list:
    """Each value's tangent, detached: whether PyTorch's tangent requires grad depends on
    whether its formula happened to multiply by a zero tangent it made (not compared)."""
    fw = lib.autograd.forward_ad
    tangents = [None if v is None else fw.unpack_dual(v).tangent for v in values]
    return [None if t is None else t.detach() for t in tangents]


def check_jvp(lib: ModuleType, ctx: Ctx, rec: Recorder) -> None:
    differentiable = [t.requires_grad for t in build(lib, ctx.planned, True, ctx.clone).tensors]
    fw = lib.autograd.forward_ad
    with rec.phase("forward mode"):
        b = build(lib, ctx.planned, False, ctx.clone)
        with fw.dual_level():
            args, kwargs, _ = _duals(lib, ctx, b, differentiable)
            outs = tensors_in(ctx.op.call(lib, *args, **kwargs))
            rec("outputs", outs)
            rec("their tangents", _tangents(lib, outs))
    with rec.phase("forward over reverse"):
        b = build(lib, ctx.planned, True, ctx.clone)
        with fw.dual_level():
            args, kwargs, _ = _duals(lib, ctx, b, differentiable)
            outs = diff_outputs(ctx.op.call(lib, *args, **kwargs))
            seeds = seeds_for(lib, outs, ctx.seed, ctx.key)
            first = lib.autograd.grad(outs, b.leaves, seeds, create_graph=True, allow_unused=True)
            # (values only: whether a gradient requires grad is the double check's business)
            rec("grads", [None if g is None else g.detach() for g in first])
            rec("their tangents", _tangents(lib, first))


CHECKS: dict[str, Callable[[ModuleType, Ctx, Recorder], None]] = {
    "forward": check_forward,
    "backward": check_backward,
    "grad": check_grad,
    "accumulate": check_accumulate,
    "double": check_double,
    "hook": check_hook,
    "anomaly": check_anomaly,
    "version": check_version,
    "jvp": check_jvp,
}
