"""The exercise checks of lessons 08-13: the right answer passes, typical wrong ones get told why.
(Lesson 17's checks are tested in test_lesson17.py.)

Each wrong answer below is one a learner is likely to write (the misconception the lesson is
about); the test pins down that its check names that misconception, not just "incorrect".
"""

from __future__ import annotations

import numpy as np
from labkit import lesson08, lesson09, lesson10, lesson11, lesson12, lesson13

import minigrad as mg
from minigrad.autograd import Function


def passed(out: str) -> bool:
    return out.startswith("✓")  # a check's first line is its verdict


def test_unanswered_exercises_ask_to_be_filled_in(said):
    for check in (
        lesson08.check_versions,
        lesson08.check_swish,
        lesson09.check_clip_hook,
        lesson09.check_watch_gradients,
        lesson10.check_scaled_tanh,
        lesson10.check_sign_ste,
        lesson11.check_params_without_grad,
        lesson11.check_safe_norm,
        lesson12.check_count_dependencies,
        lesson12.check_topological_order,
        lesson13.check_predictions,
    ):
        out = said(check, ...)
        assert out.startswith("✗") and "still `...`" in out, check.__name__


# --- 08 ---------------------------------------------------------------------------------------


def test_08_versions(said):
    assert passed(said(lesson08.check_versions, [1, 2, 3, 0]))
    assert "item assignment" in said(lesson08.check_versions, [1, 1, 2, 0])
    assert "shares t's storage AND its version" in said(lesson08.check_versions, [1, 2, 2, 0])
    assert "out of place" in said(lesson08.check_versions, [1, 2, 3, 4])
    assert "expected 4 numbers" in said(lesson08.check_versions, [1, 2])


def test_08_swish(said):
    assert passed(said(lesson08.check_swish, lambda x: x * x.sigmoid()))

    def saved_output_modified(x):
        s = x.sigmoid()
        s.mul_(x)
        return s

    assert "sigmoid saves its OUTPUT" in said(lesson08.check_swish, saved_output_modified)

    def through_data(x):
        s = x.sigmoid()
        s.data.mul_(x.data)
        return s

    assert "hidden from autograd" in said(lesson08.check_swish, through_data)
    assert "values are wrong" in said(lesson08.check_swish, lambda x: x.sigmoid())


# --- 09 ---------------------------------------------------------------------------------------


def test_09_clip_hook(said):
    assert passed(said(lesson09.check_clip_hook, lambda limit: lambda g: g.clamp(-limit, limit)))
    assert "returned None" in said(lesson09.check_clip_hook, lambda limit: lambda g: None)

    def in_place(limit):
        def hook(g):
            g.clamp_(-limit, limit)

        return hook

    assert "in place and returned None" in said(lesson09.check_clip_hook, in_place)
    assert "upper side" in said(lesson09.check_clip_hook, lambda limit: lambda g: g.clamp(0, limit))
    assert "clip_grad_norm_" in said(
        lesson09.check_clip_hook, lambda limit: lambda g: g * (limit / g.norm())
    )
    assert "RETURN a function" in said(lesson09.check_clip_hook, lambda limit: limit)


def _watch(model, norms, remember_handles=True, append=True):
    handles = []
    for name, p in model.named_parameters():
        norms.setdefault(name, [])

        def record(t, name=name):
            value = t.grad.norm().item()
            if append:
                norms[name].append(value)
            else:
                norms[name] = [value]

        h = p.register_post_accumulate_grad_hook(record)
        if remember_handles:
            handles.append(h)
    return handles


def test_09_watch_gradients(said):
    assert passed(said(lesson09.check_watch_gradients, _watch))

    def tensor_hooks(model, norms):  # sees each pass's own gradient, not the accumulated .grad
        out = []
        for name, p in model.named_parameters():
            norms[name] = []
            out.append(p.register_hook(lambda g, name=name: norms[name].append(g.norm().item())))
        return out

    assert "without zero_grad" in said(lesson09.check_watch_gradients, tensor_hooks)
    assert "handles" in said(
        lesson09.check_watch_gradients, lambda m, n: _watch(m, n, remember_handles=False)
    )
    assert "Append to a list" in said(
        lesson09.check_watch_gradients, lambda m, n: _watch(m, n, append=False)
    )

    assert "no entry in norms" in said(
        lesson09.check_watch_gradients, lambda m, n: (n.clear(), [])[1]
    )


# --- 10 ---------------------------------------------------------------------------------------


class _ScaledTanh(Function):
    @staticmethod
    def forward(ctx, x, scale):
        t = x.tanh()
        ctx.save_for_backward(t)
        ctx.scale = scale
        return t * scale

    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * ctx.scale * (1 - t * t), None


class _NoNone(_ScaledTanh):
    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * ctx.scale * (1 - t * t)


class _NoScale(_ScaledTanh):
    @staticmethod
    def backward(ctx, g):
        (t,) = ctx.saved_tensors
        return g * (1 - t * t), None


