"""nn.RNN/LSTM/GRU and their cells against PyTorch: PyTorch's initialised weights are loaded into
minigrad's module through load_state_dict (which also proves the parameter names and shapes),
then the same input gives the same output, final states and gradients of every parameter, the
input and h0; in float32 and float64, batch_first, stacked, bidirectional, projected, unbatched.
Errors and warnings are compared by type and key phrase with tests/parity.py; the dropout
between layers, repr, init bounds, dtype conversion and clip_grad_norm_ on an LSTM are checked
too. minigrad's graphs are made of the steps' ops, so only a cell's top grad_fn is compared.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from parity import assert_same

torch = pytest.importorskip("torch")
import minigrad  # noqa: E402

TOL = {"float32": {"rtol": 1e-5, "atol": 1e-6}, "float64": {"rtol": 1e-10, "atol": 1e-12}}


def make_pair(name: str, dtype: str, **kwargs: Any) -> tuple[Any, Any]:
    """torch's module with its own init, and minigrad's with those weights loaded (strict)."""
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(**kwargs).to(getattr(torch, dtype))
    ours = getattr(minigrad.nn, name)(**kwargs, dtype=getattr(minigrad, dtype))
    state = theirs.state_dict()
    ours.load_state_dict({k: minigrad.tensor(v.numpy()) for k, v in state.items()})
    assert list(ours.state_dict()) == list(state)
    assert [tuple(p.shape) for p in ours.parameters()] == [
        tuple(p.shape) for p in theirs.parameters()
    ]
    return theirs, ours


def leaf_pair(shape: tuple[int, ...], dtype: str, seed: int) -> tuple[Any, Any]:
    data = np.random.default_rng(seed).standard_normal(shape)
    return (
        torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=True),
        minigrad.tensor(data, dtype=getattr(minigrad, dtype), requires_grad=True),
    )


def flatten(result: Any) -> list[Any]:
    if isinstance(result, tuple):
        return [t for part in result for t in flatten(part)]
    return [result]


def assert_close(ours: Any, theirs: Any, dtype: str, what: str) -> None:
    assert tuple(ours.shape) == tuple(theirs.shape), what
    assert ours.dtype.name == str(theirs.dtype).split(".")[1], what
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), err_msg=what, **TOL[dtype]
    )


def check_run(name: str, dtype: str, input_shape: tuple, hx_shapes: tuple = (), **kwargs: Any):
    """One forward and `.sum().backward()` of every output on both libraries, compared."""
    theirs, ours = make_pair(name, dtype, **kwargs)
    t_x, m_x = leaf_pair(input_shape, dtype, seed=1)
    pairs = [leaf_pair(shape, dtype, seed=2 + i) for i, shape in enumerate(hx_shapes)]
    t_args, m_args = [t_x], [m_x]
    if pairs:
        t_hx, m_hx = [p[0] for p in pairs], [p[1] for p in pairs]
        lstm = name.startswith("LSTM")
        t_args.append(tuple(t_hx) if lstm else t_hx[0])
        m_args.append(tuple(m_hx) if lstm else m_hx[0])
    t_out, m_out = flatten(theirs(*t_args)), flatten(ours(*m_args))
    assert len(t_out) == len(m_out)
    for i, (m, t) in enumerate(zip(m_out, t_out, strict=True)):
        assert_close(m, t, dtype, f"output {i}")
    sum(t.sum() for t in t_out).backward()
    sum(m.sum() for m in m_out).backward()
    named = dict(ours.named_parameters())
    for key, param in theirs.named_parameters():
        assert_close(named[key].grad, param.grad, dtype, f"grad of {key}")
    for i, (t, m) in enumerate([(t_x, m_x), *pairs]):
        assert_close(m.grad, t.grad, dtype, f"grad of input {i}")


LAYER_CONFIGS = [
    {},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"num_layers": 2, "bias": False},
    {"bidirectional": True},
]
LAYERS = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("config", LAYER_CONFIGS, ids=lambda c: "-".join(map(str, c)) or "plain")
@pytest.mark.parametrize("name,extra", LAYERS, ids=lambda v: str(v) if v else "")
def test_layer_matches_torch(name: str, extra: dict, config: dict, dtype: str) -> None:
    batch, seq = 3, 5
    shape = (batch, seq, 4) if config.get("batch_first") else (seq, batch, 4)
    check_run(name, dtype, shape, input_size=4, hidden_size=6, **extra, **config)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input(name: str, batch_first: bool, dtype: str) -> None:
    check_run(name, dtype, (5, 4), input_size=4, hidden_size=3, batch_first=batch_first)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batched", [True, False])
def test_given_initial_state(name: str, batched: bool, dtype: str) -> None:
    """h0 (and c0) given: their gradients too; batched (2*2, 3, 5) or unbatched (2*2, 5)."""
    shape, state = ((6, 3, 4), (4, 3, 5)) if batched else ((6, 4), (4, 5))
    states = (state, state) if name == "LSTM" else (state,)
    check_run(
        name, dtype, shape, states, input_size=4, hidden_size=5, num_layers=2, bidirectional=True
    )


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_lstm_projection(bidirectional: bool, dtype: str) -> None:
    """proj_size: h (and the output) projected to 3, c keeps the hidden size 6."""
    d = 2 if bidirectional else 1
    kwargs = {"num_layers": 2, "bidirectional": bidirectional, "proj_size": 3}
    check_run("LSTM", dtype, (5, 2, 4), (), input_size=4, hidden_size=6, **kwargs)
    states = ((2 * d, 2, 3), (2 * d, 2, 6))
    check_run("LSTM", dtype, (5, 2, 4), states, input_size=4, hidden_size=6, **kwargs)


CELLS = [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}), ("LSTMCell", {}), ("GRUCell", {})]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("given", [False, True])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("name,extra", CELLS, ids=lambda v: str(v) if v else "")
def test_cell_matches_torch(
    name: str, extra: dict, bias: bool, given: bool, batched: bool, dtype: str
) -> None:
    shape, state = ((3, 4), (3, 5)) if batched else ((4,), (5,))
    states = () if not given else (state, state) if name == "LSTMCell" else (state,)
    check_run(name, dtype, shape, states, input_size=4, hidden_size=5, bias=bias, **extra)


@pytest.mark.parametrize("name,extra", CELLS, ids=lambda v: str(v) if v else "")
def test_cell_top_grad_fn(name: str, extra: dict) -> None:
    """The last op of a step is the same op as PyTorch's (its fused cells stop before it)."""

    def snippet(lib: Any, out: Any) -> None:
        cell = getattr(lib.nn, name)(4, 5, **extra)
        result = cell(lib.zeros(2, 4, requires_grad=True))
        out("grad_fn", [t.grad_fn.name() for t in flatten(result)])

    assert_same(snippet)


