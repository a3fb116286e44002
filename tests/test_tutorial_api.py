"""The API that PyTorch's tutorials open with, on both libraries: devices, `torch.cuda`,
`.to(...)`, `equal`, `type()`, `all`/`any`, in-place unary ops, and `numpy()` where PyTorch
allows it. minigrad runs on the CPU only; asking for another device fails as PyTorch's CPU
build does (same exception type and words, minigrad adds that it runs on the CPU)."""

from __future__ import annotations

import pytest
from parity import assert_same
from semantics.snippets import collect


def snip_device_objects(torch, out):
    out("cpu", repr(torch.device("cpu")))
    out("cuda:1", (repr(torch.device("cuda:1")), str(torch.device("cuda", 0))))
    out("type and index", (torch.device("cuda:2").type, torch.device("cuda:2").index))
    out("equality", (torch.device("cpu") == torch.device("cpu"), torch.device("cpu") == "cpu"))
    out("a tensor's", (repr(torch.ones(2).device), torch.ones(2).is_cuda))
    with out.raises("unknown type"):
        torch.device("gpu")
    out("cuda", (torch.cuda.is_available(), torch.cuda.device_count()))
    out("default", (torch.set_default_device("cpu"), repr(torch.get_default_device())))


def snip_the_tutorial_preamble(torch, out):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = torch.nn.Linear(3, 2).to(device)
    x = torch.ones(4, 3, device=device)
    y = model(x.to(device)).sum()
    y.backward()
    out("trains on the chosen device", (model.weight.grad.shape, str(x.device)))
    out("to(cpu) returns the tensor itself", (x.to("cpu") is x, x.cpu() is x))
    out("to(device, dtype)", x.to(torch.device("cpu"), torch.float64).dtype)
    out("to(dtype=, device=)", x.to(device="cpu", dtype=torch.float64).dtype)
    out(
        "factories",
        [
            t.device.type
            for t in (
                torch.zeros(2, device="cpu"),
                torch.arange(3, device="cpu"),
                torch.randn(2, device="cpu"),
                torch.zeros_like(x, device="cpu"),
                torch.tensor([1.0], device=torch.device("cpu")),
            )
        ],
    )


@pytest.mark.parametrize(
    "ask",
    [
        "x.to('cuda')",
        "x.to('cuda:0')",
        "x.cuda()",
        "torch.ones(2, device='cuda')",
        "torch.nn.Linear(2, 2).cuda()",
        "torch.nn.Linear(2, 2).to('cuda')",
        "x.to('mps')",
    ],
)
def test_other_devices_fail_like_a_cpu_build(ask):
    def snip(torch, out):
        x = torch.ones(2)
        with out.raises(ask):
            eval(ask, {"torch": torch, "x": x})

    assert_same(snip)


def snip_equal_type_all_any(torch, out):
    a, b = torch.ones(2), torch.ones(2, dtype=torch.int64)
    out("equal", (a.equal(torch.ones(2)), torch.equal(a, torch.ones(3)), torch.equal(a, b)))
    out("type()", (a.type(), b.type(), torch.ones(1, dtype=torch.bool).type()))
    out("type(dtype)", a.type(torch.float64))
    out("type(name)", a.type("torch.DoubleTensor"))
    out("type(same) is x", (a.type(torch.float32) is a, a.type("torch.FloatTensor") is a))
    with out.raises("type(unknown)"):
        a.type("torch.Foo")
    out("all", (torch.all(torch.tensor([True, False])), torch.all(torch.ones(2, 2), dim=0)))
    out("any", (torch.any(torch.zeros(2)), torch.tensor([1.0, 0.0]).all()))