class _WrongDerivative(Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x.tanh() * scale

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * ctx.scale * (1 - x * x), None


def test_10_scaled_tanh(said):
    assert passed(said(lesson10.check_scaled_tanh, _ScaledTanh))
    assert "None for scale" in said(lesson10.check_scaled_tanh, _NoNone)
    assert "missing the factor `scale`" in said(lesson10.check_scaled_tanh, _NoScale)
    assert "1 - tanh(x)**2" in said(lesson10.check_scaled_tanh, _WrongDerivative)
    assert "deriving from" in said(lesson10.check_scaled_tanh, lambda x, s: x)


def _sign(backward):
    class Sign(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return mg.where(x >= 0, 1.0, -1.0)

    Sign.backward = staticmethod(backward)
    return Sign


def test_10_sign_ste(said):
    def hardtanh(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1)

    def strict(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() < 1)

    assert passed(said(lesson10.check_sign_ste, _sign(hardtanh)))
    assert "identity STE" in said(lesson10.check_sign_ste, _sign(lambda ctx, g: g))
    assert "true derivative of sign" in said(lesson10.check_sign_ste, _sign(lambda ctx, g: g * 0))
    assert "|x| <= 1" in said(lesson10.check_sign_ste, _sign(strict))


# --- 11 ---------------------------------------------------------------------------------------


def test_11_params_without_grad(said):
    def right(model):
        return [n for n, p in model.named_parameters() if p.grad is None]

    def zero_counts_as_missing(model):
        return [
            n
            for n, p in model.named_parameters()
            if p.grad is None or not np.any(np.asarray(p.grad.tolist()))
        ]

    assert passed(said(lesson11.check_params_without_grad, right))
    assert "zero gradient is not a missing one" in said(
        lesson11.check_params_without_grad, zero_counts_as_missing
    )
    assert "NAMES" in said(
        lesson11.check_params_without_grad, lambda m: [p for p in m.parameters() if p.grad is None]
    )
    assert "missing ['detached.bias', 'detached.weight']" in said(
        lesson11.check_params_without_grad,
        lambda m: [n for n, p in m.named_parameters() if n.startswith("unused")],
    )


def test_11_safe_norm(said):
    def safe(v):
        s = (v * v).sum(dim=1)
        pos = s > 0
        return mg.where(pos, mg.where(pos, s, 1.0).sqrt(), 0.0)

    def where_trap(v):
        s = (v * v).sum(dim=1)
        return mg.where(s > 0, s.sqrt(), 0.0)

    assert passed(said(lesson11.check_safe_norm, safe))
    assert passed(said(lesson11.check_safe_norm, lambda v: ((v * v).sum(dim=1) + 1e-12).sqrt()))
    assert "the sqrt branch still runs" in said(lesson11.check_safe_norm, where_trap)
    assert "one number per row" in said(lesson11.check_safe_norm, lambda v: (v * v).sum().sqrt())


# --- 12 ---------------------------------------------------------------------------------------


def _counts(root, count_revisits=True, skip_none=True):
    counts, explored, stack = {root: 0}, {root}, [root]
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None and skip_none:
                continue
            if nxt not in explored:
                counts[nxt] = counts.get(nxt, 0) + 1
                explored.add(nxt)
                stack.append(nxt)
            elif count_revisits:
                counts[nxt] += 1
    return counts


def _seeded(root):
    counts = _counts(root)
    counts[root] = 1
    return counts


def test_12_count_dependencies(said):
    assert passed(said(lesson12.check_count_dependencies, _counts))
    assert "count every edge" in said(
        lesson12.check_count_dependencies, lambda r: _counts(r, count_revisits=False)
    )
    assert "no edge points at it" in said(lesson12.check_count_dependencies, _seeded)
    assert "return a dict" in said(lesson12.check_count_dependencies, lambda r: [r])


def _preorder(root):
    order, seen, stack = [], set(), [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        stack.extend(n for n, _ in node.next_functions if n is not None)
    return order


def _topo(root):
    post, done = [], set()

    def visit(node):
        done.add(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in done:
                visit(nxt)
        post.append(node)

    visit(root)
    return post[::-1]


def test_12_topological_order(said):
    assert passed(said(lesson12.check_topological_order, _topo))
    assert "pre-order" in said(lesson12.check_topological_order, _preorder)
    assert "more than once" in said(lesson12.check_topological_order, lambda r: _topo(r) + [r])
    assert "must come first" in said(lesson12.check_topological_order, lambda r: _topo(r)[::-1])


# --- 13 ---------------------------------------------------------------------------------------


def test_13_predictions(said):
    right = {"a": False, "b": True, "c": True, "d": False, "e": True}
    assert passed(said(lesson13.check_predictions, right))
    out = said(lesson13.check_predictions, {**right, "a": True, "c": False})
    assert "saves no tensors" in out and "not a warning" in out
    assert "one element" in said(lesson13.check_predictions, {**right, "d": True})
    assert "no prediction for e" in said(
        lesson13.check_predictions, {k: v for k, v in right.items() if k != "e"}
    )
    assert "True or False" in said(lesson13.check_predictions, {**right, "b": "yes"})
