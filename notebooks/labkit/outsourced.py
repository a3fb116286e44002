"""Did something else differentiate for the learner's custom Function? What a check watches while
the learner's own `backward` runs (lessons 10, 11, 17): a custom Function is where the derivative
is written by hand, so each way of handing that job to a machine gets its own finding.

- `passes`: a backward pass of minigrad's engine began inside it (autograd.grad, .backward(),
  autograd.functional, func.grad...);
- `graph`: it switched grad mode back on and recorded built-in ops (to differentiate them);
- `dual`: it entered a dual level (forward-mode AD: make_dual / unpack_dual, func.jvp, jacfwd);
- `torch`: it called PyTorch's autograd (torch.autograd.grad, Tensor.backward, forward_ad,
  torch.func);
- `nodes`: it ran a built-in op's backward node by hand (a grad_fn kept from a recorded graph);
- `complex`: it computed with complex numbers (the complex-step derivative Im f(x + ih) / h, a
  numerical method exact to rounding, which a tolerance cannot tell from a formula);
- `library`: it called a library that differentiates (sympy, jax, HIPS autograd, numdifftools,
  mpmath, scipy's derivative).

`kept_nodes(ctx)` names the ctx attributes that hold graph nodes (minigrad's or torch's), the
way a forward keeps a recorded graph for its backward to call.

A backward written by hand (minigrad ops, or numpy, on what forward saved) shows none of these;
under create_graph (gradgradcheck) its ops are recorded by the engine's own choice, which is not
a finding.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.core import forward_grad
from minigrad.core.node import Node
from minigrad.core.observe import LISTENERS
from minigrad.core.tensor import Tensor

from .calls import calls_where
from .language import say

_MG = str(Path(mg.__file__).resolve().parent) + "/"
_NODE_RUNS = {"Node.__call__", "Node.apply", "Node.apply_arrays", "AccumulateGrad.backward"}

# (a part of the file's path, how a learner would name it); torch's parts by function below
_LIBRARIES = (
    ("/sympy/", "sympy"),
    ("/jax/", "jax"),
    ("/jaxlib/", "jax"),
    ("site-packages/autograd/", "autograd (HIPS)"),
    ("/numdifftools/", "numdifftools"),
    ("/findiff/", "findiff"),
    ("/mpmath/calculus/", "mpmath.diff"),
    ("/scipy/differentiate/", "scipy.differentiate"),
    ("/scipy/misc/", "scipy.misc.derivative"),
)


@dataclass
class Findings:
    """What the learner's backward did that handed the differentiating to something else."""

    passes: int = 0
    graph: int = 0
    dual: int = 0
    torch: list[str] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    complex: list[str] = field(default_factory=list)
    library: list[str] = field(default_factory=list)

    def merge(self, other: Findings) -> None:
        self.passes += other.passes
        self.graph += other.graph
        self.dual += other.dual
        for name in ("torch", "nodes", "complex", "library"):
            mine = getattr(self, name)
            mine.extend(n for n in getattr(other, name) if n not in mine)

    def first(self) -> str | None:
        """The finding to report (the most specific first), or None: nothing else differentiated."""
        for name in ("torch", "library", "dual", "complex", "passes", "nodes", "graph"):
            if getattr(self, name):
                return name
        return None


def _torch_name(code: CodeType) -> str | None:
    file = code.co_filename.replace("\\", "/")
    if "/torch/" not in file:
        return None
    name = code.co_qualname
    if file.endswith("torch/autograd/__init__.py") and name in {"grad", "backward"}:
        return ".".join(("torch", "autograd", name))
    if file.endswith("torch/_tensor.py") and name == "Tensor.backward":
        return "Tensor.backward"
    if file.endswith("torch/autograd/forward_ad.py") and not name.startswith("_"):
        return ".".join(("torch", "autograd", "forward_ad", name.split(".")[0]))
    if file.endswith("torch/autograd/functional.py") and not name.startswith("_"):
        return ".".join(("torch", "autograd", "functional", name))
    if "/torch/_functorch/" in file and name in {
        "grad",
        "grad_and_value",
        "vjp",
        "jvp",
        "jacrev",
        "jacfwd",
        "hessian",
        "linearize",
    }:
        return ".".join(("torch", "func", name))
    return None