def test_dropout_between_layers() -> None:
    """Eval ignores dropout; dropout=1 in training zeroes the second layer's input (so its
    output is the same in both libraries), and never touches the last layer's output."""
    theirs, ours = make_pair("GRU", "float64", input_size=4, hidden_size=5, num_layers=2, dropout=1)
    t_x, m_x = leaf_pair((6, 2, 4), "float64", seed=1)
    for train in (True, False):
        theirs.train(train)
        ours.train(train)
        for m, t in zip(flatten(ours(m_x)), flatten(theirs(t_x)), strict=True):
            assert_close(m, t, "float64", f"train={train}")
    ours.train()
    half = minigrad.nn.LSTM(4, 5, num_layers=2, dropout=0.5, dtype=minigrad.float64)
    output, _ = half(m_x)
    assert np.isfinite(output.detach().numpy()).all()


def test_state_dict_keys_and_repr() -> None:
    def snippet(lib: Any, out: Any) -> None:
        nn = lib.nn
        modules = [
            nn.RNN(10, 20),
            nn.RNN(10, 20, 2, "relu", False, True, 0.3, True),
            nn.LSTM(10, 20, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True),
            nn.LSTM(10, 20, 2, False, True, 0.5, True, 5),
            nn.GRU(10, 20, 2, False, True, 0.5, True),
            nn.RNNCell(10, 20, bias=False, nonlinearity="relu"),
            nn.LSTMCell(3, 4, bias=False),
            nn.GRUCell(3, 4),
        ]
        for m in modules:
            out("repr", repr(m))
            out("state", [(k, tuple(v.shape)) for k, v in m.state_dict().items()])
        lstm = modules[3]
        out("attributes", [lstm.mode, lstm.proj_size, lstm.dropout, lstm.bias, lstm.num_layers])
        out("all_weights", [[tuple(w.shape) for w in ws] for ws in lstm.all_weights])
        out("flat names", lstm._flat_weights_names)
        out("nonlinearity", [modules[1].nonlinearity, modules[1].mode, modules[5].nonlinearity])

    assert_same(snippet)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"])
