"""Mixed precision against PyTorch: the TF32 / matmul-precision flags, the bfloat16 and float16
dtype objects, `torch.amp.autocast` on the CPU (float16 matmuls and convolutions, float32
losses, nesting, the decorator, the weight cast cache, PyTorch's warnings and errors) and
`torch.amp.GradScaler` step by step, an overflowing step skipped included.

Each snippet runs on both libraries (tests/parity.py); the flags are process-wide, so the
snippets that set them put them back. Inputs are multiples of 1/8, so float16 products are
exact and both libraries agree to the bit. The last tests are minigrad's own: numpy has no
bfloat16, so making a tensor of it (or autocasting to it) raises a TypeError saying so.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same

import minigrad

pytest.importorskip("torch")


def eighths(torch: ModuleType, *shape: int, seed: int = 0, grad: bool = False) -> Any:
    """Small multiples of 1/8: exact in float16, and so are their short sums of products."""
    values = np.random.default_rng(seed).integers(-8, 9, shape) / 8
    return torch.tensor(values, dtype=torch.float32, requires_grad=grad)


def items(state: dict) -> list:
    """A state dict as something the recorder takes: its (key, value) pairs."""
    return sorted(state.items())


# ---------------------------------------------------------------- TF32 and precision flags


def snip_matmul_flags(torch: ModuleType, out: Recorder) -> None:
    cuda, saved = torch.backends.cuda.matmul, torch.get_float32_matmul_precision()
    try:
        out("defaults", (cuda.allow_tf32, torch.get_float32_matmul_precision()))
        out(
            "reductions",
            (
                cuda.allow_fp16_reduced_precision_reduction,
                cuda.allow_bf16_reduced_precision_reduction,
            ),
        )
        cuda.allow_tf32 = True
        out("tf32 on", (cuda.allow_tf32, torch.get_float32_matmul_precision()))
        torch.set_float32_matmul_precision("medium")
        out("medium", cuda.allow_tf32)
        torch.set_float32_matmul_precision("highest")
        out("highest", cuda.allow_tf32)
        with out.warns("unknown precision"):
            torch.set_float32_matmul_precision("fast")
        out("unchanged", torch.get_float32_matmul_precision())
        with out.raises("precision not a str"):
            torch.set_float32_matmul_precision(3)
        with out.raises("tf32 not a bool"):
            cuda.allow_tf32 = 1
        cuda.allow_fp16_reduced_precision_reduction = (False, False)
        out(
            "fp16 off",
            (
                cuda.allow_fp16_reduced_precision_reduction,
                cuda.allow_fp16_reduced_precision_reduction_split_k,
            ),
        )
        cuda.allow_fp16_reduced_precision_reduction = [True]
        out("fp16 on", cuda.allow_fp16_reduced_precision_reduction_split_k)
        for bad in ("yes", (), (True, False, True), (True, 1), (True, False)):
            with out.raises(f"reduction {bad!r}"):
                cuda.allow_bf16_reduced_precision_reduction = bad
        with out.raises("unknown attribute"):
            cuda.allow_everything = True
        with out.raises("unknown attribute read"):
            cuda.allow_everything  # noqa: B018
        torch.backends.cudnn.allow_tf32 = True
        out("cudnn and build", (torch.backends.cudnn.allow_tf32, torch.backends.cuda.is_built()))
    finally:
        torch.set_float32_matmul_precision(saved)
        cuda.allow_fp16_reduced_precision_reduction = True
        cuda.allow_bf16_reduced_precision_reduction = True


def snip_half_dtypes(torch: ModuleType, out: Recorder) -> None:
    bf16, f16 = torch.bfloat16, torch.float16
    out("floating", (bf16.is_floating_point, f16.is_floating_point, bf16.itemsize, f16.itemsize))
    out("aliases", (torch.half is f16, bf16 == f16, bf16 != torch.float32, bf16 == bf16))
    table = {"float32": torch.float32, "bfloat16": bf16, "float16": f16}  # nanoGPT's
    out("table", [table[name] for name in ("float32", "bfloat16", "float16")])
    out("hashable", len({bf16, f16, torch.float32, bf16}))


# ---------------------------------------------------------------- autocast


def snip_autocast_matmuls(torch: ModuleType, out: Recorder) -> None:
    """The matmul family runs in float16, the cast recorded (ToCopyBackward0, one per weight
    per region); float32 gradients flow back to the float32 leaves."""
    f = torch.nn.functional
    a, b = eighths(torch, 3, 4, grad=True), eighths(torch, 4, 5, seed=1, grad=True)
    batch = eighths(torch, 2, 3, 4, seed=2)
    with torch.autocast("cpu", dtype=torch.float16):
        out("state", (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")))
        products = [
            a @ b,
            torch.mm(a, b),
            torch.matmul(a[0], b),
            torch.matmul(a[0], a[1]),
            torch.bmm(batch, b.expand(2, 4, 5)),
            torch.addmm(torch.ones(5), a, b),
            f.linear(a, b.t(), torch.ones(5)),
            f.linear(batch, b.t()),
        ]
        out("products", products)
        out("graph", [type(p.grad_fn).__name__ for p in products[:2]])
        out("casts", [type(n).__name__ for n, _ in products[0].grad_fn.next_functions])
        out(
            "one cast per weight",
            products[0].grad_fn.next_functions[0][0] is products[1].grad_fn.next_functions[0][0],
        )
        out("float64 untouched", torch.mm(a.double(), b.double()).dtype)
        out("elementwise untouched", (a.exp().dtype, (a + 1).dtype))
        total = sum(p.float().sum() for p in products[:3])
    total.backward()
    out("grads", (a.grad, b.grad))
    out("after", (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")))


def snip_autocast_convolutions(torch: ModuleType, out: Recorder) -> None:
    f = torch.nn.functional
    x1, w1 = eighths(torch, 1, 2, 6), eighths(torch, 3, 2, 3, seed=1, grad=True)
    x2, w2 = eighths(torch, 1, 2, 4, 4, seed=2), eighths(torch, 3, 2, 2, 2, seed=3)
    with torch.autocast("cpu", dtype=torch.float16):
        y1 = f.conv1d(x1, w1, torch.zeros(3))
        y2 = f.conv2d(x2, w2)
        y3 = f.conv_transpose2d(x2, w2.transpose(0, 1))
        y4 = f.conv2d(y2, eighths(torch, 2, 3, 1, 1, seed=4), torch.zeros(2))  # half input
    out("convolutions", (y1, y2, y3, y4))
    y1.float().sum().backward()
    out("weight grad", w1.grad)


def snip_autocast_float32_ops(torch: ModuleType, out: Recorder) -> None:
    """Losses run in float32 whatever precision their inputs arrive in. (Their float16 inputs
    are made in float32, then cast: minigrad's own float16 sigmoid and log_softmax round
    differently from PyTorch's, which compute in float32.)"""
    f = torch.nn.functional

    def half_of(t: Any) -> Any:
        return t.to(torch.float16)

    a, b = eighths(torch, 3, 4, grad=True), eighths(torch, 4, 5, seed=1)
    target, probs = torch.tensor([0, 1, 4]), torch.full((3, 5), 0.5)
    with torch.autocast("cpu", dtype=torch.float16):
        logits = a @ b
        losses = [
            f.mse_loss(logits, torch.zeros(3, 5)),
            f.cross_entropy(logits, target),
            f.nll_loss(half_of(logits.float().log_softmax(-1)), target),
            f.binary_cross_entropy_with_logits(logits, probs),
            f.binary_cross_entropy(half_of(logits.float().sigmoid()), half_of(probs)),
        ]
        out("losses", losses)
    sum(losses).backward()
    out("grad", a.grad)


def snip_autocast_blocks(torch: ModuleType, out: Recorder) -> None:
    """Nesting, enabled=False, the decorator, and the dtypes and devices CPU autocast refuses."""
    a = eighths(torch, 2, 2)
    with torch.autocast("cpu", dtype=torch.float16) as block:
        out("returns itself", type(block).__name__)
        with torch.autocast("cpu", enabled=False):
            out("inner off", ((a @ a).dtype, torch.get_autocast_dtype("cpu")))
        with torch.amp.autocast(device_type="cpu", dtype=torch.float16):
            out("inner on", (a @ a).dtype)
        out("outer again", (torch.is_autocast_enabled("cpu"), (a @ a).dtype))
    out("outside", ((a @ a).dtype, torch.is_autocast_enabled("cpu"), torch.is_autocast_enabled()))

    @torch.autocast("cpu", dtype=torch.float16)
    def product(x: Any) -> Any:
        """docstring"""
        return x @ x

    out("decorated", (product(a).dtype, product.__name__, product.__doc__))
    out("after call", torch.is_autocast_enabled("cpu"))
    for name in ("float32", "float64"):
        with out.warns(f"{name} refused"), torch.autocast("cpu", dtype=getattr(torch, name)):
            out(f"{name} off", (torch.is_autocast_enabled("cpu"), (a @ a).dtype))
    with out.warns("cuda refused"), torch.autocast("cuda"):
        out("cuda off", torch.is_autocast_enabled("cuda"))
    with out.raises("unknown device"):
        torch.autocast("gpu")
    with out.raises("device not a str"):
        torch.autocast(0)
    with out.raises("enabled not a bool"), torch.autocast("cpu", dtype=torch.float16, enabled=1):
        pass
    with out.warns("dtype not a dtype"), out.raises("dtype not a dtype"):
        with torch.autocast("cpu", dtype="float16"):
            pass
    out("state kept", (torch.is_autocast_enabled("cpu"), torch.get_autocast_dtype("cpu")))
    out("available", (torch.amp.is_autocast_available("cpu"), torch.get_autocast_dtype("cuda")))


# ---------------------------------------------------------------- GradScaler


def _model(torch: ModuleType) -> Any:
    model = torch.nn.Linear(4, 3)
    with torch.no_grad():
        model.weight.copy_(eighths(torch, 3, 4, seed=5))
        model.bias.copy_(eighths(torch, 3, seed=6))
    return model


def snip_grad_scaler_training(torch: ModuleType, out: Recorder) -> None:
    """Five steps with a growth interval of 2; the third step's loss overflows (its gradients
    are inf and NaN), so that step is skipped and the scale backed off. (In float32: float16
    matmuls of arbitrary values round differently in numpy and PyTorch, see snip_amp_step.)"""
    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**4, growth_interval=2)
    out("before", (scaler.get_scale(), items(scaler.state_dict()), scaler.is_enabled()))
    for step in range(5):
        x = eighths(torch, 2, 4, seed=10 + step) * (3e38 if step == 2 else 1.0)
        opt.zero_grad()
        loss = model(x).square().mean()
        scaled = scaler.scale(loss)
        out(f"step {step} loss", (loss, scaled))
        scaled.backward()
        scaler.unscale_(opt)
        out(f"step {step} grads", [p.grad for p in model.parameters()])
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        out(f"step {step} returns", scaler.step(opt))
        scaler.update()
        out(f"step {step} params", [p.detach().clone() for p in model.parameters()])
        out(f"step {step} scale", (scaler.get_scale(), items(scaler.state_dict())))


