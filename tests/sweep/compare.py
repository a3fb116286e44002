"""Compare minigrad's observations with PyTorch's, phase by phase; PyTorch is the expectation.

Tensors: dtype, shape, requires_grad and grad_fn name equal; NaN and ±inf exactly where
PyTorch has them; other values within the dtype's tolerance (tests/ops/_support.py), the
absolute part scaled by the largest finite magnitude. Errors: the same exception type, and
minigrad's message contains the key words of PyTorch's: its first sentence (tests/parity.py) up
to the first ": " (what follows names tensors and nodes, which tests/ops checks op by op). The
sign of a zero is not compared.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from ops._support import TOLERANCE
from parity import key_phrase


def _tolerance(dtype: str) -> dict:
    return TOLERANCE.get(dtype, TOLERANCE["float32"])


def key_words(message: str) -> str:
    return key_phrase(message).split(": ")[0]


def brief(value: Any, values: bool = True) -> str:
    """A short text for a recorded value (lists of tensors: dtypes and shapes only)."""
    if isinstance(value, tuple) and value and value[0] == "tensor":
        _, dtype, shape, vals, rg, fn = value
        shown = f" {_flat(vals)}" if values and vals is not None else ""
        extra = f", grad_fn={fn}" if fn else ""
        return f"tensor({dtype}, {list(shape)}{shown}, requires_grad={rg}{extra})"
    if isinstance(value, tuple) and value and value[0] == "raises":
        return f"{value[1]}({value[2][:200]!r})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(brief(v, values=False) for v in value[:4])
        more = ", ..." if len(value) > 4 else ""
        return f"[{inner}{more}]" if isinstance(value, list) else f"({inner}{more})"
    return repr(value)[:200]


def _flat(vals: np.ndarray) -> str:
    """The first few values, flattened: "[0.5, nan, -1.0, ...]"."""
    items = [repr(v) for v in vals.reshape(-1)[:4].tolist()]
    return "[" + ", ".join(items) + (", ...]" if vals.size > 4 else "]")


def _at(idx: tuple) -> str:
    return "(" + ", ".join(str(int(i)) for i in idx) + ")"


def compare_values(exp: np.ndarray, act: np.ndarray, dtype: str, where: str) -> str | None:
    if exp.dtype.kind not in "fc" or act.dtype.kind not in "fc":
        if np.array_equal(exp, act):
            return None
        idx = tuple(np.argwhere(exp != act)[0])
        return f"{where}: at {_at(idx)} torch {exp[idx].item()!r}, minigrad {act[idx].item()!r}"
    e, a = exp.astype(np.float64), act.astype(np.float64)
    bad = np.isnan(e) != np.isnan(a)
    inf = np.isinf(e) | np.isinf(a)
    bad |= inf & (e != a) & ~np.isnan(e) & ~np.isnan(a)
    finite = np.isfinite(e) & np.isfinite(a)
    tol = _tolerance(dtype)
    scale = max(1.0, float(np.abs(e[np.isfinite(e)]).max(initial=0.0)))
    with np.errstate(invalid="ignore", over="ignore"):
        bad |= finite & (np.abs(a - e) > tol["atol"] * scale + tol["rtol"] * np.abs(e))
    if not bad.any():
        return None
    idx = tuple(np.argwhere(bad)[0])
    return (
        f"{where}: {int(bad.sum())} of {bad.size} values differ, first at {_at(idx)}: "
        f"torch {e[idx].item()!r}, minigrad {a[idx].item()!r}"
    )


def _fields(exp: tuple, act: tuple, where: str) -> str | None:
    """The first of dtype, shape, requires_grad, grad_fn that differs."""
    for i, name in ((1, "dtype"), (2, "shape"), (4, "requires_grad"), (5, "grad_fn")):
        if exp[i] != act[i]:
            return f"{where}: {name} torch {exp[i]!r}, minigrad {act[i]!r}"
    return None


def match(exp: Any, act: Any, where: str, floor: str = "") -> str | None:
    """Why ``act`` (minigrad's) differs from ``exp`` (PyTorch's), or None. ``floor``: the
    tolerance of the case's least precise dtype, which every value inherits (float32 inputs'
    rounding reaches float64 gradients through mixed-precision ops)."""
    if isinstance(exp, tuple) and exp and exp[0] in ("tensor", "raises"):
        if not (isinstance(act, tuple) and act and act[0] == exp[0]):
            return f"{where}: torch {brief(exp)}, minigrad {brief(act)}"
        if exp[0] == "raises":
            if exp[1] != act[1]:
                return f"{where}: torch raises {brief(exp)}, minigrad {brief(act)}"
            phrase = key_words(exp[2])
            if phrase not in act[2]:
                return f"{where}: message {act[2][:300]!r} lacks torch's {phrase!r}"
            return None
        differs = _fields(exp, act, where)
        if differs or exp[3] is None or act[3] is None:
            return differs
        return compare_values(exp[3], act[3], floor or exp[1], where)
    if isinstance(exp, (tuple, list)):
        if type(exp) is not type(act) or len(exp) != len(act):
            return f"{where}: torch {brief(exp)}, minigrad {brief(act)}"
        for i, (e, a) in enumerate(zip(exp, act)):
            why = match(e, a, f"{where}[{i}]", floor)
            if why:
                return why
        return None
    if isinstance(exp, float) and isinstance(act, float):
        if math.isclose(exp, act, rel_tol=1e-5, abs_tol=1e-6) or (
            math.isnan(exp) and math.isnan(act)
        ):
            return None
    elif type(exp) is type(act) and exp == act:
        return None
    return f"{where}: torch {brief(exp)}, minigrad {brief(act)}"


def _by_phase(obs: list) -> dict[str, list]:
    phases: dict[str, list] = {}
    for phase, label, value in obs:
        phases.setdefault(phase, []).append((label, value))
    return phases


def compare(expected: list, actual: list, floor: str = "") -> list[str]:
    """Every difference, at most one per phase (the first)."""
    exp, act = _by_phase(expected), _by_phase(actual)
    problems = []
    for phase in dict.fromkeys([*exp, *act]):
        e, a = exp.get(phase, []), act.get(phase, [])
        for i in range(max(len(e), len(a))):
            if i >= len(e) or i >= len(a) or e[i][0] != a[i][0]:
                got = f"{a[i][0]}: {brief(a[i][1])}" if i < len(a) else "nothing"
                want = f"{e[i][0]}: {brief(e[i][1])}" if i < len(e) else "nothing"
                problems.append(f"[{phase}] torch {want}; minigrad {got}")
                break
            why = match(e[i][1], a[i][1], f"[{phase}] {e[i][0]}", floor)
            if why:
                problems.append(why)
                break
    return problems