def snip_inplace_unary_ops(torch, out):
    for name in ("cos_", "sin_", "log_", "sqrt_", "abs_", "floor_", "ceil_", "round_", "trunc_"):
        x = torch.tensor([0.5, 1.5, 2.25])
        y = getattr(x, name)()
        out(name, (y is x, x, x._version))
    w = torch.tensor([0.5, 1.0], requires_grad=True)
    h = w * 2
    h.cos_()
    h.sum().backward()
    out("cos_ in a graph", (h.grad_fn.name(), w.grad))
    with out.raises("on a leaf that requires grad"):
        torch.zeros(2, requires_grad=True).sin_()


def snip_numpy_where_pytorch_allows_it(torch, out):
    class Double(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.from_numpy(x.numpy() * 2)  # forward runs without grad mode

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    x = torch.ones(2, requires_grad=True)
    y = Double.apply(x)
    y.sum().backward()
    out("numpy() inside Function.forward", (y, x.grad))
    with torch.no_grad():
        out("under no_grad", x.numpy().tolist())
    with out.raises("while grad mode could record it"):
        x.numpy()
    out("force=True", x.numpy(force=True).tolist())


def snip_sort(torch, out):
    nan, inf = float("nan"), float("inf")
    values = torch.tensor([3.0, 1.0, 3.0, nan, 1.0, inf, -inf])
    for descending in (False, True):
        v, i = torch.sort(values, descending=descending)
        out(f"descending={descending}: ties keep their order, NaN is largest", (v, i))
    out(
        "ints and bools",
        (torch.tensor([3, 1, 2]).sort(descending=True), torch.sort(torch.tensor([True, False]))),
    )
    out("0-d", tuple(torch.tensor(5.0).sort()))
    x = torch.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]], requires_grad=True)
    result = x.sort(dim=0, descending=True)
    (result.values * torch.arange(6.0).reshape(2, 3)).sum().backward()
    out(
        "gradient to where each value came from",
        (result.values.grad_fn.name(), result.indices, x.grad),
    )
    (g,) = torch.autograd.grad((x.sort()[0] ** 2).sum(), x, create_graph=True)
    out("second order", torch.autograd.grad(g.sum(), x))
    with out.raises("bad dim"):
        torch.sort(x, 3)


def snip_index_add(torch, out):
    base = torch.zeros(3, 2, requires_grad=True)
    source = torch.ones(4, 2, requires_grad=True)
    index = torch.tensor([0, 2, 0, 1])
    y = (base * 1).index_add_(0, index, source, alpha=2)
    (y * torch.arange(6.0).reshape(3, 2)).sum().backward()
    out("in place, repeated indices add up", (y, y.grad_fn.name(), base.grad, source.grad))
    out(
        "out of place, dim 1",
        torch.zeros(2, 3).index_add(1, torch.tensor([2, 0]), torch.ones(2, 2)),
    )
    bad = {
        "float index": lambda: torch.zeros(3).index_add_(0, torch.tensor([0.0]), torch.ones(1)),
        "index out of range": lambda: torch.zeros(3).index_add_(
            0, torch.tensor([5]), torch.ones(1)
        ),
        "count mismatch": lambda: torch.zeros(3).index_add_(0, torch.tensor([0, 1]), torch.ones(3)),
        "2-d index": lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([[0]]), torch.ones(1, 2)),
        "dtype mismatch": lambda: torch.zeros(3).index_add_(
            0, torch.tensor([0]), torch.ones(1, dtype=torch.float64)
        ),
        "leaf": lambda: torch.zeros(3, requires_grad=True).index_add_(
            0, torch.tensor([0]), torch.ones(1)
        ),
    }
    for label, call in bad.items():
        with out.raises(label):
            call()
    index = torch.tensor([0, 1])
    y = (base * 1).index_add(0, index, torch.ones(2, 2, requires_grad=True))
    index[0] = 2
    with out.raises("the saved index was changed in place"):
        y.sum().backward()


SNIPPETS = collect(globals())


@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.__name__[5:] for s in SNIPPETS])
def test_tutorial_api(snippet):
    assert_same(snippet)