def snip_amp_step(torch: ModuleType, out: Recorder) -> None:
    """nanoGPT's step under float16 autocast, with its values exact in float16."""
    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**10)
    with torch.autocast("cpu", dtype=torch.float16):
        logits = model(eighths(torch, 2, 4, seed=7))
        loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0, 2]))
    out("forward", (logits, loss))
    scaler.scale(loss).backward()
    out("scaled grads", [p.grad for p in model.parameters()])
    scaler.unscale_(opt)
    out("grads", [p.grad for p in model.parameters()])
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    out("params", [p.detach().clone() for p in model.parameters()])
    out("scale", (scaler.get_scale(), items(scaler.state_dict())))


def snip_grad_scaler_stages(torch: ModuleType, out: Recorder) -> None:
    """PyTorch's errors for a step taken out of order, and the scale's rules."""
    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    scaler = torch.amp.GradScaler("cpu", init_scale=8.0)
    for name, call in (("unscale_", scaler.unscale_), ("step", scaler.step)):
        with out.raises(f"{name} before scale"):
            call(opt)
    with out.raises("update before scale"):
        scaler.update()
    scaled = scaler.scale([model(eighths(torch, 1, 4)).sum(), (torch.ones(2),)])
    out("nested outputs", scaled)
    with out.raises("not a tensor"):
        scaler.scale(3.0)
    with out.raises("update before any step"):
        scaler.update()
    scaled[0].backward()
    scaler.step(opt)  # unscales first
    out("unscaled by step", [p.grad for p in model.parameters()])
    with out.raises("step twice"):
        scaler.step(opt)
    with out.raises("unscale_ after step"):
        scaler.unscale_(opt)
    with out.raises("closure"):
        scaler.step(opt, closure=lambda: 0.0)
    scaler.update()
    scaler.unscale_(opt)
    with out.raises("unscale_ twice"):
        scaler.unscale_(opt)
    scaler.update(new_scale=2.0)
    out("new scale", scaler.get_scale())
    scaler.update(new_scale=torch.tensor(4.0))
    out("new scale tensor", scaler.get_scale())
    with out.raises("new scale with grad"):
        scaler.update(new_scale=torch.tensor(4.0, requires_grad=True))
    half = torch.nn.Parameter(torch.ones(2, dtype=torch.float16))
    half.grad = torch.ones(2, dtype=torch.float16)
    with out.raises("float16 gradients"):
        scaler.unscale_(torch.optim.SGD([half], lr=0.1))
    for factor, name in ((1.0, "growth_factor"), (1.0, "backoff_factor")):
        with out.raises(f"bad {name}"):
            torch.amp.GradScaler("cpu", **{name: factor})