def _name_of(code: CodeType) -> str | None:
    """The watched functions: torch's autograd, other differentiating libraries, and minigrad's
    built-in backward nodes (an op's `...Backward.backward`, or a node's `__call__`/`apply`)."""
    file = code.co_filename
    if file.startswith(_MG):
        name = code.co_qualname
        if file.startswith(_MG + "core/node.py") and name in _NODE_RUNS:
            return "|".join(("node", name))
        if file.startswith(_MG + "ops/") and "Backward" in name and name.endswith(".backward"):
            return "|".join(("node", name.removesuffix(".backward")))
        return None
    torch_name = _torch_name(code)
    if torch_name is not None:
        return "|".join(("torch", torch_name))
    unix = file.replace("\\", "/")
    for part, library in _LIBRARIES:
        if part in unix:
            return "|".join(("library", library))
    return None


def _is_complex(value: Any) -> bool:
    """A complex number, array, dtype or tensor (by type alone: no attribute of an unknown
    object is touched, so lazy modules and proxies stay quiet)."""
    kind = type(value)
    if issubclass(kind, complex | np.complexfloating):
        return True
    if issubclass(kind, np.ndarray):
        return value.dtype.kind == "c"
    if issubclass(kind, type):
        return issubclass(value, complex | np.complexfloating)
    if issubclass(kind, np.dtype):
        return value.kind == "c"
    tensor = getattr(sys.modules.get("torch"), "Tensor", None)  # (torch may be half-imported)
    if isinstance(tensor, type) and issubclass(kind, tensor):
        return value.is_complex()
    if issubclass(kind, list | tuple) and 0 < len(value) <= 64:
        return any(issubclass(type(v), complex) for v in value)
    return False


def _library_frame(frame: FrameType) -> bool:
    file = frame.f_code.co_filename
    return file.startswith((_MG, "<frozen")) or "site-packages" in file or "/lib/python3" in file


@contextmanager
def _complex_values(found: list[str]) -> Iterator[None]:
    """Note complex values the learner's code holds (locals at each line, what its functions
    return) or hands to any function (arguments): numpy's C loops have no hook, but the complex
    step must create a complex number somewhere the learner's Python can be seen."""

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "return" and _is_complex(arg):
            found.append(frame.f_code.co_name)
        elif event == "line":
            if any(_is_complex(v) for v in frame.f_locals.values()):
                found.append(frame.f_code.co_name)
        return local

    def call(frame: FrameType, event: str, arg: Any) -> Any:
        if event != "call":
            return None
        code = frame.f_code
        names = code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]
        values = frame.f_locals
        if any(_is_complex(values.get(n)) for n in names):
            found.append(code.co_name)
        return None if _library_frame(frame) else local

    previous = sys.gettrace()
    sys.settrace(call)
    try:
        yield
    finally:
        sys.settrace(previous)


