"""Forward-mode AD through shape, view, indexing and in-place ops, against PyTorch.

Each case runs the same code under torch.autograd.forward_ad and minigrad.autograd.forward_ad
and compares the primal and tangent values, and whether the tangent is a view (`._base`), as
PyTorch's view ops give views of the input's tangent. The semantic tests at the end follow
tangents through in-place writes: into a dual tensor, into a plain one written with a dual
value, and through views of either."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import minigrad

LIBS = (torch, minigrad)
DTYPES = ("float64", "float32")


def _index(lib: Any) -> Any:
    return lib.tensor([[0, 2, 1, 0], [1, 0, 2, 2]])


# name -> (function of the library and its dual inputs, input shapes)
OPS: dict[str, tuple[Callable, tuple]] = {
    "view": (lambda L, a: a.view(4, 3) if a.is_contiguous() else a.reshape(4, 3), ((3, 4),)),
    "view_0d": (lambda L, a: a.view(1, 1), ((),)),
    "reshape": (lambda L, a: a.reshape(2, 6), ((3, 4),)),
    "reshape_copy": (lambda L, a: a.t().reshape(-1), ((3, 4),)),
    "flatten": (lambda L, a: a.flatten(), ((2, 3, 2),)),
    "transpose": (lambda L, a: a.transpose(0, 1), ((3, 4),)),
    "t": (lambda L, a: a.t(), ((3, 4),)),
    "mT": (lambda L, a: a.mT, ((2, 3, 4),)),
    "permute": (lambda L, a: a.permute(2, 0, 1), ((2, 3, 4),)),
    "unsqueeze": (lambda L, a: a.unsqueeze(-1), ((3, 4),)),
    "squeeze": (lambda L, a: a[:1].squeeze(), ((3, 4),)),
    "squeeze_dim": (lambda L, a: a[:, :1].squeeze(1), ((3, 4),)),
    "squeeze_dims": (lambda L, a: a[:1, :1].squeeze((0, 1)), ((3, 4),)),
    "expand": (lambda L, a: a[:1].expand(2, 3, 4), ((3, 4),)),
    "expand_0d": (lambda L, a: a.expand(3), ((),)),
    "clone": (lambda L, a: a.clone(), ((3, 4),)),
    "contiguous": (lambda L, a: a.t().contiguous(), ((3, 4),)),
    "to_float32": (lambda L, a: a.to(L.float32), ((3, 4),)),
    "to_float64": (lambda L, a: a.to(L.float64), ((3, 4),)),
    "to_int": (lambda L, a: a.to(L.int64), ((3, 4),)),
    "cat": (lambda L, a, b: L.cat([a, b, a], 1), ((3, 4), (3, 2))),
    "stack": (lambda L, a, b: L.stack([a, b], -1), ((3, 4), (3, 4))),
    "hstack": (lambda L, a, b: L.hstack([a, b]), ((3, 4), (3, 4))),
    "vstack": (lambda L, a, b: L.vstack([a, b]), ((4,), (3, 4))),
    "dstack": (lambda L, a, b: L.dstack([a, b]), ((3, 4), (3, 4))),
    "atleast_3d": (lambda L, a: L.atleast_3d(a), ((4,),)),
    "meshgrid": (lambda L, a, b: L.meshgrid(a, b, indexing="xy"), ((3,), (4,))),
    "select": (lambda L, a: a[1], ((3, 4),)),
    "select_dim": (lambda L, a: a.select(1, -1), ((3, 4),)),
    "slice": (lambda L, a: a[1:, ::2], ((3, 4),)),
    "none_ellipsis": (lambda L, a: a[None, ..., 1], ((3, 4),)),
    "alias": (lambda L, a: a[...], ((3, 4),)),
    "index_list": (lambda L, a: a[[2, 0, 2]], ((3, 4),)),
    "index_tensor": (lambda L, a: a[L.tensor([1, 1])], ((3, 4),)),
    "index_pair": (lambda L, a: a[[0, 2], [1, 3]], ((3, 4),)),
    "index_mask": (lambda L, a: a[a > 0], ((3, 4),)),
    "index_after_slice": (lambda L, a: a[:, [3, 0]], ((3, 4),)),
    "split": (lambda L, a: a.split(3, 1), ((3, 4),)),
    "split_whole": (lambda L, a: a.split(4, 1), ((3, 4),)),
    "split_sizes": (lambda L, a: a.split([1, 2], 0), ((3, 4),)),
    "chunk": (lambda L, a: a.chunk(2, 1), ((3, 4),)),
    "unbind": (lambda L, a: a.unbind(1), ((3, 4),)),
    "diagonal": (lambda L, a: a.diagonal(1), ((3, 4),)),
    "diagonal_dims": (lambda L, a: a.diagonal(0, 0, 2), ((2, 3, 2),)),
    "diag_matrix": (lambda L, a: L.diag(a, -1), ((3, 4),)),
    "diag_vector": (lambda L, a: L.diag(a, 1), ((4,),)),
    "diag_embed": (lambda L, a: L.diag_embed(a), ((3, 4),)),
    "trace": (lambda L, a: L.trace(a), ((3, 4),)),
    "flip": (lambda L, a: a.flip(0, 1), ((3, 4),)),
    "fliplr": (lambda L, a: L.fliplr(a), ((3, 4),)),
    "roll": (lambda L, a: a.roll((1, -1), (0, 1)), ((3, 4),)),
    "roll_flat": (lambda L, a: a.roll(5), ((3, 4),)),
    "repeat": (lambda L, a: a.repeat(2, 1, 3), ((3, 4),)),
    "repeat_interleave": (lambda L, a: a.repeat_interleave(2, 0), ((3, 4),)),
    "repeat_interleave_tensor": (
        lambda L, a: a.repeat_interleave(L.tensor([1, 0, 2]), 0),
        ((3, 4),),
    ),
    "tril": (lambda L, a: a.tril(), ((3, 4),)),
    "triu": (lambda L, a: a.triu(1), ((2, 3, 4),)),
    "gather": (lambda L, a: a.gather(0, _index(L)), ((3, 4),)),
    "scatter": (lambda L, a, b: a.scatter(0, _index(L), b), ((3, 4), (3, 4))),
    "scatter_value": (lambda L, a: a.scatter(0, _index(L), 2.0), ((3, 4),)),
    "scatter_add": (lambda L, a, b: a.scatter_add(0, _index(L), b), ((3, 4), (3, 4))),
    "index_add": (
        lambda L, a, b: a.index_add(0, L.tensor([0, 2, 0]), b, alpha=2.0),
        ((3, 4), (3, 4)),
    ),
    "diff": (lambda L, a: L.diff(a, 2, 1), ((3, 4),)),
    "diff_prepend": (lambda L, a, b: L.diff(a, 1, 0, prepend=b, append=b), ((3, 4), (1, 4))),
    "diff_0": (lambda L, a: L.diff(a, 0), ((3, 4),)),
    "fill_": (lambda L, a, b: a.clone().fill_(b), ((3, 4), ())),
    "masked_fill_": (lambda L, a: a.clone().masked_fill_(a > 0, 1.0), ((3, 4),)),
    "copy_": (lambda L, a, b: a.clone().copy_(b), ((3, 4), (4,))),
    "setitem": (lambda L, a, b: _setitem(a.clone(), (slice(None), 1), b), ((3, 4), (3,))),
    "setitem_index": (lambda L, a, b: _setitem(a.clone(), [2, 0], b), ((3, 4), (4,))),
    "setitem_mask": (lambda L, a, b: _setitem(a.clone(), a > 0, b), ((3, 4), ())),
    "new_zeros": (lambda L, a: a.new_zeros(2, 3), ((3, 4),)),
    "new_full": (lambda L, a: a.new_full((2,), 1.5), ((3, 4),)),
    "new_tensor": (lambda L, a: a.new_tensor([1.0, 2.0]), ((3, 4),)),
    "t_": (lambda L, a: a.clone().t_(), ((3, 4),)),
    "transpose_": (lambda L, a: a.clone().transpose_(0, 1), ((3, 4),)),
    "squeeze_": (lambda L, a: a[:1].clone().squeeze_(0), ((3, 4),)),
    "unsqueeze_": (lambda L, a: a.clone().unsqueeze_(1), ((3, 4),)),
}


def _setitem(t: Any, key: Any, value: Any) -> Any:
    t[key] = value
    return t


# layouts of a dual input: the same values laid out differently (inputs with fewer dims than
# a layout needs stay contiguous)
LAYOUTS = {
    "contiguous": lambda L, x: L.tensor(x),
    "transposed": lambda L, x: (
        L.tensor(np.ascontiguousarray(x.T)).permute(*range(x.ndim)[::-1])
        if x.ndim >= 2
        else L.tensor(x)
    ),
    "strided": lambda L, x: L.tensor(np.repeat(x, 2, axis=-1))[..., ::2] if x.ndim else L.tensor(x),
}
MIN_NDIM = {"contiguous": 0, "transposed": 2, "strided": 1}


def _values(shape: tuple, dtype: str, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def run(lib: Any, fn: Callable, primals: list, tangents: list, layout: str) -> Any:
    """fn on dual inputs (plain where the tangent is None): for each output, its primal,
    tangent (None when it has none) and whether the tangent is a view; or the error raised."""
    fw = lib.autograd.forward_ad
    make = LAYOUTS[layout]
    with fw.dual_level():
        inputs = []
        for p, t in zip(primals, tangents, strict=True):
            x = make(lib, p)
            inputs.append(x if t is None else fw.make_dual(x, make(lib, t)))
        try:
            out = fn(lib, *inputs)
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return type(error).__name__, str(error).split("\n")[0]
        found = []
        for o in out if isinstance(out, (tuple, list)) else (out,):
            primal, tangent = fw.unpack_dual(o)
            found.append(
                (
                    primal.numpy().copy(),
                    None if tangent is None else tangent.numpy().copy(),
                    None if tangent is None else tangent._base is not None,
                )
            )
        return found


def compare(expected: Any, got: Any, dtype: str) -> None:
    if isinstance(expected, tuple):
        assert got == expected
        return
    assert not isinstance(got, tuple), got
    tol = 1e-6 if dtype == "float32" else 1e-12
    assert len(got) == len(expected)
    for (p, t, view), (gp, gt, gview) in zip(expected, got, strict=True):
        np.testing.assert_allclose(gp, p, rtol=tol, atol=tol)
        assert (gt is None) == (t is None)
        if t is not None:
            assert gt.dtype == t.dtype
            np.testing.assert_allclose(gt, t, rtol=tol, atol=tol)
        assert gview == view, "tangent is a view" if view else "tangent is not a view"


def _cases() -> list:
    cases = []
    for name, (_, shapes) in OPS.items():
        for layout in LAYOUTS:
            if all(len(s) < MIN_NDIM[layout] for s in shapes):
                continue
            for dtype in DTYPES:
                for which in ("all", *(f"only{i}" for i in range(len(shapes)) if len(shapes) > 1)):
                    case_id = f"{name}-{layout}-{dtype}-{which}"
                    cases.append(pytest.param(name, layout, dtype, which, id=case_id))
    return cases


@pytest.mark.parametrize(("name", "layout", "dtype", "which"), _cases())
def test_op_tangent(name: str, layout: str, dtype: str, which: str) -> None:
    fn, shapes = OPS[name]
    primals = [_values(s, dtype, i) for i, s in enumerate(shapes)]
    tangents = [_values(s, dtype, 10 + i) for i, s in enumerate(shapes)]
    if which != "all":
        keep = int(which[4:])
        tangents = [t if i == keep else None for i, t in enumerate(tangents)]
    expected = run(torch, fn, primals, tangents, layout)
    compare(expected, run(minigrad, fn, primals, tangents, layout), dtype)


# --- in-place writes and views: the same code, the same observations --------------------
def _tangent(lib: Any, x: Any) -> Any:
    return lib.autograd.forward_ad.unpack_dual(x).tangent


def _dual(lib: Any, primal: list, tangent: list) -> tuple[Any, Any]:
    t = lib.tensor(tangent)
    return lib.autograd.forward_ad.make_dual(lib.tensor(primal), t), t


P = [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
T = [[1.0, -1.0, 2.0], [0.5, 3.0, -2.0]]


def mul_on_dual(lib: Any) -> list:
    """The tangent is scaled in place: the tensor given to make_dual and views of it see it."""
    d, t = _dual(lib, P, T)
    row = _tangent(lib, d[1])
    d.mul_(2.0)
    return [_tangent(lib, d), _tangent(lib, d) is t, t, row, row._base is t]


def inplace_on_view_of_dual(lib: Any) -> list:
    d, t = _dual(lib, P, T)
    v = d[:, 1:]
    v.mul_(3.0)
    v.add_(1.0)
    return [_tangent(lib, d), t, _tangent(lib, v), _tangent(lib, v)._base is t]


def view_sees_base_write(lib: Any) -> list:
    d, t = _dual(lib, P, T)
    column = d[:, 1]
    d.sub_(d * d)
    return [_tangent(lib, column), _tangent(lib, d), _tangent(lib, d) is t]


def setitem_plain_with_dual(lib: Any) -> list:
    d, _ = _dual(lib, P, T)
    w = lib.zeros(2, 3)
    w[0] = d[1]
    return [w, _tangent(lib, w), _tangent(lib, w[0])._base is _tangent(lib, w)]


def copy_into_view_of_plain(lib: Any) -> list:
    d, _ = _dual(lib, P, T)
    b = lib.zeros(4)
    v = b[1:3]
    v.copy_(d[0, :2])
    return [b, _tangent(lib, b), _tangent(lib, v), _tangent(lib, v)._base is _tangent(lib, b)]


def write_dual_into_plain(lib: Any) -> list:
    """add_ and copy_ of a dual value: the plain tensor takes a tangent of its own."""
    d, t = _dual(lib, P, T)
    z, c = lib.ones(2, 3), lib.zeros(2, 3)
    z.add_(d)
    c.copy_(d)
    found = [_tangent(lib, z), _tangent(lib, z) is t, _tangent(lib, c), _tangent(lib, c) is t]
    z.mul_(lib.tensor(2.0))  # (z's tangent is its own: d's stays)
    return [*found, _tangent(lib, z), _tangent(lib, d)]


def strided_views_of_plain(lib: Any) -> list:
    """Written through transposed and sliced views: the base's tangent is laid out as the
    base, the written view's as the view."""
    d, _ = _dual(lib, [0.0, 1.0, 2.0], [1.0, 2.0, 3.0])
    root = lib.zeros(4, 3)
    root.t()[:, 1:3] = d.unsqueeze(1).expand(3, 2)
    base = lib.zeros(3, 4)
    v = base.t()[1:]
    v.add_(d.unsqueeze(1))
    return [root, _tangent(lib, root), base, _tangent(lib, base), _tangent(lib, v),
            _tangent(lib, v).stride(), _tangent(lib, base).stride()]  # fmt: skip