def test_init_is_uniform_in_inverse_sqrt_hidden(name: str) -> None:
    module = getattr(minigrad.nn, name)(8, 16)
    bound = 1 / math.sqrt(16)
    for key, p in module.named_parameters():
        values = p.detach().numpy()
        assert p.requires_grad and p.dtype == minigrad.float32, key
        assert np.abs(values).max() <= bound and values.std() > bound / 3, key


def test_double_and_constructor_dtype() -> None:
    """.double() replaces the data of the parameters the forward reads."""
    lstm = minigrad.nn.LSTM(3, 4).double()
    output, (h, c) = lstm(minigrad.zeros(2, 3, dtype=minigrad.float64))
    assert output.dtype == h.dtype == c.dtype == minigrad.float64
    assert minigrad.nn.GRU(3, 4, dtype=minigrad.float64).weight_hh_l0.dtype == minigrad.float64


def test_clip_grad_norm_on_lstm() -> None:
    """Two steps of d2l's loop: LSTM + Linear, clip_grad_norm_, SGD; same losses and norms."""

    def snippet(lib: Any, out: Any) -> None:
        lstm = lib.nn.LSTM(4, 8)
        head = lib.nn.Linear(8, 3)
        params = list(lstm.parameters()) + list(head.parameters())
        gen = np.random.default_rng(0)
        with lib.no_grad():
            for p in params:
                p.copy_(lib.tensor(gen.uniform(-0.5, 0.5, tuple(p.shape)), dtype=p.dtype))
        x = lib.tensor(gen.standard_normal((5, 2, 4)), dtype=lib.float32)
        y = lib.tensor(gen.integers(0, 3, 10))
        optimizer = lib.optim.SGD(params, lr=1.0)
        state = None
        for _ in range(2):
            if state is not None:
                state = tuple(s.detach() for s in state)
            output, state = lstm(x, state)
            loss = lib.nn.functional.cross_entropy(head(output.reshape(-1, 8)), y)
            optimizer.zero_grad()
            loss.backward()
            norm = lib.nn.utils.clip_grad_norm_(params, max_norm=0.1)
            out("loss", loss)
            out("norm", norm)
            out("clipped", lib.sqrt(sum((p.grad**2).sum() for p in params)))
            optimizer.step()
        out("weights", list(lstm.parameters()))

    assert_same(snippet)


def make_and_call(
    name: str, ctor: tuple, input_shape: tuple, hx: Any = None, dtype: str = ""
) -> Any:
    """A snippet: build `name(*ctor)`, call it on zeros of `input_shape` (and hx shapes)."""

    def snippet(lib: Any, out: Any) -> None:
        module = getattr(lib.nn, name)(*ctor)
        x = lib.zeros(*input_shape, dtype=getattr(lib, dtype) if dtype else None)
        args = [x]
        if hx is not None:
            states = [lib.zeros(*s) for s in hx]
            args.append(tuple(states) if name.startswith("LSTM") else states[0])
        with out.raises("call"):
            flatten(module(*args))

    return snippet


CALL_ERRORS = [
    ("RNN", (10, 20), (5, 3, 7), None),
    ("LSTM", (10, 20), (5, 3, 7), None),
    ("GRU", (10, 20), (5, 3, 7), None),
    ("RNN", (10, 20), (5, 3, 10, 2), None),
    ("LSTM", (10, 20), (10,), None),
    ("GRU", (10, 20), (5, 3, 10, 1), None),
    ("RNN", (10, 20), (5, 3, 10), [(1, 3, 21)]),
    ("GRU", (10, 20), (5, 3, 10), [(2, 3, 20)]),
    ("GRU", (10, 20), (5, 3, 10), [(3, 20)]),
    ("GRU", (10, 20), (5, 10), [(1, 3, 20)]),
    ("GRU", (10, 20), (5, 10), [(2, 20)]),
    ("LSTM", (10, 20), (5, 3, 10), [(1, 3, 20), (1, 4, 20)]),
    ("LSTM", (10, 20), (5, 3, 10), [(1, 4, 20), (1, 3, 20)]),
    ("LSTM", (10, 20), (5, 3, 10), [(3, 20), (3, 20)]),
    ("LSTM", (10, 20), (5, 10), [(1, 20), (1, 3, 20)]),
    ("LSTM", (10, 20, 1, True, False, 0.0, False, 5), (4, 3, 10), [(1, 3, 20), (1, 3, 20)]),
    ("LSTM", (10, 20, 1, True, False, 0.0, False, 5), (4, 3, 10), [(1, 3, 5), (1, 3, 5)]),
    ("GRU", (10, 20), (0, 3, 10), None),
    ("RNNCell", (10, 20), (3, 7), None),
    ("GRUCell", (10, 20), (2, 3, 10), None),
    ("RNNCell", (10, 20), (3, 10), [(4, 20)]),
    ("GRUCell", (10, 20), (3, 10), [(3, 21)]),
    ("GRUCell", (10, 20), (10,), [(1, 20)]),
    ("RNNCell", (10, 20), (3, 10), [(1, 3, 20)]),
    ("LSTMCell", (10, 20), (3, 10), [(3, 20), (4, 20)]),
    ("LSTMCell", (10, 20), (3, 10), [(3, 20), (3, 21)]),
    ("LSTMCell", (10, 20), (10,), [(20,), (3, 1, 20)]),
    ("LSTMCell", (10, 20), (3, 10, 1), None),
    ("RNNCell", (10, 20, True, "foo"), (3, 10), None),
]