class _Noting(np.ndarray):
    """What `Tensor.numpy()` hands the learner's backward while it is watched: the tensor's own
    storage, but every ufunc it (or what came of it) goes through, and every copy made of it
    (`astype`), is seen, so that a complex number mixed into it shows even inside one
    expression (`np.tanh(x.numpy() + 1e-30j).imag`), where no Python frame holds it."""

    found: list[list[str]] = []  # the sinks of the watches in force, innermost last

    def __array_finalize__(self, obj: Any) -> None:
        if self.dtype.kind == "c" and _Noting.found:
            _Noting.found[-1].append("numpy")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        def plain(a: Any) -> Any:
            return a.view(np.ndarray) if isinstance(a, _Noting) else a

        inputs = tuple(plain(a) for a in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(plain(a) for a in kwargs["out"])
        if _Noting.found and any(_is_complex(a) for a in inputs):
            _Noting.found[-1].append(ufunc.__name__)
        result = getattr(ufunc, method)(*inputs, **kwargs)
        if isinstance(result, tuple):
            return tuple(r.view(_Noting) if type(r) is np.ndarray else r for r in result)
        return result.view(_Noting) if type(result) is np.ndarray else result


@contextmanager
def _noting_numpy(found: list[str]) -> Iterator[None]:
    real = Tensor.numpy

    def numpy(self: Tensor, force: bool = False) -> np.ndarray:
        data = real(self, force)
        return data.view(_Noting) if type(data) is np.ndarray else data

    _Noting.found.append(found)
    Tensor.numpy = numpy
    try:
        yield
    finally:
        Tensor.numpy = real
        _Noting.found.pop()


@contextmanager
def watching() -> Iterator[Findings]:
    """`with watching() as seen:` around a call of the learner's backward (the engine's own
    pass must be outside the block): what it handed to something else, in `seen`."""
    seen = Findings()
    grad_was_on = mg.is_grad_enabled()
    generation = forward_grad.Levels.generation

    def listen(record: Any) -> None:
        if record["kind"] == "backward_start":
            seen.passes += 1
        elif record["kind"] == "node_created" and not grad_was_on:
            seen.graph += 1

    LISTENERS.append(listen)
    try:
        with (
            _noting_numpy(seen.complex),
            _complex_values(seen.complex),
            calls_where(_name_of) as called,
        ):
            yield seen
    finally:
        LISTENERS.remove(listen)
        seen.dual += forward_grad.Levels.generation - generation
        for name in called:
            kind, _, what = name.partition("|")
            if kind in {"torch", "node", "library"}:
                target = seen.nodes if kind == "node" else getattr(seen, kind)
                if what not in target:
                    target.append(what)
            elif what == "" and name not in seen.library:  # the learner switched the watcher off
                seen.library.append(name)


@contextmanager
def watched(*classes: type) -> Iterator[Findings]:
    """While the block runs, each class's `backward` runs under `watching()`; all it did is
    gathered in the one Findings."""
    seen = Findings()
    with ExitStack() as stack:
        for cls in dict.fromkeys(classes):
            owner = next((c for c in cls.__mro__ if "backward" in c.__dict__), None)
            real = owner.__dict__["backward"] if owner is not None else None
            if not isinstance(real, staticmethod) or owner is mg.autograd.Function:
                continue

            def backward(ctx: Any, *grads: Any, _real: Any = real.__func__) -> Any:
                inner = None
                try:
                    with watching() as inner:
                        return _real(ctx, *grads)
                finally:
                    if inner is not None:
                        seen.merge(inner)

            cls.backward = staticmethod(backward)
            if owner is cls:
                stack.callback(setattr, cls, "backward", real)
            else:  # inherited: the class gets its own for the block, then inherits again
                stack.callback(delattr, cls, "backward")
        yield seen


def _holds_node(value: Any, depth: int = 0) -> bool:
    graph = getattr(getattr(sys.modules.get("torch"), "autograd", None), "graph", None)
    torch_node = getattr(graph, "Node", None)
    if isinstance(value, Node) or (torch_node is not None and isinstance(value, torch_node)):
        return True
    if depth >= 2:
        return False
    if isinstance(value, list | tuple | set | frozenset):
        return any(_holds_node(v, depth + 1) for v in list(value)[:64])
    if isinstance(value, dict):
        return any(_holds_node(v, depth + 1) for v in list(value.values())[:64])
    cells = getattr(value, "__closure__", None) or ()
    bound = getattr(value, "__self__", None)
    return any(_holds_node(c.cell_contents, depth + 1) for c in cells if _filled(c)) or (
        bound is not None and bound is not value and _holds_node(bound, depth + 1)
    )


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def kept_nodes(ctx: Any, own: set[str]) -> list[str]:
    """The ctx attributes (other than `own`, the library's) that hold graph nodes: a grad_fn of
    minigrad or torch, directly, in a container, or in a function's closure."""
    return sorted(k for k, v in vars(ctx).items() if k not in own and _holds_node(v))


# --- the words ----------------------------------------------------------------------------------


def kept_message(names: list[str]) -> str:
    attributes = [".".join(("ctx", n)) for n in names]
    shown, shown_zh = ", ".join(attributes), "、".join(attributes)
    return say(
        f"your forward keeps graph nodes on ctx ({shown}): a grad_fn of a graph it recorded of "
        "built-in ops, for backward to call. Then those nodes' backward formulas, not yours, "
        "compute the derivative. Keep only what the formula needs (save_for_backward for "
        "tensors, plain numbers as attributes) and write the derivative in backward.",
        f"你的 forward 把计算图的节点留在了 ctx 上（{shown_zh}）：那是它用内置运算记录下来的"
        "一张图的 grad_fn，留给 backward 去调用。这样算导数的是那些节点的反向公式，而不是你写的。"
        "只留下公式需要的东西（张量用 save_for_backward，普通的数作为属性），在 backward 里亲手"
        "写出导数。",
    )


def message(seen: Findings, formula: str) -> str | None:
    """The words for the first finding (None: nothing else differentiated). `formula` is the
    derivative the learner should write instead, in the learner's language."""
    kind = seen.first()
    if kind is None:
        return None
    end = say(
        f" A custom Function is where you write the derivative yourself: {formula}, from what "
        "forward saved, times grad_out.",
        f"自定义 Function 的意义就在于亲手写出导数：{formula}，用 forward 保存下来的东西算，"
        "再乘以 grad_out。",
    )
    if kind == "torch":
        names = ", ".join(seen.torch)
        return (
            say(
                f"your backward hands the derivative to PyTorch's autograd ({names}): torch "
                "differentiates, your backward only copies its answer.",
                f"你的 backward 把求导交给了 PyTorch 的 autograd（{names}）：求导的是 torch，"
                "你的 backward 只是把它的答案抄了过来。",
            )
            + end
        )
    if kind == "library":
        names = ", ".join(seen.library)
        return (
            say(
                f"your backward calls {names} to differentiate (or switches the check's watcher "
                "off): that library, not your backward, finds the derivative.",
                f"你的 backward 调用了 {names} 来求导（或者关掉了检查的观察器）：找出导数的是"
                "那个库，而不是你的 backward。",
            )
            + end
        )
    if kind == "dual":
        return (
            say(
                "your backward opens a dual level (forward-mode AD: forward_ad.dual_level with "
                "make_dual / unpack_dual, or func.jvp / jacfwd): the tangent that comes out is "
                "the derivative forward mode computed through the built-in ops, not one you "
                "wrote.",
                "你的 backward 打开了一个对偶层（前向模式自动微分：forward_ad.dual_level 配合 "
                "make_dual / unpack_dual，或者 func.jvp / jacfwd）：得到的切向量是前向模式穿过"
                "内置运算算出来的导数，而不是你写的。",
            )
            + end
        )
    if kind == "complex":
        return (
            say(
                "your backward computes with complex numbers: that is the complex-step "
                "derivative, Im f(x + ih) / h, a numerical method (exact to rounding, so no "
                "tolerance tells it from a formula, but it is the function evaluated off the "
                "real line, not its derivative written down).",
                "你的 backward 用复数做计算：这是复步长求导 Im f(x + ih) / h，一种数值方法"
                "（精确到舍入误差，所以靠容差分不出它和公式，但它是在实轴之外对函数求值，"
                "而不是写出导数本身）。",
            )
            + end
        )
    if kind == "nodes":
        names = ", ".join([n for n in seen.nodes if not n.startswith("Node.")] or seen.nodes)
        return (
            say(
                f"your backward calls a built-in op's backward node by hand ({names}), from a "
                "graph recorded of the built-in ops: their formulas, not yours, compute the "
                "derivative.",
                f"你的 backward 亲手调用了内置运算的反向节点（{names}），它们来自用内置运算记录下来"
                "的一张图：算出导数的是它们的公式，而不是你的。",
            )
            + end
        )
    if kind == "passes":
        return (
            say(
                "your backward runs a backward pass of its own (autograd.grad, .backward(), "
                "autograd.functional or func.grad on the built-in ops): minigrad's engine, not "
                "your backward, computes the derivative.",
                "你的 backward 里又跑了一次反向传播（对内置运算调用 autograd.grad、.backward()、"
                "autograd.functional 或 func.grad）：算出导数的是 minigrad 的引擎，而不是你的 "
                "backward。",
            )
            + end
        )
    return (
        say(
            "your backward switches grad mode back on (enable_grad) and records a graph of "
            "built-in ops: recorded so that their own backward formulas can differentiate for "
            "you.",
            "你的 backward 重新打开了梯度模式（enable_grad），用内置运算记录了一张计算图："
            "记下它，是为了让那些运算自己的反向公式替你求导。",
        )
        + end
    )