def plain_fast_paths(lib: Any) -> list:
    """x += number, x.add_(tensor) and x.mul_(number) on tensors needing no gradient (numpy's
    write straight in otherwise) carry tangents."""
    d, _ = _dual(lib, P, T)
    d += 1.0
    d.mul_(3.0)
    d.add_(lib.ones(2, 3))
    w = lib.zeros(2, 3)
    w += d
    return [d, _tangent(lib, d), w, _tangent(lib, w)]


def writes_zero_the_tangent(lib: Any) -> list:
    found = []
    for write in (
        lambda x: x.copy_(lib.ones(2, 3)),
        lambda x: x.fill_(1.0),
        lambda x: x.zero_(),
        lambda x: x.masked_fill_(x > 2, 0.0),
    ):
        d, t = _dual(lib, P, T)
        write(d)
        found += [_tangent(lib, d), _tangent(lib, d) is t]
    return found


def index_put_dual_value(lib: Any) -> list:
    d, _ = _dual(lib, [1.0, 2.0], [10.0, 20.0])
    w = lib.zeros(2, 3)
    w[:, [2, 0]] = d
    m = lib.zeros(2, 3)
    m[m == 0] = d[1]
    return [w, _tangent(lib, w), m, _tangent(lib, m)]


def inplace_view_ops(lib: Any) -> list:
    d, t = _dual(lib, P, T)
    d.t_()
    found = [_tangent(lib, d), _tangent(lib, d) is t, tuple(t.shape)]
    d.unsqueeze_(0)
    d.squeeze_(0)
    d.transpose_(0, 1)
    return [*found, _tangent(lib, d), _tangent(lib, d) is t]


