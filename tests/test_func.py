"""torch.func in minigrad, against PyTorch: the same code runs on both libraries (values,
shapes, dtypes, requires_grad, error types and messages), over generated functions x argnums x
shapes for every transform, their nestings, vmap's in_dims/out_dims, functional_call, and
per-sample gradients of a small MLP; then how many passes jacfwd and jacrev run."""

from __future__ import annotations

import itertools
import warnings
from collections import Counter

import numpy as np
import pytest
import torch

import minigrad as mg

warnings.filterwarnings("ignore", category=UserWarning)  # torch.func.linearize's fx notes

RS = np.random.RandomState(0)
SHAPES = {"0d": (), "vec": (3,), "mat": (2, 3)}
DATA = {name: (RS.randn(*s), RS.randn(*s), RS.randn(*s)) for name, s in SHAPES.items()}
BATCH, SAMPLES = RS.randn(5, 3), RS.randn(6, 4)


def outcome(call):
    """What the call returned, or ("raised", type name, message)."""
    try:
        return call()
    except Exception as e:  # noqa: BLE001 - the error itself is compared
        return ("raised", type(e).__name__, str(e))


def same(ours, theirs, where: str = "result") -> None:
    """minigrad's result is PyTorch's: structure, and per tensor value, shape, dtype and
    requires_grad; an error has PyTorch's type and message."""
    if isinstance(theirs, torch.Size):
        assert tuple(ours) == tuple(theirs), where
    elif isinstance(theirs, torch.Tensor):
        assert isinstance(ours, mg.Tensor), f"{where}: {ours!r} is not a tensor"
        assert tuple(ours.shape) == tuple(theirs.shape), where
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], where
        assert ours.requires_grad == theirs.requires_grad, f"{where}: requires_grad"
        tol = {"rtol": 1e-5, "atol": 1e-6} if theirs.dtype == torch.float32 else {"rtol": 1e-7}
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), err_msg=where, **tol
        )
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), where
        for k in theirs:
            same(ours[k], theirs[k], f"{where}[{k!r}]")
    elif isinstance(theirs, (tuple, list)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{where}: {ours!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same(a, b, f"{where}[{i}]")
    elif callable(theirs):
        assert callable(ours), where
    elif isinstance(theirs, str):  # an error message: minigrad's dtypes print as minigrad.*
        assert ours.replace("minigrad.", "torch.") == theirs, where
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def both(build) -> None:
    """Run build(lib) on each library and compare."""
    same(outcome(lambda: build(mg)), outcome(lambda: build(torch)))


def tensors(lib, shape: str, n: int = 2, dtype: str = "float64") -> list:
    return [lib.tensor(a, dtype=getattr(lib, dtype)) for a in DATA[shape][:n]]


# --- the functions: elementwise ops, matmul and sums, of one or two arguments ---------------

FUNCS = {
    "poly": lambda lib, x, y: x * x * 3.0 + x * y,
    "sin_mul": lambda lib, x, y: x.sin() * y + x.exp(),
    "tanh_ratio": lambda lib, x, y: (x * y).tanh() / (y * y + 1.0),
    "sum_sq": lambda lib, x, y: (x * x).sum() * y,
    "matmul": lambda lib, x, y: (
        (lib.ones(4, *x.shape[:1], dtype=x.dtype) * 0.5) @ (x * y) if x.dim() else x * y
    ),
}


def scalar(name):
    return lambda lib, x, y: FUNCS[name](lib, x, y).sum()


GRID = list(itertools.product(FUNCS, SHAPES, [0, 1, (0, 1), (1,)]))


def _id(case) -> str:
    return "-".join(str(p) for p in case)


@pytest.mark.parametrize("case", GRID, ids=_id)
@pytest.mark.parametrize("transform", ["grad", "grad_and_value"])
def test_grad_and_value(case, transform):
    fname, shape, argnums = case
    both(
        lambda lib: getattr(lib.func, transform)(
            lambda x, y: scalar(fname)(lib, x, y), argnums=argnums
        )(*tensors(lib, shape))
    )


@pytest.mark.parametrize("case", GRID, ids=_id)
@pytest.mark.parametrize("transform", ["jacrev", "jacfwd", "hessian"])
def test_jacobians(case, transform):
    fname, shape, argnums = case
    f = (lambda lib: scalar(fname)) if transform == "hessian" else (lambda lib: FUNCS[fname])
    both(
        lambda lib: getattr(lib.func, transform)(lambda x, y: f(lib)(lib, x, y), argnums=argnums)(
            *tensors(lib, shape)
        )
    )


@pytest.mark.parametrize(("fname", "shape"), itertools.product(FUNCS, SHAPES))
def test_vjp_jvp_linearize(fname, shape):
    def vjp(lib):
        x, y = tensors(lib, shape)
        out, fn = lib.func.vjp(lambda x, y: FUNCS[fname](lib, x, y), x, y)
        return out, fn(out.cos()), fn(out * 0 + 1.0)  # twice: the graph is kept

    def jvp(lib):
        x, y, t = tensors(lib, shape, 3)
        return lib.func.jvp(lambda x, y: FUNCS[fname](lib, x, y), (x, y), (t, x))

    def linearize(lib):
        x, y, t = tensors(lib, shape, 3)
        out, fn = lib.func.linearize(lambda x: FUNCS[fname](lib, x, y), x)
        return out, fn(t), fn(x)

    for build in (vjp, jvp, linearize):
        both(build)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("transform", ["grad", "jacrev", "jacfwd", "hessian", "vjp", "jvp", "vmap"])
def test_dtypes_and_outer_graph(transform, dtype):
    """float32 stays float32; a captured tensor that requires grad keeps the result's graph."""

    def build(lib):
        x, w = tensors(lib, "vec", dtype=dtype)
        w.requires_grad_(True)
        f = lambda x: (x.sin() * w).sum()  # noqa: E731
        if transform == "vjp":
            out, fn = lib.func.vjp(f, x)
            return out, fn(lib.ones((), dtype=x.dtype))
        if transform == "jvp":
            return lib.func.jvp(f, (x,), (x,))
        if transform == "vmap":
            return lib.func.vmap(lambda x: x.sin() * w)(x)
        return getattr(lib.func, transform)(f)(x)

    both(build)


def test_aux_and_trees():
    def build(lib):
        x, y = tensors(lib, "mat")
        params = {"w": x, "b": (y, y * 2)}

        def loss(p, scale):
            out = (p["w"].sin() * p["b"][0] + p["b"][1]).sum() * scale
            return out, {"out": out * 1.0, "pair": [p["w"] * 2]}

        return (
            lib.func.grad(loss, has_aux=True)(params, 3.0),
            lib.func.grad_and_value(loss, has_aux=True)(params, 2.0),
            lib.func.jacrev(loss, has_aux=True)(params, 1.0),
            lib.func.jacfwd(loss, has_aux=True)(params, 1.0),
            lib.func.vjp(lambda p: loss(p, 1.0), params, has_aux=True)[2],
            lib.func.jvp(lambda p: loss(p, 1.0), (params,), (params,), has_aux=True),
            lib.func.jacrev(lambda x: [x.sin(), {"c": x * x}])(x),
            lib.func.jacfwd(lambda x: (x.sin(), x.sum()), argnums=(0,))(x),
        )

    both(build)


NESTED = {
    "grad_grad": lambda F, f, x: F.grad(lambda x: F.grad(f)(x).sum())(x),
    "jacrev_jacrev": lambda F, f, x: F.jacrev(F.jacrev(f))(x),
    "jacfwd_jacrev": lambda F, f, x: F.jacfwd(F.jacrev(f))(x),
    "jacrev_jacfwd": lambda F, f, x: F.jacrev(F.jacfwd(f))(x),
    "vmap_grad": lambda F, f, x: F.vmap(F.grad(f))(x),
    "vmap_jacrev": lambda F, f, x: F.vmap(F.jacrev(f))(x),
    "vmap_jacfwd": lambda F, f, x: F.vmap(F.jacfwd(f))(x),
    "vmap_vmap": lambda F, f, x: F.vmap(F.vmap(lambda v: f(v) * v))(x),
    "grad_vmap": lambda F, f, x: F.grad(lambda x: F.vmap(f)(x).sum())(x),
    "grad_jvp": lambda F, f, x: F.grad(lambda x: F.jvp(f, (x,), (x.cos(),))[1])(x),
    "vmap_hessian": lambda F, f, x: F.vmap(F.hessian(f))(x),
}


@pytest.mark.parametrize("fname", FUNCS)
@pytest.mark.parametrize("nest", NESTED)
def test_nesting(nest, fname):

    def build(lib):
        x, y = tensors(lib, "mat")
        return NESTED[nest](lib.func, lambda v: scalar(fname)(lib, v, y[0] + 0.5), x)

    both(build)


def test_grad_of_closure_over_outer_input():
    """The inner transform treats the outer input as a constant (functorch's levels)."""
    both(
        lambda lib: lib.func.grad(lambda x: lib.func.grad(lambda y: (x * y * y).sum())(x).sum())(
            tensors(lib, "vec")[0]
        )
    )


def test_jacfwd_of_jacfwd_is_the_nested_level_error():
    """minigrad's forward mode has one dual level (as torch.autograd.forward_ad): nesting it
    raises forward_ad's error, where torch.func would nest; jacfwd(jacrev(f)) is the way."""
    x = mg.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
        mg.func.jacfwd(mg.func.jacfwd(lambda x: x.sin()))(x)


ERRORS = {
    "grad_nonscalar": lambda F, x: F.grad(lambda x: x.sin())(x),
    "grad_nontensor_out": lambda F, x: F.grad(lambda x: 3.0)(x),
    "grad_aux_not_pair": lambda F, x: F.grad(lambda x: (x.sum(),), has_aux=True)(x),
    "grad_aux_nontensor": lambda F, x: F.grad(lambda x: (x.sum(), 3), has_aux=True)(x),
    "argnum_out_of_range": lambda F, x: F.grad(lambda x: x.sum(), argnums=1)(x),
    "argnums_empty": lambda F, x: F.grad(lambda x: x.sum(), argnums=())(x),
    "argnums_float": lambda F, x: F.grad(lambda x: x.sum(), argnums=1.0)(x),
    "argnums_float_in_tuple": lambda F, x: F.grad(lambda x: x.sum(), argnums=(0, 1.0))(x),
    "argnums_list": lambda F, x: F.grad(lambda x: x.sum(), argnums=[0])(x),
    "argnums_repeated": lambda F, x: F.jacfwd(lambda x, y: x, argnums=(0, 0))(x, x),
    "argnums_negative": lambda F, x: F.grad(lambda x, y: (x * y).sum(), argnums=-1)(x, x * 2),
    "grad_int_input": lambda F, x: F.grad(lambda x: x.sum())(x.long()),
    "grad_non_tensor_input": lambda F, x: F.grad(lambda x: x)(3.0),
    "grad_unused_input": lambda F, x: F.grad(lambda x, y: x.sum(), argnums=1)(x, x),
    "grad_no_args": lambda F, x: F.grad(lambda: x.sum())(),
    "vjp_nontensor_out": lambda F, x: F.vjp(lambda x: 3, x),
    "vjp_fn_wrong_shape": lambda F, x: F.vjp(lambda x: x.sin(), x)[1](x[:2]),
    "vjp_fn_other_dtype": lambda F, x: F.vjp(lambda x: x.sin(), x)[1](x.float()),
    "vjp_fn_wrong_structure": lambda F, x: F.vjp(lambda x: x.sin(), x)[1]((x,)),
    "vjp_fn_dict_structure": lambda F, x: F.vjp(lambda x: {"a": x, "b": (x, x)}, x)[1]([x]),
    "vjp_fn_int_output": lambda F, x: F.vjp(lambda x: (x, x.long()), x)[1]((x, x.long())),
    "vjp_aux_not_pair": lambda F, x: F.vjp(lambda x: x, x, has_aux=True),
    "vjp_no_primals": lambda F, x: F.vjp(lambda: x * 2),
    "jvp_primals_not_tuple": lambda F, x: F.jvp(lambda x: x.sin(), x, x),
    "jvp_primals_list": lambda F, x: F.jvp(lambda x: x.sin(), [x], [x]),
    "jvp_tangents_not_tuple": lambda F, x: F.jvp(lambda x: x, (x,), x),
    "jvp_length_mismatch": lambda F, x: F.jvp(lambda x: x.sin(), (x,), (x, x)),
    "jvp_shape_mismatch": lambda F, x: F.jvp(lambda x: x.sin(), (x,), (x[:2],)),
    "jvp_other_dtype": lambda F, x: F.jvp(lambda x: x.sin(), (x,), (x.float(),)),
    "jvp_empty": lambda F, x: F.jvp(lambda: x, (), ()),
    "jvp_nontensor_out": lambda F, x: F.jvp(lambda x: 3, (x,), (x,)),
    "jvp_int_primal": lambda F, x: F.jvp(lambda x: x, (x.long(),), (x.long(),)),
    "jvp_nontensor_tangent": lambda F, x: F.jvp(lambda x: x, (x,), (3.0,)),
    "jvp_unused": lambda F, x: F.jvp(lambda x: x.new_ones(2) if False else x[:0] * 0, (x,), (x,)),
    "jvp_aux_not_pair": lambda F, x: F.jvp(lambda x: x, (x,), (x,), has_aux=True),
    "jacrev_int_input": lambda F, x: F.jacrev(lambda x: x)(x.long()),
    "jacfwd_int_input": lambda F, x: F.jacfwd(lambda x: x)(x.long()),
    "jacrev_nontensor_out": lambda F, x: F.jacrev(lambda x: 3)(x),
    "jacfwd_nontensor_out": lambda F, x: F.jacfwd(lambda x: 3)(x),
    "jacrev_int_out": lambda F, x: F.jacrev(lambda x: x.long())(x),
    "jacfwd_int_out": lambda F, x: F.jacfwd(lambda x: x.long())(x),
    "jacrev_aux_not_pair": lambda F, x: F.jacrev(lambda x: x, has_aux=True)(x),
    "jacfwd_aux_not_pair": lambda F, x: F.jacfwd(lambda x: x, has_aux=True)(x),
    "jacfwd_randomness": lambda F, x: F.jacfwd(lambda x: x, randomness="bad")(x),
    "jacfwd_random_in_error_mode": lambda F, x: F.jacfwd(lambda x: x * x.new_ones(3).uniform_())(x),
    "jacrev_chunk_size": lambda F, x: F.jacrev(lambda x: x, chunk_size=0),
    "jacrev_empty": lambda F, x: F.jacrev(lambda x: x * 2)(x[:0]),
    "jacfwd_empty": lambda F, x: F.jacfwd(lambda x: x * 2)(x[:0]),
    "jacrev_dtype": lambda F, x: F.jacrev(lambda x: x.double())(x.float()),
    "jacfwd_dtype": lambda F, x: F.jacfwd(lambda x: x.float())(x),
    "hessian_nonscalar": lambda F, x: F.hessian(lambda x: x.sin())(x),
    "linearize_shape": lambda F, x: F.linearize(lambda x: x.sin(), x)[1](x[:2]),
    "linearize_dtype": lambda F, x: F.linearize(lambda x: x.sin(), x)[1](x.float()),
    "linearize_count": lambda F, x: F.linearize(lambda x: x, x)[1](x, x),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_and_edges(case):
    both(lambda lib: ERRORS[case](lib.func, tensors(lib, "vec")[0]))


# --- vmap ------------------------------------------------------------------------------------

VMAP = {
    "default": lambda F, x, y, s: F.vmap(lambda a, b: a * b.sin())(x, y),
    "in_dims_tuple": lambda F, x, y, s: F.vmap(lambda a, b: a + b, in_dims=(0, None))(x, y[0]),
    "in_dims_1": lambda F, x, y, s: F.vmap(lambda a, b: a * b, in_dims=1)(x, y),
    "in_dims_negative": lambda F, x, y, s: F.vmap(lambda a, b: a + b, in_dims=(-1, -1))(x, y),
    "in_dims_nested": lambda F, x, y, s: F.vmap(lambda p: p[0] + p[1], in_dims=((0, 1),))((x, y.T)),
    "in_dims_dict": lambda F, x, y, s: F.vmap(lambda p: p["a"] * 2, in_dims=({"a": 0},))({"a": x}),
    "out_dims_1": lambda F, x, y, s: F.vmap(lambda a: a * 2, out_dims=1)(x),
    "out_dims_negative": lambda F, x, y, s: F.vmap(lambda a: a, out_dims=-1)(x),
    "out_dims_tuple": lambda F, x, y, s: F.vmap(lambda a: (a, a.exp()), out_dims=(0, 1))(x),
    "out_dims_1_tuple": lambda F, x, y, s: F.vmap(lambda a: a, out_dims=(1,))(x),
    "out_dims_none_unbatched": lambda F, x, y, s: F.vmap(lambda a: (a, y), out_dims=(0, None))(x),
    "out_none_non_tensor": lambda F, x, y, s: F.vmap(lambda a: (a, 3), out_dims=(0, None))(x),
    "out_unbatched_default": lambda F, x, y, s: F.vmap(lambda a: y)(x),
    "out_scalar": lambda F, x, y, s: F.vmap(lambda a: a.sum())(x),
    "out_dict": lambda F, x, y, s: F.vmap(lambda a: {"o": a, "p": [a * 2]})(x),
    "kwargs_unmapped": lambda F, x, y, s: F.vmap(lambda a, b=None: a * b)(x, b=y[:1]),
    "non_tensor_arg_none": lambda F, x, y, s: F.vmap(lambda a, n: a * n, in_dims=(0, None))(x, 2),
    "int_tensor": lambda F, x, y, s: F.vmap(lambda a: a * 2)(x.long()),
    "chunk_size": lambda F, x, y, s: F.vmap(lambda a: a * 2, chunk_size=1)(x),
    "nested_vmap": lambda F, x, y, s: F.vmap(F.vmap(lambda a, b: a * b), in_dims=(0, None))(
        x, y[0]
    ),
    "random_same": lambda F, x, y, s: F.vmap(lambda a: a * 0 + s.rand(()), randomness="same")(
        x
    ).std(),
    "empty_batch": lambda F, x, y, s: F.vmap(lambda a: (a * 2, a.sum()))(x[:0]),
    "empty_batch_dims": lambda F, x, y, s: F.vmap(lambda a: a * 2, in_dims=1, out_dims=-1)(
        x[:, :0]
    ),
    # errors
    "batch_size_mismatch": lambda F, x, y, s: F.vmap(lambda a, b: a)(x, y.T),
    "batch_size_mismatch3": lambda F, x, y, s: F.vmap(lambda a, b, c: a)(x, y.T, x[0]),
    "in_dims_none": lambda F, x, y, s: F.vmap(lambda a, b: a, in_dims=None)(x, y),
    "in_dims_all_none": lambda F, x, y, s: F.vmap(lambda a, b: a, in_dims=(None, None))(x, y),
    "in_dims_short": lambda F, x, y, s: F.vmap(lambda a, b: a, in_dims=(0,))(x, y),
    "in_dims_list": lambda F, x, y, s: F.vmap(lambda a, b: a, in_dims=[0, None])(x, y),
    "in_dims_float": lambda F, x, y, s: F.vmap(lambda a, b: a, in_dims=1.0)(x, y),
    "in_dims_string_entry": lambda F, x, y, s: F.vmap(lambda a: a, in_dims=("a",))(x),
    "in_dims_out_of_range": lambda F, x, y, s: F.vmap(lambda a, b: a, in_dims=(2, 0))(x, y),
    "in_dims_nested_mismatch": lambda F, x, y, s: F.vmap(lambda p: p[0], in_dims=((0, 0, 0),))(
        (x, y)
    ),
    "in_dims_dict_for_tensor": lambda F, x, y, s: F.vmap(lambda p: p, in_dims=({"a": 0},))(x),
    "in_dim_on_number": lambda F, x, y, s: F.vmap(lambda a, n: a * n, in_dims=(0, 0))(x, 2),
    "number_in_tuple": lambda F, x, y, s: F.vmap(lambda p: p[0] * p[1])((x, 2.0)),
    "zero_dim_input": lambda F, x, y, s: F.vmap(lambda a: a)(x[0, 0]),
    "no_inputs": lambda F, x, y, s: F.vmap(lambda: x)(),
    "non_tensor_out": lambda F, x, y, s: F.vmap(lambda a: 3)(x),
    "none_out": lambda F, x, y, s: F.vmap(lambda a: None)(x),
    "non_tensor_in_tuple_out": lambda F, x, y, s: F.vmap(lambda a: (a, 3))(x),
    "out_dims_out_of_range": lambda F, x, y, s: F.vmap(lambda a: a, out_dims=3)(x),
    "out_dims_too_long": lambda F, x, y, s: F.vmap(lambda a: (a, a), out_dims=(0, 1, 0))(x),
    "out_dims_list": lambda F, x, y, s: F.vmap(lambda a: (a, a), out_dims=[0, 1])(x),
    "out_dims_float": lambda F, x, y, s: F.vmap(lambda a: a, out_dims=1.0)(x),
    "out_dims_none_batched": lambda F, x, y, s: F.vmap(lambda a: a, out_dims=None)(x),
    "randomness_bad": lambda F, x, y, s: F.vmap(lambda a: a, randomness="bad"),
    "random_in_error_mode": lambda F, x, y, s: F.vmap(lambda a: a + s.randn(3))(x),
    "chunk_size_zero": lambda F, x, y, s: F.vmap(lambda a: a, chunk_size=0),
    "not_callable": lambda F, x, y, s: F.vmap(3)(x),
}


@pytest.mark.parametrize("case", VMAP)
def test_vmap(case):
    def build(lib):
        x, y = tensors(lib, "mat")
        return VMAP[case](lib.func, x, y * 2, lib)

    both(build)


def test_jacfwd_randomness_same_draws_once_per_jacobian():
    jac = mg.func.jacfwd(lambda x: x * mg.rand(3), randomness="same")(mg.ones(3))
    assert (jac.diag() > 0).all() and (jac - mg.diag(jac.diag()) == 0).all()
    mg.manual_seed(0)
    expected = mg.rand(3)
    mg.manual_seed(0)
    np.testing.assert_array_equal(
        mg.func.jacfwd(lambda x: x * mg.rand(3), randomness="same")(mg.ones(3)).diag().numpy(),
        expected.numpy(),
    )


def test_vmap_randomness_different_differs_per_sample():
    x = mg.zeros(4, 2)
    out = mg.func.vmap(lambda a: a + mg.rand(()), randomness="different")(x)
    assert len(set(out[:, 0].tolist())) == 4


# --- functional_call -------------------------------------------------------------------------


def _model(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    for i, p in enumerate(model.parameters()):  # the same weights in both libraries
        p.data = lib.tensor(np.random.RandomState(i).randn(*p.shape), dtype=lib.float32)
    return model


class _TiedFactory:
    def __call__(self, lib):
        class Tied(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = lib.nn.Linear(2, 2, bias=False)
                self.b = lib.nn.Linear(2, 2, bias=False)
                self.b.weight = self.a.weight

            def forward(self, x):
                return self.a(x) + self.b(x)

        return Tied()


def _fc_cases():
    def zeros_for(lib, model):
        return {k: lib.zeros_like(v) for k, v in model.named_parameters()}

    x_of = lambda lib: lib.tensor(BATCH, dtype=lib.float32)  # noqa: E731
    tied, ones22 = _TiedFactory(), lambda lib: lib.ones(1, 2)  # noqa: E731
    z22 = lambda lib: lib.zeros(2, 2)  # noqa: E731
    return {
        "swap": lambda lib, m: lib.func.functional_call(m, zeros_for(lib, m), (x_of(lib),)),
        "single_arg": lambda lib, m: lib.func.functional_call(m, zeros_for(lib, m), x_of(lib)),
        "kwargs": lambda lib, m: lib.func.functional_call(
            m, zeros_for(lib, m), (), {"input": x_of(lib)}
        ),
        "restored": lambda lib, m: (
            lib.func.functional_call(m, zeros_for(lib, m), (x_of(lib),)),
            type(m[0].weight).__name__,
            m[0].weight * 1,
        ),
        "some_params": lambda lib, m: lib.func.functional_call(
            m, {"2.bias": lib.ones(2)}, (x_of(lib),)
        ),
        "dicts_tuple": lambda lib, m: lib.func.functional_call(
            m, (zeros_for(lib, m), {"1.running_mean": lib.ones(4)}), (x_of(lib),)
        ),
        "buffers_updated_in_place": lambda lib, m: (
            lambda bufs: (lib.func.functional_call(m, bufs, (x_of(lib),)), bufs, m[1].running_mean)
        )({"1.running_mean": lib.zeros(4), "1.running_var": lib.ones(4)}),
        "strict_missing": lambda lib, m: lib.func.functional_call(
            m, {"0.weight": lib.zeros(4, 3)}, (x_of(lib),), strict=True
        ),
        "strict_unexpected": lambda lib, m: lib.func.functional_call(
            m, {**zeros_for(lib, m), "foo": lib.ones(1)}, (x_of(lib),), strict=True
        ),
        "unexpected_not_strict": lambda lib, m: lib.func.functional_call(
            m, {**zeros_for(lib, m), "0.foo": lib.ones(1)}, (x_of(lib),)
        ),
        "repeated_keys": lambda lib, m: lib.func.functional_call(
            m, (zeros_for(lib, m), zeros_for(lib, m)), (x_of(lib),)
        ),
        "not_dicts": lambda lib, m: lib.func.functional_call(m, [1], (x_of(lib),)),
        "tied_a": lambda lib, m: lib.func.functional_call(
            tied(lib), {"a.weight": z22(lib)}, (ones22(lib),)
        ),
        "tied_b": lambda lib, m: lib.func.functional_call(
            tied(lib), {"b.weight": z22(lib)}, (ones22(lib),)
        ),
        "untied": lambda lib, m: (
            lib.func.functional_call(
                tied(lib), {"a.weight": z22(lib)}, (ones22(lib),), tie_weights=False
            ).shape
        ),
        "tied_both": lambda lib, m: lib.func.functional_call(
            tied(lib), {"a.weight": z22(lib), "b.weight": z22(lib)}, (ones22(lib),)
        ),
        "tied_strict": lambda lib, m: lib.func.functional_call(
            tied(lib), {"a.weight": z22(lib)}, (ones22(lib),), strict=True
        ),
    }


FC = _fc_cases()


@pytest.mark.parametrize("case", FC)
def test_functional_call(case):
    both(lambda lib: FC[case](lib, _model(lib)))


def test_functional_call_restores_after_an_error():
    model = mg.nn.Linear(2, 2)
    weight = model.weight
    with pytest.raises(RuntimeError):
        mg.func.functional_call(model, {"weight": mg.zeros(3, 3)}, (mg.ones(1, 2),))
    assert model.weight is weight and isinstance(model.weight, mg.nn.Parameter)


# --- per-sample gradients: vmap(grad(loss)) over functional_call ----------------------------


def _per_sample(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))
    for i, p in enumerate(model.parameters()):
        p.data = lib.tensor(np.random.RandomState(10 + i).randn(*p.shape) * 0.5, dtype=lib.float32)
    params = {k: v.detach() for k, v in model.named_parameters()}
    data = lib.tensor(SAMPLES, dtype=lib.float32)
    targets = lib.tensor([0, 2, 1, 1, 0, 2])

    def loss(p, x, t):
        out = lib.func.functional_call(model, p, (x.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, t.unsqueeze(0))

    grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, data, targets)
    losses = lib.func.vmap(loss, in_dims=(None, 0, 0))(params, data, targets)
    return grads, losses


def test_per_sample_gradients_of_an_mlp():
    both(_per_sample)
    grads, _ = _per_sample(mg)
    assert grads["0.weight"].shape == (6, 8, 4)


def test_per_sample_gradients_match_one_backward_per_sample():
    """vmap(grad(loss)) gives what one loss.backward() per sample gives."""
    grads, _ = _per_sample(mg)
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Linear(4, 8), mg.nn.Tanh(), mg.nn.Linear(8, 3))
    for i, p in enumerate(model.parameters()):
        p.data = mg.tensor(np.random.RandomState(10 + i).randn(*p.shape) * 0.5, dtype=mg.float32)
    targets = [0, 2, 1, 1, 0, 2]
    for n, row in enumerate(SAMPLES):
        model.zero_grad()
        out = model(mg.tensor(row[None], dtype=mg.float32))
        mg.nn.functional.cross_entropy(out, mg.tensor([targets[n]])).backward()
        for name, p in model.named_parameters():
            np.testing.assert_allclose(grads[name][n].numpy(), p.grad.numpy(), rtol=1e-5)


def test_transforms_compose_with_outer_autograd():
    """Parameters that require grad keep the graph through vmap(grad(...)) and jacrev, so a
    backward afterwards reaches them, as in PyTorch."""

    def build(lib):
        model = lib.nn.Linear(3, 2)
        for i, p in enumerate(model.parameters()):
            p.data = lib.tensor(np.random.RandomState(i).randn(*p.shape), dtype=lib.float32)
        params = dict(model.named_parameters())
        x = lib.tensor(BATCH, dtype=lib.float32)

        def loss(p, xi):
            return lib.func.functional_call(model, p, (xi,)).pow(2).sum()

        grads = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0))(params, x)
        sum(g.sum() for g in grads.values()).backward()
        jac = lib.func.jacrev(lambda p: lib.func.functional_call(model, p, (x,)))(params)
        return grads, model.weight.grad, model.bias.grad, jac

    both(build)


# --- how many passes jacfwd and jacrev run (lesson 16) ---------------------------------------


def passes(jacobian, f, x) -> tuple[int, int]:
    """(calls of f, backward passes) while computing jacobian(f)(x)."""
    calls = Counter()

    def counted(v):
        calls["f"] += 1
        return f(v)

    with mg.autograd.record_steps() as steps:
        jacobian(counted)(x)
    return calls["f"], steps.kinds().count("backward_start")


@pytest.mark.parametrize(("n_in", "n_out"), [(2, 7), (7, 2), (4, 4)])
def test_pass_counts(n_in, n_out):
    """jacfwd: one forward pass per input element, no backward; jacrev: one forward pass,
    one backward per output element. The cheaper one is the smaller side."""
    x = mg.arange(n_in, dtype=mg.float64) / 3
    f = lambda v: (mg.ones(n_out, n_in, dtype=mg.float64) @ v.sin()) * mg.arange(n_out)  # noqa: E731
    assert passes(mg.func.jacfwd, f, x) == (n_in, 0)
    assert passes(mg.func.jacrev, f, x) == (1, n_out)
    # hessian = jacfwd(jacrev(f)): a forward pass per input element, each with the one
    # backward pass of a scalar's gradient
    assert passes(mg.func.hessian, lambda v: f(v).sum(), x) == (n_in, n_in)
    # jvp: one forward pass; vjp: one forward pass, then a backward per vjp_fn call
    assert passes(lambda g: lambda v: mg.func.jvp(g, (v,), (v,)), f, x) == (1, 0)
    assert passes(lambda g: lambda v: mg.func.vjp(g, v)[1](g(v)), f, x) == (2, 1)


# --- torch.autograd.functional's forward-mode functions (real forward mode in minigrad) -----

AF_FUNCS = {
    "one": (lambda x: x.sin() * x, 1),
    "two": (lambda x, y: (x * y).exp(), 2),
    "unused": (lambda x, y: x * 2, 2),
    "pair_out": (lambda x, y: (x.sin() * y, y.sum()), 2),
}
AF_SCALAR = {
    "one": (lambda x: (x.sin() * x).sum(), 1),
    "two": (lambda x, y: (x.sin() * y).sum(), 2),
    "unused": (lambda x, y: x.sin().sum(), 2),
}
AF_OPTIONS = [{}, {"strict": True}, {"create_graph": True}]


def _af_args(lib, n):
    x, y, v = tensors(lib, "vec", 3)
    inputs, vs = (x, y)[:n], (v, x)[:n]
    return (inputs, vs) if n > 1 else (inputs[0], vs[0])


@pytest.mark.parametrize("options", AF_OPTIONS, ids=str)
@pytest.mark.parametrize("fname", AF_FUNCS)
def test_autograd_functional_jvp(fname, options):
    f, n = AF_FUNCS[fname]
    both(lambda lib: lib.autograd.functional.jvp(f, *_af_args(lib, n), **options))


@pytest.mark.parametrize("options", AF_OPTIONS, ids=str)
@pytest.mark.parametrize("fname", AF_SCALAR)
@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_autograd_functional_hvp(name, fname, options):
    f, n = AF_SCALAR[fname]
    both(lambda lib: getattr(lib.autograd.functional, name)(f, *_af_args(lib, n), **options))


@pytest.mark.parametrize(
    "options",
    [
        {"strategy": "forward-mode", "vectorize": True},
        {"strategy": "forward-mode"},
        {"strategy": "forward-mode", "vectorize": True, "create_graph": True},
        {"strategy": "forward-mode", "vectorize": True, "strict": True},
        {"strategy": "sideways"},
    ],
    ids=str,
)
@pytest.mark.parametrize("fname", AF_FUNCS)
def test_autograd_functional_forward_jacobian(fname, options):
    f, n = AF_FUNCS[fname]
    both(lambda lib: lib.autograd.functional.jacobian(f, _af_args(lib, n)[0], **options))


def test_autograd_functional_forward_over_reverse_hessian():
    """Values as PyTorch's; PyTorch's forward-mode Hessian also leaves requires_grad=True on
    its result (a graph to its internal inputs), minigrad's is detached."""
    f = AF_SCALAR["one"][0]
    options = {"outer_jacobian_strategy": "forward-mode", "vectorize": True}
    ours = mg.autograd.functional.hessian(f, tensors(mg, "vec")[0], **options)
    theirs = torch.autograd.functional.hessian(f, tensors(torch, "vec")[0], **options)
    np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=1e-7)
    assert theirs.requires_grad and not ours.requires_grad


def test_autograd_functional_jvp_is_one_forward_pass():
    """No backward pass: the real forward mode, where PyTorch runs the double-backward trick."""
    calls = Counter()

    def f(x):
        calls["f"] += 1
        return x.sin() * x

    x, v = tensors(mg, "vec")
    with mg.autograd.record_steps() as steps:
        mg.autograd.functional.jvp(f, x, v)
    assert (calls["f"], steps.kinds().count("backward_start")) == (1, 0)


def test_transforms_under_no_grad():
    def build(lib):
        x, y = tensors(lib, "vec")
        with lib.no_grad():
            return (
                lib.func.grad(lambda x: (x.sin() * y).sum())(x),
                lib.func.jacrev(lambda x: x.sin())(x),
                lib.func.jacfwd(lambda x: x.sin())(x),
                lib.func.vjp(lambda x: x.exp(), x)[1](y),
            )

    both(build)
