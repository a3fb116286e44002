"""Where two runs of one program part ways: PyTorch's run is the expectation.

Per step, in order: the error (same type; minigrad's message holds the key words of PyTorch's,
its first sentence up to the first ": "), the hooks called (same names, in the same order, handed
the same gradients), then each named tensor field by field. Float values agree when NaN, ±inf and
the sign of zero sit in the same places and the rest are within the dtype's tolerance.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from ops._support import TOLERANCE
from sweep.compare import key_words

from .execute import FIELDS, Step
from .known import Relaxed, integer_requiring_grad


def same_values(exp: np.ndarray, act: np.ndarray, relaxed: Relaxed) -> bool:
    if exp.shape != act.shape:
        return False
    if exp.dtype.kind not in "fc" or act.dtype.kind not in "fc":
        return np.array_equal(exp, act)
    e, a = exp.astype(np.float64), act.astype(np.float64)
    if not np.array_equal(np.isnan(e), np.isnan(a)):
        return False
    if not np.array_equal(np.where(np.isinf(e), e, 0), np.where(np.isinf(a), a, 0)):
        return False
    zero = (e == 0) & (a == 0)
    if not relaxed.zero_sign and not np.array_equal(np.signbit(e[zero]), np.signbit(a[zero])):
        return False
    if relaxed.huge_float32 and "float32" in (exp.dtype.name, act.dtype.name):
        return True  # (known.py: float32 rounding noise of huge numbers)
    finite = np.isfinite(e) & np.isfinite(a)
    tol = TOLERANCE["float32" if relaxed.float32 else str(exp.dtype)]
    scale = max(1.0, float(np.abs(e[finite]).max(initial=0.0)))
    with np.errstate(invalid="ignore"):
        close = np.abs(a - e) <= tol["atol"] * scale + tol["rtol"] * np.abs(e)
    return bool(close[finite].all())


def same(exp: Any, act: Any, relaxed: Relaxed) -> bool:
    if isinstance(exp, np.ndarray) or isinstance(act, np.ndarray):
        arrays = isinstance(exp, np.ndarray) and isinstance(act, np.ndarray)
        return arrays and same_values(exp, act, relaxed)
    if isinstance(exp, tuple) and isinstance(act, tuple):
        pairs = zip(exp, act)
        return len(exp) == len(act) and all(same(e, a, relaxed) for e, a in pairs)
    return type(exp) is type(act) and exp == act


def show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, separator=", ").replace("\n", "")
    if isinstance(value, tuple):
        return "(" + ", ".join(show(v) for v in value) + ")"
    return repr(value)


def error_differs(exp: tuple | None, act: tuple | None) -> str | None:
    if exp is None and act is None:
        return None
    if exp is None or act is None or exp[0] != act[0]:
        return f"torch {_err(exp)}, minigrad {_err(act)}"
    words = key_words(exp[1])
    if "INTERNAL ASSERT FAILED" in exp[1]:  # (the rest names a file of PyTorch's build)
        words = "INTERNAL ASSERT FAILED"
    if words not in act[1]:
        return f"both raise {exp[0]}, but minigrad's message lacks {words!r}: {act[1]!r}"
    return None


def _err(error: tuple | None) -> str:
    return "runs" if error is None else f"raises {error[0]}({error[1][:160]!r})"


def first_difference(expected: list[Step], actual: list[Step]) -> tuple[int, str] | None:
    """(step index, what differs) at the first step where the runs differ; None if they agree.
    What known.py names is left out."""
    relaxed = Relaxed()
    for k, (exp, act) in enumerate(zip(expected, actual)):
        relaxed.see(exp.line)
        if integer_requiring_grad(exp.tensors):
            return None  # (known.py: PyTorch's run went where minigrad's cannot follow)
        relaxed.see_dtypes(exp.tensors)
        if relaxed.size_one_overlap(exp.error, act.error):
            return None
        if relaxed.immutable_zeros(exp.error) or relaxed.half_registered_hook(exp.line, exp.error):
            return None
        why = step_differs(exp, act, relaxed)
        if why:  # (known.py: a program with an inference tensor that requires grad is compared
            return None if relaxed.inference_grad else (k, why)  # up to its first difference)
    return None


def step_differs(exp: Step, act: Step, relaxed: Relaxed) -> str | None:
    why = error_differs(exp.error, act.error)
    if why and relaxed.unpredictable(exp.error, act.error) is None:
        return why
    hooks_e, hooks_a = tuple(exp.hooks), tuple(act.hooks)
    if len(hooks_e) != len(hooks_a) or not same(hooks_e, hooks_a, relaxed):
        return f"hooks called: torch {show(hooks_e)}, minigrad {show(hooks_a)}"
    for name in sorted(set(exp.tensors) | set(act.tensors), key=lambda n: int(n[1:])):
        why = tensor_differs(exp.tensors.get(name), act.tensors.get(name), name, relaxed)
        if why:
            return f"{name}{why}"
    return None


def tensor_differs(exp: Any, act: Any, name: str, relaxed: Relaxed) -> str | None:
    if not isinstance(exp, dict) or not isinstance(act, dict):
        return None if same(exp, act, relaxed) else f": torch {show(exp)}, minigrad {show(act)}"
    for field in FIELDS:
        if field == "_version" and relaxed.skips_version(name):
            continue
        if not same(exp[field], act[field], relaxed):
            return f".{field}: torch {show(exp[field])}, minigrad {show(act[field])}"
    return None