def recorded_inplace(lib: Any) -> list:
    """With gradients recorded: the tangent follows in-place ops on a tensor and on views."""
    leaf = lib.tensor(P, requires_grad=True)
    d = lib.autograd.forward_ad.make_dual(leaf * 1.0, lib.tensor(T))
    d.mul_(d + 1.0)  # (not d itself: PyTorch's formula would read self already written)
    d[0].add_(d[1])
    y = d.sum()
    return [d.detach(), _tangent(lib, d), _tangent(lib, y), type(d.grad_fn).__name__]


def reverse_over_forward(lib: Any) -> list:
    """A tangent with a history: in-place writes of the dual are differentiable."""
    tangent_leaf = lib.tensor(T, requires_grad=True)
    d = lib.autograd.forward_ad.make_dual(lib.tensor(P), tangent_leaf * 1.0)
    d.mul_(lib.tensor(P) + 1.0)
    d[1] = d[0] * 2.0
    _tangent(lib, d).sum().backward()
    return [_tangent(lib, d).detach(), tangent_leaf.grad]


def expanded_tangent(lib: Any) -> list:
    d, t = _dual(lib, [1.0, 2.0, 3.0], [1.0, 0.0, -1.0])
    e = d.expand(2, 3)
    return [_tangent(lib, e), _tangent(lib, e).stride(), _tangent(lib, e)._base is t]


