"""`out=` against PyTorch: every torch-level function that takes it (ops/out.py's NAMES) called
with out=, the result written, returned and counted as PyTorch does, and the rules around it:
resizing (with its warning), dtypes that cannot take the result, autograd refused, a view as out."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from parity import Recorder, assert_same

from minigrad.ops.out import NAMES


def m(torch: ModuleType, *shape: int, low: float = 0.1) -> object:
    """Positive, distinct values (every unary op is defined on them), as float32."""
    n = int(np.prod(shape)) if shape else 1
    return torch.tensor((low + np.arange(n) / (2 * n)).reshape(shape).astype(np.float32))


CALLS = {  # name -> the arguments (out= is added), written once for both libraries
    "binary": lambda t, f: f(m(t, 2, 3), m(t, 2, 3) + 0.25),
    "unary": lambda t, f: f(m(t, 2, 3)),
    "addmm": lambda t, f: f(m(t, 2), m(t, 2, 3), m(t, 3, 2)),
    "bmm": lambda t, f: f(m(t, 2, 2, 3), m(t, 2, 3, 2)),
    "matmul": lambda t, f: f(m(t, 2, 3), m(t, 3, 2)),
    "mm": lambda t, f: f(m(t, 2, 3), m(t, 3, 2)),
    "mv": lambda t, f: f(m(t, 2, 3), m(t, 3)),
    "dot": lambda t, f: f(m(t, 3), m(t, 3)),
    "outer": lambda t, f: f(m(t, 2), m(t, 3)),
    "join": lambda t, f: f([m(t, 2, 3), m(t, 2, 3)]),
    "dim": lambda t, f: f(m(t, 2, 3), 1),
    "clamp": lambda t, f: f(m(t, 2, 3), 0.2, 0.3),
    "lerp": lambda t, f: f(m(t, 2, 3), m(t, 2, 3) + 1, 0.25),
    "gather": lambda t, f: f(m(t, 2, 3), 1, t.tensor([[0, 2], [1, 1]])),
    "index_select": lambda t, f: f(m(t, 2, 3), 1, t.tensor([2, 0])),
    "masked_select": lambda t, f: f(
        m(t, 2, 3), t.tensor([[True, False, True], [False, True, True]])
    ),
    "where": lambda t, f: f(m(t, 2, 3) > 0.3, m(t, 2, 3), m(t, 2, 3) + 1),
    "histc": lambda t, f: f(m(t, 2, 3), bins=4, min=0, max=1),
    "logical": lambda t, f: f(m(t, 2, 3) > 0.3, m(t, 2, 3) > 0.2),
    "pow": lambda t, f: f(m(t, 2, 3), 2.5),
    "round": lambda t, f: f(m(t, 2, 3) * 10),
}
KIND = {
    **dict.fromkeys(
        "add atan2 div eq fmod ge gt le lt maximum minimum mul ne remainder sub".split(), "binary"
    ),
    **dict.fromkeys("cat dstack hstack stack vstack".split(), "join"),
    **dict.fromkeys("cumprod cumsum logsumexp prod sum".split(), "dim"),
    **dict.fromkeys("logical_and logical_or logical_xor".split(), "logical"),
}


@pytest.mark.parametrize("name", NAMES)
def test_every_function_writes_its_out(name):
    call = CALLS[KIND.get(name, name if name in CALLS else "unary")]

    def snippet(torch, out):
        fn = getattr(torch, name)
        expected = call(torch, fn)
        target = torch.empty(0, dtype=expected.dtype)
        returned = call(torch, lambda *a, **k: fn(*a, out=target, **k))
        out("result", (returned, returned is target, target._version))

    assert_same(snippet)


def snip_rules(torch: ModuleType, out: Recorder) -> None:
    a, b = m(torch, 2), m(torch, 2) + 1
    full = torch.zeros(3)
    with out.warns("a full out of the wrong shape is resized, with a warning"):
        torch.add(a, b, out=full)
    out("resized", (full, full._version))
    with out.warns("an empty one silently"):
        out("empty", torch.mul(a, b, out=torch.empty(0)))
    with out.raises("a float result into int64"):
        torch.add(a, b, out=torch.empty(2, dtype=torch.int64))
    out(
        "ints into float", torch.add(torch.tensor([1, 2]), torch.tensor([3, 4]), out=torch.empty(2))
    )
    out("float32 into float64", torch.add(a, b, out=torch.empty(2, dtype=torch.float64)))
    grad = a.clone().requires_grad_()
    with out.raises("an input requiring grad"):
        torch.add(grad, b, out=torch.empty(2))
    with out.raises("out requiring grad"):
        torch.add(a, b, out=torch.empty(2, requires_grad=True))
    with torch.no_grad():
        out("under no_grad", torch.add(grad, b, out=torch.empty(2)))
    base = torch.zeros(2, 2)
    view = base[0]
    torch.mul(a, b, out=view)
    out("a view as out writes its base", (base, base._version, view._version))
    with out.raises("sum of the whole tensor into out"):
        torch.sum(a, out=torch.empty(0))
    with out.raises("out not a tensor"):
        torch.add(a, b, out=[1, 2])


def test_out_rules_match_torch():
    assert_same(snip_rules)
