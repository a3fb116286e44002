"""nn.Upsample (and UpsamplingNearest2d / UpsamplingBilinear2d) against PyTorch: the same
snippet on both libraries (tests/parity.py) compares reprs, attributes, state_dict keys,
outputs, grad_fn names, gradients, second-order gradients and errors. F.interpolate's own
cases are in the op sweep (tests/sweep/interpolate.py)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same

pytest.importorskip("torch")


def values(torch: ModuleType, *shape: int, seed: int = 0) -> Any:
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(-2.0, 2.0, shape), dtype=torch.float64)


LAYERS: dict[str, tuple[Any, tuple]] = {
    "nearest,sf2": (lambda nn: nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
    "nearest,size": (lambda nn: nn.Upsample(size=(7, 3)), (1, 2, 4, 5)),
    "nearest,3d,sf1.5": (lambda nn: nn.Upsample(scale_factor=1.5), (2, 3, 5)),
    "nearest-exact": (lambda nn: nn.Upsample(size=9, mode="nearest-exact"), (1, 2, 4, 5)),
    "bilinear": (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear"), (1, 2, 4, 5)),
    "bilinear,ac": (
        lambda nn: nn.Upsample(size=(6, 9), mode="bilinear", align_corners=True),
        (2, 2, 3, 4),
    ),
    "bilinear,sf tuple": (
        lambda nn: nn.Upsample(scale_factor=(1.5, 0.5), mode="bilinear"),
        (1, 2, 4, 6),
    ),
    "linear,recompute": (
        lambda nn: nn.Upsample(scale_factor=2.5, mode="linear", recompute_scale_factor=True),
        (2, 3, 4),
    ),
    "area": (lambda nn: nn.Upsample(size=(2, 3), mode="area"), (1, 2, 4, 6)),
    "UpsamplingNearest2d": (lambda nn: nn.UpsamplingNearest2d(scale_factor=3), (1, 2, 3, 2)),
    "UpsamplingBilinear2d": (lambda nn: nn.UpsamplingBilinear2d(size=5), (1, 2, 3, 2)),
}


@pytest.mark.parametrize("name", LAYERS)
def test_upsample_matches_torch(name: str) -> None:
    make, shape = LAYERS[name]

    def snippet(torch: ModuleType, out: Recorder) -> None:
        module = make(torch.nn)
        out("repr", repr(module))
        out("attributes", [module.size, module.scale_factor, module.mode, module.align_corners])
        out("state_dict keys", list(module.state_dict()))
        x = values(torch, *shape).requires_grad_()
        y = module(x)
        out("output", y)
        out("grad_fn", y.grad_fn.name())
        seed = values(torch, *y.shape, seed=5).requires_grad_()
        (g,) = torch.autograd.grad(y, x, seed, create_graph=True)
        out("gradient", g)
        out("gradient's grad_fn", g.grad_fn.name())
        total = (g * values(torch, *g.shape, seed=6)).sum()
        out("second order", list(torch.autograd.grad(total, [seed])))
        out("float32 output", module(values(torch, *shape).float()))

    assert_same(snippet)


def test_upsample_in_a_network_matches_torch() -> None:
    """A U-Net-like decoder step: upsample, concatenate the skip connection, convolve."""

    def snippet(torch: ModuleType, out: Recorder) -> None:
        torch.manual_seed(0)
        conv = torch.nn.Conv2d(4, 2, 3, padding=1).double()
        with torch.no_grad():
            for i, p in enumerate(conv.parameters()):
                p.copy_(values(torch, *p.shape, seed=10 + i))
        up = torch.nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        low, skip = values(torch, 1, 2, 3, 3).requires_grad_(), values(torch, 1, 2, 6, 6, seed=1)
        y = conv(torch.cat([up(low), skip], dim=1))
        y.square().sum().backward()
        out("output", y)
        out("low.grad", low.grad)

    assert_same(snippet)


ERRORS = {
    "no size or scale": lambda torch: torch.nn.Upsample(),
    "bilinear on 3d": lambda torch: torch.nn.Upsample(scale_factor=2, mode="bilinear"),
    "nearest with align_corners": lambda torch: torch.nn.Upsample(size=4, align_corners=True),
    "bicubic on 3d": lambda torch: torch.nn.Upsample(size=4, mode="bicubic"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_upsample_errors_match_torch(name: str) -> None:
    def snippet(torch: ModuleType, out: Recorder) -> None:
        with out.raises(name):
            ERRORS[name](torch)(values(torch, 1, 2, 3))

    assert_same(snippet)