@pytest.mark.parametrize("name,ctor,shape,hx", CALL_ERRORS)
def test_call_errors(name: str, ctor: tuple, shape: tuple, hx: Any) -> None:
    assert_same(make_and_call(name, ctor, shape, hx))


def test_input_dtype_must_match_weights() -> None:
    assert_same(make_and_call("LSTM", (10, 20), (5, 3, 10), dtype="float64"))
    assert_same(make_and_call("RNN", (10, 20), (5, 3, 4), dtype="float64"))


CONSTRUCTOR_ERRORS = [
    ("RNN", (10, 20), {"nonlinearity": "foo"}),
    ("RNN", (10, 20), {"dropout": 2}),
    ("LSTM", (10, 20), {"dropout": True}),
    ("GRU", (10, 0), {}),
    ("GRU", (0, 0), {}),
    ("RNN", (10, 2.5), {}),
    ("LSTM", (2.0, 20), {}),
    ("RNN", (10, 2), {"num_layers": 0}),
    ("LSTM", (10, 2), {"proj_size": -1}),
    ("LSTM", (10, 2), {"proj_size": 2}),
    ("GRU", (10, 20), {"dropout": 0.5}),
    ("LSTM", (10, 20), {"dropout": 0.5, "num_layers": 2}),
]


@pytest.mark.parametrize("name,args,kwargs", CONSTRUCTOR_ERRORS)
def test_constructor_errors_and_warnings(name: str, args: tuple, kwargs: dict) -> None:
    def snippet(lib: Any, out: Any) -> None:
        with out.raises("construct"), out.warns("warnings"):
            getattr(lib.nn, name)(*args, **kwargs)

    assert_same(snippet)


@pytest.mark.parametrize("name", ["RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU"])
def test_second_order_gradients(name: str) -> None:
    """create_graph through the steps' ops: the gradient of |dL/dx|^2 matches PyTorch's."""

    def snippet(lib: Any, out: Any) -> None:
        module = getattr(lib.nn, name)(3, 4, dtype=lib.float64)
        gen = np.random.default_rng(0)
        shapes = {k: tuple(v.shape) for k, v in module.state_dict().items()}
        module.load_state_dict(
            {k: lib.tensor(gen.uniform(-0.5, 0.5, s)) for k, s in shapes.items()}
        )
        x = lib.tensor(gen.standard_normal((2, 3)), requires_grad=True)
        first = flatten(module(x))[0].sum()
        (g,) = lib.autograd.grad(first, x, create_graph=True)
        out("first", g)
        out("second", lib.autograd.grad((g**2).sum(), [x, *module.parameters()]))

    assert_same(snippet)


def test_state_dtype_must_match_weights() -> None:
    """A float64 h0 (or cell input) meets float32 weights in a matmul, with PyTorch's error."""

    def snippet(lib: Any, out: Any) -> None:
        double = lib.float64
        with out.raises("cell input"):
            lib.nn.GRUCell(3, 4)(lib.zeros(2, 3, dtype=double))
        with out.raises("cell hidden"):
            lib.nn.RNNCell(3, 4)(lib.zeros(2, 3), lib.zeros(2, 4, dtype=double))
        with out.raises("layer hidden"):
            lib.nn.GRU(3, 4)(lib.zeros(2, 2, 3), lib.zeros(1, 2, 4, dtype=double))
        with out.raises("cell without bias"):
            lib.nn.LSTMCell(3, 4, bias=False)(lib.zeros(2, 3, dtype=double))

    assert_same(snippet)