def snip_grad_scaler_state(torch: ModuleType, out: Recorder) -> None:
    scaler = torch.amp.GradScaler("cpu", init_scale=4.0, growth_factor=4.0, growth_interval=3)
    scaler.scale(torch.ones(1))
    scaler.set_growth_factor(8.0)
    scaler.set_backoff_factor(0.25)
    scaler.set_growth_interval(5)
    state = scaler.state_dict()
    out("state", items(state))
    fresh = torch.amp.GradScaler("cpu")
    fresh.load_state_dict(state)
    out(
        "loaded",
        (
            fresh.get_scale(),
            fresh.get_growth_factor(),
            fresh.get_backoff_factor(),
            fresh.get_growth_interval(),
            items(fresh.state_dict()),
        ),
    )
    with out.raises("empty state"):
        fresh.load_state_dict({})


def snip_grad_scaler_disabled(torch: ModuleType, out: Recorder) -> None:
    """Disabled (or asked for CUDA, which is disabled with a warning) it passes through."""
    with out.warns("cuda scaler"):
        cuda_scaler = torch.amp.GradScaler()
    model = _model(torch)
    opt = torch.optim.SGD(model.parameters(), lr=0.125)
    for scaler in (cuda_scaler, torch.amp.GradScaler("cpu", enabled=False)):
        loss = model(eighths(torch, 2, 4)).square().mean()
        out("scale is identity", scaler.scale(loss) is loss)
        loss.backward()
        out("unscale_", scaler.unscale_(opt))
        out("step", scaler.step(opt))
        out("update", scaler.update())
        out("state", (scaler.get_scale(), items(scaler.state_dict()), scaler.is_enabled()))
        out("params", [p.detach().clone() for p in model.parameters()])
        scaler.load_state_dict({})


