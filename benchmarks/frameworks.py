"""PyTorch and minigrad, from one piece of code: both take the same torch-style calls, so each
workload is written once against `lib` (the torch or the minigrad module)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import courses, data
from .runner import Impl, Runner, now, timed
from .workloads import LR, W1_SIZES, W2_SIZES, W4_LENGTH, W4_START, w4_ops


def mlp(lib: ModuleType, sizes: tuple[int, ...]) -> Any:
    layers: list[Any] = []
    for a, b in zip(sizes, sizes[1:], strict=False):
        layers += [lib.nn.Linear(a, b), lib.nn.ReLU()]
    return lib.nn.Sequential(*layers[:-1])


def cnn(lib: ModuleType) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(128, 10),
    )


def load(lib: ModuleType, model: Any) -> Any:
    """Give the model the shared initial weights (data.init_params)."""
    params = list(model.parameters())
    arrays = data.init_params([tuple(p.shape) for p in params])
    with lib.no_grad():
        for p, a in zip(params, arrays, strict=True):
            p.copy_(lib.from_numpy(a))
    return model


def _step(lib: ModuleType, model: Any, opt: Any, loss_fn: Any, x: Any, y: Any) -> Any:
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss


def _w1(lib: ModuleType) -> Runner:
    model = load(lib, mlp(lib, W1_SIZES))
    opt = lib.optim.SGD(model.parameters(), lr=LR["W1"])
    d = data.moons()
    x, y = lib.from_numpy(d.x), lib.from_numpy(d.y)
    return timed("step", lambda: _step(lib, model, opt, lib.nn.MSELoss(), x, y).item())


def _epoch(lib: ModuleType, model: Any, workload: str, images: bool) -> Runner:
    load(lib, model)
    opt = lib.optim.SGD(model.parameters(), lr=LR[workload])
    loss_fn = lib.nn.CrossEntropyLoss()
    batches = [(lib.from_numpy(x), lib.from_numpy(y)) for x, y in data.digits(images).batches()]

    def epoch() -> float:
        for x, y in batches:
            loss = _step(lib, model, opt, loss_fn, x, y)
        return loss.item()

    return timed("epoch", epoch)


def _w4(lib: ModuleType) -> Runner:
    ops = w4_ops()
    x = lib.full((4,), W4_START, requires_grad=True)

    def run() -> tuple[dict[str, float], float]:
        start = now()
        y = x
        for f in ops:
            y = f(y)
        mid = now()
        total = y.sum()
        total.backward()
        end = now()
        x.grad = None
        return {
            "forward/op": (mid - start) / W4_LENGTH,
            "backward/op": (end - mid) / W4_LENGTH,
        }, total.item()

    return run


def setups(lib: ModuleType) -> dict:
    return {
        "W1": lambda: _w1(lib),
        "W2": lambda: _epoch(lib, mlp(lib, W2_SIZES), "W2", images=False),
        "W3": lambda: _epoch(lib, cnn(lib), "W3", images=True),
        "W4": lambda: _w4(lib),
        "W5": lambda: courses.makemore_step(lib),
        "W6": lambda: courses.gpt_step(lib),
    }


def torch_impl(threads: int) -> Impl:
    import torch

    torch.set_num_threads(threads)
    return Impl("PyTorch CPU", setups(torch))


def minigrad_impl(backend: str, threads: int) -> Impl:
    import minigrad

    def before() -> None:
        minigrad.kernels.use(backend)
        if backend == "numba":
            import numba

            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))

    return Impl(f"minigrad ({backend})", setups(minigrad), before=before)
