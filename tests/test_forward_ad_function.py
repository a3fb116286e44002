"""Forward-mode AD through custom autograd.Functions, against PyTorch.

Each Function below is defined once per library (the same code under torch and minigrad) and
run on dual inputs: outputs' primals and tangents are compared, or the error's type and words
where PyTorch refuses. The generated part crosses Function styles (ctx in forward or
setup_context, save_for_forward, one or two outputs, non-Tensor arguments) with tangent
placements, shapes and dtypes; the named tests cover PyTorch's checks of what jvp returns."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from forward_ad_support import same_outcome

import minigrad

LIBS = (torch, minigrad)
DTYPES = ("float64", "float32")
SHAPES = ((), (3,), (2, 3))


def _functions(lib: Any) -> dict[str, Any]:
    """The Functions of the tests, defined on `lib` (the same source for both libraries)."""
    base = lib.autograd.Function

    class Scale(base):  # ctx-style, non-Tensor argument, save_for_forward
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_forward(x)
            ctx.k = k
            return x * k

        @staticmethod
        def jvp(ctx, tx, tk):
            assert tk is None
            (x,) = ctx.saved_tensors
            return tx * ctx.k + x * 0

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    class Product(base):  # two Tensor inputs: a missing tangent comes as zeros
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_forward(x, y)
            return x * y

        @staticmethod
        def jvp(ctx, tx, ty):
            x, y = ctx.saved_tensors
            return tx * y + x * ty

    class SinCos(base):  # two outputs
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_forward(x)
            return x.sin(), x.cos()

        @staticmethod
        def jvp(ctx, tx):
            (x,) = ctx.saved_tensors
            return tx * x.cos(), -tx * x.sin()

    class Cube(base):  # setup_context style, default argument
        @staticmethod
        def forward(x, power=3):
            return x**power

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, power = inputs
            ctx.power = power
            ctx.save_for_forward(x)
            ctx.save_for_backward(x)

        @staticmethod
        def jvp(ctx, tx, tpower):
            (x,) = ctx.saved_tensors
            return tx * ctx.power * x ** (ctx.power - 1)

        @staticmethod
        def vjp(ctx, g):
            (x,) = ctx.saved_tensors
            return g * ctx.power * x ** (ctx.power - 1), None

    class Argmax(base):  # a non-differentiable integer output takes None
        @staticmethod
        def forward(ctx, x):
            return x * 2, x.reshape(-1).argmax()

        @staticmethod
        def jvp(ctx, tx):
            return tx * 2, None

    class Marked(base):  # mark_non_differentiable: its output takes None
        @staticmethod
        def forward(ctx, x):
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def jvp(ctx, tx):
            return tx * 2, None

    class Double_(base):  # in place, marked dirty: the input takes the returned tangent
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def jvp(ctx, tx):
            return tx.mul_(2)

    class Same(base):  # an input returned as is: the tangent must be a view
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def jvp(ctx, tx):
            return tx.view_as(tx)

    return {c.__name__: c for c in (Scale, Product, SinCos, Cube, Argmax, Marked, Double_, Same)}


# name -> (call of the Function on the dual inputs, number of Tensor inputs)
CALLS: dict[str, tuple[Callable, int]] = {
    "Scale": (lambda fns, x: fns["Scale"].apply(x, 2.5), 1),
    "Product": (lambda fns, x, y: fns["Product"].apply(x, y), 2),
    "SinCos": (lambda fns, x: fns["SinCos"].apply(x), 1),
    "Cube": (lambda fns, x: fns["Cube"].apply(x), 1),
    "Cube_power": (lambda fns, x: fns["Cube"].apply(x, power=2), 1),
    "Argmax": (lambda fns, x: fns["Argmax"].apply(x), 1),
    "Marked": (lambda fns, x: fns["Marked"].apply(x), 1),
    "Double_": (lambda fns, x: fns["Double_"].apply(x.clone()), 1),
    "Same": (lambda fns, x: fns["Same"].apply(x), 1),
}


def _run(lib: Any, name: str, primals: list, tangents: list, grad: bool) -> Any:
    """[(primal, tangent)] of each Tensor output (ints for non-float ones), or the error."""
    fw = lib.autograd.forward_ad
    fns = _functions(lib)
    try:
        with fw.dual_level():
            args = []
            for p, t in zip(primals, tangents):
                x = lib.tensor(p, requires_grad=grad)
                args.append(x if t is None else fw.make_dual(x, lib.tensor(t)))
            out = CALLS[name][0](fns, *args)
            outs = out if isinstance(out, tuple) else (out,)
            result = []
            for o in outs:
                primal, tangent = fw.unpack_dual(o)
                tangent = None if tangent is None else tangent.detach().numpy().copy()
                result.append((primal.detach().numpy().copy(), tangent, o.requires_grad))
            return result
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's
        return error


def _placements(count: int) -> list[str]:
    return ["all"] + ([str(i) for i in range(count)] if count > 1 else [])


PARAMS = [
    pytest.param(name, where, shape, dtype, grad, id=f"{name}-{where}-{shape}-{dtype}-rg{grad:d}")
    for name, (_, count) in CALLS.items()
    for where in _placements(count)
    for shape in SHAPES
    for dtype in DTYPES
    for grad in (False, True)
]


@pytest.mark.parametrize(("name", "where", "shape", "dtype", "grad"), PARAMS)
def test_function_tangents(name: str, where: str, shape: tuple, dtype: str, grad: bool) -> None:
    rng = np.random.default_rng(zlib.crc32(f"{name}{shape}".encode()))
    count = CALLS[name][1]
    primals = [rng.standard_normal(shape).astype(dtype) for _ in range(count)]
    tangents = [rng.standard_normal(shape).astype(dtype) for _ in range(count)]
    if where != "all":
        tangents = [t if str(i) == where else None for i, t in enumerate(tangents)]
    want = _run(torch, name, primals, tangents, grad)
    got = _run(minigrad, name, primals, tangents, grad)
    rtol = 1e-6 if dtype == "float32" else 1e-12
    same_outcome(want, got, rtol=rtol, atol=rtol)


# --- PyTorch's checks of jvp and of what it returns ------------------------------------------
def _outcome(lib: Any, define: Callable, arg_count: int = 1) -> Any:
    fw = lib.autograd.forward_ad
    fn = define(lib)
    x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
    try:
        with fw.dual_level():
            out = fn.apply(*[fw.make_dual(x, lib.ones_like(x))] * arg_count)
            outs = out if isinstance(out, tuple) else (out,)
            return [
                None if (t := fw.unpack_dual(o).tangent) is None else t.numpy().tolist()
                for o in outs
                if isinstance(o, lib.Tensor)
            ]
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's
        return error


def _function(forward: Callable, jvp: Callable | None = None) -> Callable:
    """A Function class factory for `lib` from plain forward/jvp bodies."""

    def define(lib: Any) -> Any:
        attrs: dict[str, Any] = {"forward": staticmethod(forward)}
        if jvp is not None:
            attrs["jvp"] = staticmethod(jvp)
        return type("Custom", (lib.autograd.Function,), attrs)

    return define


CHECKS: dict[str, tuple[Callable, int]] = {
    "no_jvp": (_function(lambda ctx, x: x * 2), 1),
    "too_many_tangents": (_function(lambda ctx, x, y: x * y, lambda ctx, tx, ty: (tx, ty)), 2),
    "too_few_tangents": (_function(lambda ctx, x: (x * 2, x * 3), lambda ctx, tx: tx * 2), 1),
    "tuple_of_one": (_function(lambda ctx, x: x.exp(), lambda ctx, tx: (tx * 2,)), 1),
    "list_returned": (_function(lambda ctx, x: (x * 2, x * 3), lambda ctx, tx: [tx, tx]), 1),
    "number_returned": (_function(lambda ctx, x: x * 2, lambda ctx, tx: 3), 1),
    "wrong_shape": (_function(lambda ctx, x: x * 2, lambda ctx, tx: tx.sum()), 1),
    "tangent_for_integer_output": (
        _function(lambda ctx, x: (x * 2, x.argmax()), lambda ctx, tx: (tx * 2, tx.sum())),
        1,
    ),
    "tangent_for_number_output": (
        _function(lambda ctx, x: (x * 2, 5), lambda ctx, tx: (tx * 2, tx)),
        1,
    ),
    "none_for_number_output": (
        _function(lambda ctx, x: (x * 2, 5), lambda ctx, tx: (tx * 2, None)),
        1,
    ),
    "input_as_is_not_a_view": (_function(lambda ctx, x: x, lambda ctx, tx: tx.clone()), 1),
    "view_not_a_view": (_function(lambda ctx, x: x[:2], lambda ctx, tx: tx[:2].clone()), 1),
    "view_and_view": (_function(lambda ctx, x: x[:2], lambda ctx, tx: tx[:2]), 1),
    "save_for_forward_number": (
        _function(lambda ctx, x: ctx.save_for_forward(x, 3) or x * 2, lambda ctx, tx: tx),
        1,
    ),
    "save_for_backward_not_in_jvp": (
        _function(
            lambda ctx, x: ctx.save_for_backward(x) or x * 2,
            lambda ctx, tx: tx * (2 + len(ctx.saved_tensors)),
        ),
        1,
    ),
    "forward_sees_no_tangent": (
        _function(
            lambda ctx, x: x * 2 + 1,
            lambda ctx, tx: tx * 3,
        ),
        1,
    ),
}


@pytest.mark.parametrize("name", CHECKS)
def test_jvp_checks(name: str) -> None:
    define, count = CHECKS[name]
    want = _outcome(torch, define, count)
    got = _outcome(minigrad, define, count)
    if isinstance(want, Exception):
        assert isinstance(got, Exception), f"PyTorch raised {want!r}; minigrad gave {got}"
        assert type(got) is type(want) and str(got) == str(want)
    else:
        assert got == want


@pytest.mark.parametrize("lib", LIBS, ids=lambda lib: lib.__name__)
def test_no_tangent_no_jvp(lib: Any) -> None:
    """Without a dual input (or outside a dual level) jvp is never called."""

    class Loud(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, tx):
            raise AssertionError("jvp called")

    x = lib.ones(3)
    with lib.autograd.forward_ad.dual_level():
        assert lib.autograd.forward_ad.unpack_dual(Loud.apply(x)).tangent is None
    Loud.apply(x)


def test_reverse_over_forward_through_jvp() -> None:
    """The user's jvp runs with grad mode on: its tangent can be differentiated again."""
    results = []
    for lib in LIBS:
        fns = _functions(lib)
        fw = lib.autograd.forward_ad
        x = lib.tensor([0.3, -1.2, 2.0], dtype=lib.float64, requires_grad=True)
        with fw.dual_level():
            sin, cos = fns["SinCos"].apply(fw.make_dual(x, lib.ones_like(x)))
            tangent = fw.unpack_dual(sin).tangent + fw.unpack_dual(cos).tangent
            (grad,) = lib.autograd.grad(tangent.sum(), x)
        results.append(grad.numpy())
    np.testing.assert_allclose(results[1], results[0])


def test_vjp_is_backward() -> None:
    """Function.vjp is PyTorch's alias of backward: one defined is used by backward()."""
    for lib in LIBS:
        fns = _functions(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        fns["Cube"].apply(x).sum().backward()
        assert x.grad.tolist() == [3.0, 12.0]
        assert lib.autograd.Function.vjp is lib.autograd.Function.backward