SNIPPETS = {name[5:]: fn for name, fn in dict(globals()).items() if name.startswith("snip_")}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_amp_matches_torch(name: str) -> None:
    assert_same(SNIPPETS[name])


# ---------------------------------------------------------------- minigrad's own: no bfloat16

NO_BFLOAT16 = "numpy has no bfloat16"


@pytest.mark.parametrize(
    "make",
    [
        lambda: minigrad.zeros(2, dtype=minigrad.bfloat16),
        lambda: minigrad.tensor([1.0], dtype=minigrad.bfloat16),
        lambda: minigrad.ones(2).to(minigrad.bfloat16),
        lambda: minigrad.autocast("cpu", dtype=minigrad.bfloat16).__enter__(),
        lambda: minigrad.autocast("cpu").__enter__(),  # CPU autocast's default dtype
    ],
)
def test_bfloat16_tensors_raise_a_clear_type_error(make: Callable[[], Any]) -> None:
    with pytest.raises(TypeError, match=NO_BFLOAT16):
        make()
    assert not minigrad.is_autocast_enabled("cpu")


def test_bfloat16_blocks_that_are_off_or_never_entered_are_fine() -> None:
    with minigrad.autocast("cpu", enabled=False):
        assert minigrad.get_autocast_dtype("cpu") is minigrad.bfloat16
    minigrad.autocast("cpu", dtype=minigrad.bfloat16)  # made (e.g. as a decorator), not entered


def test_bfloat16_pickles_by_name() -> None:
    import copy
    import pickle

    assert pickle.loads(pickle.dumps(minigrad.bfloat16)) is minigrad.bfloat16
    assert copy.deepcopy({"dtype": minigrad.bfloat16})["dtype"] is minigrad.bfloat16
