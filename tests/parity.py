"""Run one autograd snippet against PyTorch and against minigrad, and compare what each did.

A snippet is ``def snippet(torch, out): ...``. It receives a library module (real ``torch`` or
``minigrad``) and a recorder ``out``:

* ``out(label, value)`` records a value: a tensor of either library, a dtype, a bool, number,
  string, None, or a tuple/list of these;
* ``with out.raises(label): ...`` records the exception raised inside the block (or that none was)
  and lets the snippet go on, e.g. to check that ``_version`` did not move after a failed op;
* ``with out.warns(label): ...`` records every warning issued inside the block.

An exception escaping the snippet ends it and becomes a final ``("raises", ...)`` observation.
Values are normalized to plain data so that the two libraries can be compared; PyTorch's outcome
is always the expectation. Set ``PARITY_SELF_CHECK=1`` to compare torch with itself: that proves
the snippets (and the facts they assert) are right before minigrad exists.
"""

from __future__ import annotations

import importlib
import math
import os
import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch")

RTOL = 1e-5
ATOL = 1e-6
LIBS = ("torch", "minigrad")

Observation = tuple[str, Any]
Snippet = Callable[[ModuleType, "Recorder"], None]


def self_check() -> bool:
    """True when minigrad is replaced by torch itself (validates the snippets, not minigrad)."""
    return os.environ.get("PARITY_SELF_CHECK", "") not in ("", "0")


def load_lib(name: str) -> ModuleType:
    """Import ``torch`` or ``minigrad`` lazily, so a missing minigrad fails only its own tests."""
    if name == "minigrad" and self_check():
        name = "torch"
    return importlib.import_module(name)


def dtype_name(dtype: Any) -> str:
    """'float32' for torch.float32, minigrad.float32, numpy float32 (type or dtype) alike."""
    if isinstance(dtype, type) and issubclass(dtype, np.generic):
        return np.dtype(dtype).name
    if isinstance(dtype, np.dtype):
        return dtype.name
    return str(dtype).rsplit(".", 1)[-1]


def _is_dtype(value: Any) -> bool:
    if isinstance(value, np.dtype):
        return True
    if isinstance(value, type):
        return issubclass(value, np.generic)
    return type(value).__name__.lower().endswith("dtype")


def _is_tensor(value: Any) -> bool:
    return all(hasattr(value, name) for name in ("shape", "dtype", "tolist"))


def normalize(value: Any) -> Any:
    """Turn a recorded value into plain, library-independent data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if _is_dtype(value):
        return ("dtype", dtype_name(value))
    if _is_tensor(value):
        detach = getattr(value, "detach", None)
        plain = detach() if callable(detach) else value
        return (
            "tensor",
            dtype_name(value.dtype),
            tuple(int(n) for n in value.shape),
            plain.tolist(),
        )
    if isinstance(value, list):
        return [normalize(v) for v in value]
    if isinstance(value, tuple):
        return tuple(normalize(v) for v in value)
    raise TypeError(
        f"cannot record a {type(value).__name__}: record a name, a bool or a tensor instead"
    )


def _raised(exc: BaseException) -> tuple[str, str, str]:
    return ("raises", type(exc).__name__, str(exc))


class Recorder:
    """The ``out`` a snippet writes to; keeps ``(label, normalized value)`` pairs in order."""

    def __init__(self) -> None:
        self.observations: list[Observation] = []

    def __call__(self, label: str, value: Any) -> None:
        self.observations.append((label, normalize(value)))

    @contextmanager
    def raises(self, label: str) -> Iterator[None]:
        """Record the exception of the block (or ``("no exception",)``) and continue."""
        try:
            yield
        except Exception as exc:  # recording is the point
            self.observations.append((label, _raised(exc)))
        else:
            self.observations.append((label, ("no exception",)))

    @contextmanager
    def warns(self, label: str) -> Iterator[None]:
        """Record ``(category name, message)`` of every warning issued inside the block."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        seen = tuple((w.category.__name__, str(w.message)) for w in caught)
        self.observations.append((label, ("warns", seen)))


def run_snippet(fn: Snippet, lib: ModuleType) -> list[Observation]:
    """Run ``fn(lib, out)``; an escaping exception becomes a last ``("raises", ...)`` pair."""
    out = Recorder()
    try:
        fn(lib, out)
    except Exception as exc:  # an error is an outcome to compare
        out.observations.append(("raises", _raised(exc)))
    return out.observations


def key_phrase(message: str) -> str:
    """First sentence of a message: up to the first '. ' (or final '.') or the first newline.

    A period inside a word (".grad", "Tensor.backward") does not end the sentence.
    """
    lines = message.strip().splitlines()
    first = lines[0] if lines else ""
    end = re.search(r"\.(\s|$)", first)
    return first[: end.start()] if end else first


def message_matches(expected: str, actual: str, key: str | None = None) -> bool:
    """minigrad's message must contain ``key``, or else the first sentence of torch's."""
    return (key if key is not None else key_phrase(expected)) in actual


