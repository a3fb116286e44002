"""Shared by the tutorial tests: parametrization over both libraries, the check, fixed data.

Each tutorial pattern is a snippet ``snip_x(torch, out)`` (see tests/parity.py). A case runs it
on one library, chosen by the ``lib`` fixture:

* on torch, the snippet must run to its end (no exception escapes it) and give the same
  observations twice: that proves the snippet itself is sound and free of randomness;
* on minigrad, its observations must match torch's (values to float tolerance, dtypes, names,
  exception types and the first sentence of torch's messages).

A pattern that needs a feature another helper is building gets a strict xfail on minigrad only.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from parity import compare, load_lib, run_snippet
from semantics.snippets import collect

Snippet = Callable[[ModuleType, Any], None]


def cases(module_globals: dict, xfail: dict[str, str] | None = None) -> list:
    """(lib, snippet) parameters for every snip_* of a module; `xfail` maps a snippet's name
    (without snip_) to the feature it waits for."""
    xfail = xfail or {}
    unknown = set(xfail) - {fn.__name__[5:] for fn in collect(module_globals)}
    assert not unknown, f"xfail names no snippet: {sorted(unknown)}"
    params = []
    for fn in collect(module_globals):
        name = fn.__name__[5:]
        for lib in ("torch", "minigrad"):
            marks = ()
            if lib == "minigrad" and name in xfail:
                reason = f"needs {xfail[name]}, being built"
                marks = (pytest.mark.xfail(strict=True, reason=reason),)
            params.append(pytest.param(lib, fn, id=f"{name}-{lib}", marks=marks))
    return params


def parametrize(module_globals: dict, xfail: dict[str, str] | None = None):
    """The decorator for a module's one test: `lib` through the fixture, then the snippet."""
    return pytest.mark.parametrize("lib, snippet", cases(module_globals, xfail), indirect=["lib"])


def run(snippet: Snippet, lib: ModuleType) -> list:
    """run_snippet, then grad mode back on: a library that leaks a mode must fail one case,
    not every case after it."""
    try:
        return run_snippet(snippet, lib)
    finally:
        lib.set_grad_enabled(True)


@functools.cache
def torch_observations(snippet: Snippet) -> list:
    return run(snippet, load_lib("torch"))


def check(snippet: Snippet, lib: ModuleType, *, key: str | None = None) -> None:
    """Run `snippet` on `lib` and hold it to what PyTorch does (see the module docstring)."""
    expected = torch_observations(snippet)
    if lib.__name__ == "torch":
        escaped = [value for label, value in expected if label == "raises"]
        assert not escaped, f"the snippet fails on torch itself: {escaped}"
        again = compare(expected, run(snippet, lib))
        assert not again, "the snippet is not deterministic on torch:\n  " + "\n  ".join(again)
        return
    problems = compare(expected, run(snippet, lib), key=key)
    assert not problems, "minigrad differs from torch:\n  " + "\n  ".join(problems)


def fixed(torch: ModuleType, *shape: int, scale: float = 1.0, dtype: Any = None) -> Any:
    """A deterministic tensor of mixed signs, standing in for torch.randn in the tutorials."""
    n = 1
    for size in shape:
        n *= size
    values = [((i * 37) % 11 - 5) / 10 * scale for i in range(n)]
    if not shape:
        return torch.tensor(values[0], dtype=dtype or torch.float32)
    return torch.tensor(values, dtype=dtype or torch.float32).reshape(*shape)


def set_params(torch: ModuleType, module: Any, scale: float = 0.5) -> Any:
    """Overwrite every parameter of `module` with fixed values, so both libraries start alike."""
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(fixed(torch, *p.shape, scale=scale / (i + 1), dtype=p.dtype))
    return module