def out_refuses_duals(lib: Any) -> list:
    d, _ = _dual(lib, P, T)
    return [lib.cat([d, d], out=lib.empty(4, 3))]


def leaf_tangent_written(lib: Any) -> list:
    d = lib.autograd.forward_ad.make_dual(lib.tensor(P), lib.tensor(T, requires_grad=True))
    return [d.mul_(2.0)]


def number_times_plain_dual(lib: Any) -> list:
    """`x.mul_(2.0)` on a tensor that is no view and has no history."""
    d, _ = _dual(lib, P, T)
    z = lib.zeros(2, 3)
    z.copy_(d)
    z.mul_(2.0)
    return [_tangent(lib, z), _tangent(lib, z * 2.0)]


def view_made_before_base_took_a_tangent(lib: Any) -> list:
    d, _ = _dual(lib, P, T)
    w = lib.zeros(2, 3)
    row, columns = w[1], w.t()
    w[0] = d[1]
    return [_tangent(lib, row), _tangent(lib, row + 1.0), _tangent(lib, columns[1:])]


# outside this file's ops (see the reasons): what PyTorch does, to be met
SEMANTICS = [
    mul_on_dual,
    inplace_on_view_of_dual,
    view_sees_base_write,
    setitem_plain_with_dual,
    copy_into_view_of_plain,
    write_dual_into_plain,
    plain_fast_paths,
    writes_zero_the_tangent,
    index_put_dual_value,
    inplace_view_ops,
    recorded_inplace,
    reverse_over_forward,
    expanded_tangent,
    out_refuses_duals,
    leaf_tangent_written,
    number_times_plain_dual,
    strided_views_of_plain,
    view_made_before_base_took_a_tangent,
]


def observe(lib: Any, scenario: Callable) -> Any:
    with lib.autograd.forward_ad.dual_level():
        try:
            found = scenario(lib)
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return type(error).__name__, str(error).split("\n")[0]
        return [x.detach().numpy().copy() if isinstance(x, lib.Tensor) else x for x in found]


@pytest.mark.parametrize("scenario", SEMANTICS, ids=lambda f: getattr(f, "__name__", None))
def test_inplace_semantics(scenario: Callable) -> None:
    expected, got = observe(torch, scenario), observe(minigrad, scenario)
    if isinstance(expected, tuple):
        assert got == expected
        return
    assert not isinstance(got, tuple), got
    assert len(got) == len(expected)
    for e, g in zip(expected, got, strict=True):
        if isinstance(e, np.ndarray):
            assert isinstance(g, np.ndarray), g
            np.testing.assert_array_equal(g, e)
        else:
            assert g == e