def _match(exp: Any, act: Any, where: str, key: str | None, warn_key: str | None) -> str | None:
    """Return why ``act`` differs from ``exp`` (torch's), or None when they agree."""
    if isinstance(exp, tuple) and exp and exp[0] in ("tensor", "raises", "warns", "dtype"):
        if not (isinstance(act, tuple) and act and act[0] == exp[0]):
            return f"{where}: expected {exp!r}, got {act!r}"
        kind = exp[0]
        if kind == "tensor":
            return _match_tensor(exp, act, where)
        if kind == "raises":
            if exp[1] != act[1]:
                return f"{where}: expected {exp[1]}({exp[2]!r}), got {act[1]}({act[2]!r})"
            if key is not None and key not in exp[2]:
                return f"{where}: key {key!r} is not in torch's message {exp[2]!r}"
            if not message_matches(exp[2], act[2], key):
                wanted = key if key is not None else key_phrase(exp[2])
                return f"{where}: message {act[2]!r} lacks {wanted!r}"
            return None
        if kind == "warns":
            return _match_warnings(exp[1], act[1], where, warn_key)
        return None if exp == act else f"{where}: expected {exp!r}, got {act!r}"
    if isinstance(exp, (list, tuple)):
        if type(exp) is not type(act) or len(exp) != len(act):
            return f"{where}: expected {exp!r}, got {act!r}"
        for i, (e, a) in enumerate(zip(exp, act, strict=True)):
            why = _match(e, a, f"{where}[{i}]", key, warn_key)
            if why:
                return why
        return None
    if isinstance(exp, float) and isinstance(act, float):
        if math.isclose(exp, act, rel_tol=RTOL, abs_tol=ATOL) or (
            math.isnan(exp) and math.isnan(act)
        ):
            return None
        return f"{where}: expected {exp!r}, got {act!r}"
    if type(exp) is not type(act) or exp != act:
        return (
            f"{where}: expected {exp!r} ({type(exp).__name__}), got {act!r} ({type(act).__name__})"
        )
    return None


def _rounding_floor(dtype: str, values: np.ndarray) -> float:
    """How far from exact a float32 sum may land when its terms cancel: a few float32 epsilons
    of the largest value. BLAS builds sum in different orders (PyTorch's MKL on AVX-512 gives
    -1.2e-6 where the exact answer, and numpy's, is 0 in test_module_hooks)."""
    finite = np.abs(values[np.isfinite(values)]) if values.size else values
    if "float32" not in dtype or finite.size == 0:
        return 0.0
    return 8 * float(np.finfo(np.float32).eps) * float(finite.max())


def _match_tensor(exp: tuple, act: tuple, where: str) -> str | None:
    _, e_dtype, e_shape, e_vals = exp
    _, a_dtype, a_shape, a_vals = act
    if e_dtype != a_dtype:
        return f"{where}: dtype {a_dtype}, expected {e_dtype}"
    if e_shape != a_shape:
        return f"{where}: shape {a_shape}, expected {e_shape}"
    e_arr, a_arr = np.asarray(e_vals), np.asarray(a_vals)
    if e_arr.dtype == bool or a_arr.dtype == bool:
        same = np.array_equal(e_arr, a_arr)
    else:
        same = np.allclose(
            a_arr.astype(float),
            e_arr.astype(float),
            rtol=RTOL,
            atol=max(ATOL, _rounding_floor(e_dtype, e_arr)),
            equal_nan=True,
        )
    return None if same else f"{where}: values {a_vals!r}, expected {e_vals!r}"


def _match_warnings(exp: tuple, act: tuple, where: str, warn_key: str | None) -> str | None:
    if len(exp) != len(act):
        return f"{where}: {len(act)} warnings {act!r}, expected {len(exp)}: {exp!r}"
    for (e_cat, e_msg), (a_cat, a_msg) in zip(exp, act, strict=True):
        if e_cat != a_cat:
            return f"{where}: warning {a_cat}({a_msg!r}), expected {e_cat}({e_msg!r})"
        if warn_key is not None and warn_key not in e_msg:
            return f"{where}: warn_key {warn_key!r} is not in torch's warning {e_msg!r}"
        if not message_matches(e_msg, a_msg, warn_key):
            wanted = warn_key if warn_key is not None else key_phrase(e_msg)
            return f"{where}: warning {a_msg!r} lacks {wanted!r}"
    return None


def compare(
    expected: list[Observation],
    actual: list[Observation],
    *,
    key: str | None = None,
    warn_key: str | None = None,
) -> list[str]:
    """All differences between torch's observations and minigrad's; empty when they agree."""
    e_labels = [label for label, _ in expected]
    a_labels = [label for label, _ in actual]
    if e_labels != a_labels:
        return [f"labels differ: expected {e_labels}, got {a_labels}; last: {actual[-1:]!r}"]
    problems = []
    for (label, exp), (_, act) in zip(expected, actual, strict=True):
        why = _match(exp, act, label, key, warn_key)
        if why:
            problems.append(why)
    return problems


def assert_same(fn: Snippet, *, key: str | None = None, warn_key: str | None = None) -> None:
    """Run ``fn`` with torch and minigrad; fail with every difference, torch being right.

    ``key`` / ``warn_key`` replace torch's first sentence as the phrase that minigrad's
    exception / warning messages must contain.
    """
    expected = run_snippet(fn, load_lib("torch"))
    actual = run_snippet(fn, load_lib("minigrad"))
    problems = compare(expected, actual, key=key, warn_key=warn_key)
    assert not problems, "minigrad differs from torch:\n  " + "\n  ".join(problems)
