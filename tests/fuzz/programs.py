"""Small random autograd programs, written as Python source that PyTorch and minigrad both run.

A program is a list of one-line statements over tensors named t0, t1, ... (and a list `H` of hook
handles): leaves of a few shapes and dtypes, elementwise ops, reductions, matmul, views and
indexing, in-place ops on views and on bases, `no_grad` / `inference_mode` one-liners and grad-mode
switches, `detach`/`detach_`, `requires_grad_`, `.data`, tensor, node and post-accumulate hooks,
`retain_grad`, `autograd.grad` with and without `create_graph`, and repeated backward with and
without `retain_graph`. The generator tracks each tensor's shape and dtype only as far as it
needs to write mostly valid programs; programs that raise are as useful as those that run, since
the error is compared too.

`PRELUDE` defines the hooks the programs register: each logs what it was handed (copied at once)
to `LOG`, and some return a replacement, so the two libraries' hook calls can be compared in order.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

import numpy as np

PRELUDE = """
LOG = []
H = []


def _copy(g):
    return None if g is None else g.detach().clone()


def hook(name, scale=None):
    def fn(grad):
        LOG.append((name, _copy(grad)))
        return None if scale is None or grad is None else grad * scale
    return fn


def prehook(name, scale=None):
    def fn(grads):
        LOG.append((name, tuple(_copy(g) for g in grads)))
        if scale is not None:
            return tuple(None if g is None else g * scale for g in grads)
    return fn


def posthook(name):
    def fn(grad_inputs, grad_outputs):
        seen = tuple(_copy(g) for g in grad_inputs), tuple(_copy(g) for g in grad_outputs)
        LOG.append((name, *seen))
    return fn


def accumulated(name):
    def fn(t):
        LOG.append((name, _copy(t.grad)))
    return fn
"""

VALUES = (0.5, -1.5, 2.0, 0.0, -0.0, 1.0, -0.25, 3.0, -2.0, 1.25)
SPECIAL = ("float('inf')", "float('-inf')", "float('nan')")
SHAPES = ((), (2,), (3,), (2, 3), (1, 3), (3, 1))
FLOATS = ("float32", "float64")


@dataclass
class Var:
    name: str
    shape: tuple[int, ...]
    dtype: str = "float32"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return int(np.prod(self.shape, dtype=int))


@dataclass
class Program:
    """A program being written: its lines and the tensors it has named."""

    rng: random.Random
    lines: list[str] = field(default_factory=list)
    vars: list[Var] = field(default_factory=list)
    hooks: int = 0
    grad_off: bool = False

    def new(self, shape: tuple[int, ...], dtype: str) -> Var:
        var = Var(f"t{len(self.vars)}", tuple(shape), dtype)
        self.vars.append(var)
        return var

    def pick(self, where=lambda v: True) -> Var | None:
        found = [v for v in self.vars if where(v)]
        return self.rng.choice(found) if found else None

    def partner(self, a: Var) -> str:
        """Another operand for `a`: a tensor of a shape that broadcasts with it, or a number."""
        fits = [v for v in self.vars if _broadcasts(v.shape, a.shape)]
        if fits and self.rng.random() < 0.8:
            return self.rng.choice(fits).name
        return repr(self.rng.choice((2.0, 0.5, -1.0, 3)))


def _broadcasts(shape: tuple, into: tuple) -> bool:
    """Whether `shape` broadcasts to exactly `into` (an in-place operand, or a same-shaped one)."""
    try:
        return np.broadcast_shapes(shape, into) == tuple(into)
    except ValueError:
        return False


def literal(rng: random.Random, shape: tuple[int, ...], special: bool) -> str:
    def value() -> str:
        if special and rng.random() < 0.15:
            return rng.choice(SPECIAL)
        return repr(rng.choice(VALUES))

    def nested(dims: tuple[int, ...]) -> str:
        if not dims:
            return value()
        return "[" + ", ".join(nested(dims[1:]) for _ in range(dims[0])) + "]"

    return nested(shape)


# --- what a step can be ---------------------------------------------------------------------
def make_leaf(p: Program) -> str:
    shape, dtype = p.rng.choice(SHAPES), p.rng.choice(FLOATS)
    roll = p.rng.random()
    if roll < 0.08:  # an integer tensor: ops on it must not record, requires_grad is refused
        var = p.new(shape, "int64")
        values = _ints(literal(p.rng, shape, special=False))
        flag = ", requires_grad=True" if p.rng.random() < 0.2 else ""
        return f"{var.name} = torch.tensor({values}, dtype=torch.int64{flag})"
    grad = roll < 0.8
    var = p.new(shape, dtype)
    flag = ", requires_grad=True" if grad else ""
    values = literal(p.rng, shape, special=p.rng.random() < 0.2)
    return f"{var.name} = torch.tensor({values}, dtype=torch.{dtype}{flag})"


def _ints(values: str) -> str:
    """A nested float literal as integers (1.25 -> 1, -0.25 -> 0)."""
    return re.sub(r"-?\d+(?:\.\d*)?|float\('[^']*'\)", lambda m: str(int(float(m[0]))), values)


UNARY = (
    "exp()",
    "sin()",
    "cos()",
    "tanh()",
    "sigmoid()",
    "relu()",
    "abs()",
    "neg()",
    "sqrt()",
    "log()",
    "sign()",
    "pow(2)",
    "pow(3)",
    "clamp(min=0.0)",
    "clamp(-1.0, 1.0)",
    "clone()",
    "softmax(-1)",
    "log_softmax(-1)",
)
BINARY = ("+", "-", "*", "/")
BINARY_FN = ("torch.maximum", "torch.minimum")


def unary(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    op = p.rng.choice(UNARY)
    if op.startswith(("softmax", "log_softmax")) and a.ndim == 0:
        op = "exp()"
    var = p.new(a.shape, a.dtype)
    return f"{var.name} = {a.name}.{op}"


def binary(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    b = p.partner(a)
    other = next((v for v in p.vars if v.name == b), None)
    shape = np.broadcast_shapes(a.shape, other.shape) if other else a.shape
    dtype = "float64" if other and "float64" in (a.dtype, other.dtype) else a.dtype
    var = p.new(tuple(shape), dtype)
    if p.rng.random() < 0.25 and other is not None:
        return f"{var.name} = {p.rng.choice(BINARY_FN)}({a.name}, {b})"
    if p.rng.random() < 0.15 and other is not None:
        return f"{var.name} = torch.where({a.name} > 0, {a.name}, {b})"
    return f"{var.name} = {a.name} {p.rng.choice(BINARY)} {b}"


def reduction(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    choices = [("sum()", ()), ("mean()", ()), ("max()", ()), ("norm()", ())]
    if a.ndim >= 1:
        choices += [("sum(0)", a.shape[1:]), ("mean(-1)", a.shape[:-1])]
        choices += [("sum(0, keepdim=True)", (1,) + a.shape[1:])]
    expr, shape = p.rng.choice(choices)
    var = p.new(shape, a.dtype)
    return f"{var.name} = {a.name}.{expr}"


def matmul(p: Program) -> str | None:
    a = p.pick(lambda v: v.ndim in (1, 2))
    if a is None:
        return None
    b = p.pick(lambda v: v.ndim in (1, 2) and v.shape[0] == a.shape[-1] and v.dtype == a.dtype)
    if b is None:
        return None
    shape = a.shape[:-1] + b.shape[1:]
    var = p.new(shape, a.dtype)
    return f"{var.name} = {a.name} @ {b.name}"


def views(a: Var) -> list[tuple[str, tuple]]:
    """(expression, shape) of every view the generator knows how to take of `a`."""
    s = a.shape
    found = [(f"{a.name}.view(-1)", (a.numel,)), (f"{a.name}.detach()", s)]
    found += [(f"{a.name}.reshape(-1)", (a.numel,)), (f"{a.name}.unsqueeze(0)", (1,) + s)]
    found += [(f"{a.name}.flatten()", (a.numel,) if s else (1,))]
    found += [(f"{a.name}.squeeze()", tuple(n for n in s if n != 1))]
    if a.ndim <= 2:
        found += [(f"{a.name}.t()", s[::-1]), (f"{a.name}.expand(2, *{a.name}.shape)", (2,) + s)]
    if a.ndim >= 1:
        n = s[0]
        found += [(f"{a.name}[0]", s[1:]), (f"{a.name}[1:]", (n - 1,) + s[1:])]
        found += [(f"{a.name}.select(0, -1)", s[1:]), (f"{a.name}.unbind()[0]", s[1:])]
        found += [(f"{a.name}.split(1)[-1]", (1,) + s[1:])]
        first = -(-n // 2)
        found += [(f"{a.name}.chunk(2)[0]", (first,) + s[1:])]
        found += [(f"{a.name}.expand_as({a.name})", s)]
    if a.ndim == 2:
        found += [(f"{a.name}[:, 0]", (s[0],)), (f"{a.name}.T", s[::-1])]
        found += [(f"{a.name}.transpose(0, 1)", s[::-1]), (f"{a.name}.permute(1, 0)", s[::-1])]
    return found


def pieces(p: Program) -> str | None:
    """`tK, tL = t.unbind()` (or chunk/split): a multi-output node, some of whose outputs the
    program may never use (hooks on them, pre-hooks on the node, see what PyTorch passes)."""
    a = p.pick(lambda v: v.ndim >= 1 and v.shape[0] in (2, 3))
    if a is None:
        return None
    n, rest = a.shape[0], a.shape[1:]
    op = p.rng.choice(("unbind()", "split(1)", f"chunk({n})"))
    shape = rest if op == "unbind()" else (1,) + rest
    names = [p.new(shape, a.dtype).name for _ in range(n)]
    return f"{', '.join(names)} = {a.name}.{op}"


def view(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    expr, shape = p.rng.choice(views(a))
    var = p.new(shape, a.dtype)
    return f"{var.name} = {expr}"


INPLACE_UNARY = ("relu_()", "exp_()", "sigmoid_()", "tanh_()", "neg_()", "sqrt_()", "zero_()")
INPLACE_UNARY += ("fill_(1.5)", "clamp_(min=0.0)", "mul_(2.0)", "div_(2.0)", "pow_(2)")


def inplace(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    roll = p.rng.random()
    if roll < 0.35:
        return f"{a.name}.{p.rng.choice(INPLACE_UNARY)}"
    if roll < 0.65:
        b = p.partner(a)
        op = p.rng.choice(("add_", "sub_", "mul_", "copy_"))
        if op == "copy_" and not b.startswith("t"):
            return f"{a.name}.copy_({b})"
        return f"{a.name}.{op}({b})"
    if roll < 0.72 and a.ndim >= 1:  # index_put_: a mask or an index, values that may alias
        key = p.rng.choice((f"{a.name} > 0", "torch.tensor([0, 0])", "torch.tensor([-1])"))
        value = p.rng.choice(("1.5", f"{a.name}[0]", f"{a.name}[-1:]", p.partner(a)))
        return f"{a.name}[{key}] = {value}"
    if roll < 0.8 and a.ndim >= 1:
        return f"{a.name}[0] = {p.rng.choice(('1.5', '-0.0', a.name + '[-1]'))}"
    if roll < 0.9:
        return f"{a.name} += {p.partner(a)}"
    if a.ndim == 2 or roll < 0.95:
        op = "t_()" if a.ndim <= 2 else "squeeze_()"
        if op == "t_()":
            a.shape = a.shape[::-1]
        return f"{a.name}.{op}"
    a.shape = (1,) + a.shape
    return f"{a.name}.unsqueeze_(0)"


def autograd_state(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    choices = [
        f"{a.name}.detach_()",
        f"{a.name}.requires_grad_()",
        f"{a.name}.requires_grad_(False)",
        f"{a.name}.retain_grad()",
        f"{a.name}.grad = None",
        f"{a.name}.grad = torch.ones_like({a.name})",
        f"{a.name}.grad = {a.name}",
        f"{a.name}.data = {a.name}.detach() * 2",
    ]
    roll = p.rng.random()
    if roll < 0.3:
        var = p.new(a.shape, a.dtype)
        return f"{var.name} = {a.name}.data"
    if roll < 0.45:  # dtypes meeting gradients: integer results, mixed fills, bool exponents
        other = p.partner(a)
        expr = p.rng.choice(
            (
                f"{a.name}.long()",
                f"{a.name}.long().float()",
                f"{a.name}.masked_fill({a.name} > 0, {other})",
                f"{a.name}.pow(True)",
                f"{a.name}.long() * {other}",
            )
        )
        var = p.new(a.shape, a.dtype)
        return f"{var.name} = {expr}"
    return p.rng.choice(choices)


def hook_step(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    k = p.hooks
    p.hooks += 1
    scale = p.rng.choice(("", ", 2.0"))
    roll = p.rng.random()
    if roll < 0.4:
        return f"H.append({a.name}.register_hook(hook('h{k}'{scale})))"
    if roll < 0.55:
        return f"H.append({a.name}.grad_fn.register_prehook(prehook('p{k}'{scale})))"
    if roll < 0.7:
        return f"H.append({a.name}.grad_fn.register_hook(posthook('q{k}')))"
    if roll < 0.85:
        return f"H.append({a.name}.register_post_accumulate_grad_hook(accumulated('r{k}')))"
    if k:
        return f"H[{p.rng.randrange(k)}].remove()"
    return None


def backward(p: Program) -> str | None:
    a = p.pick()
    if a is None:
        return None
    retain = p.rng.choice(("", ", retain_graph=True"))
    roll = p.rng.random()
    if roll < 0.45:
        root = a.name if a.ndim == 0 and p.rng.random() < 0.5 else f"{a.name}.sum()"
        return f"{root}.backward({retain.lstrip(', ')})"
    if roll < 0.6:
        return f"{a.name}.backward(torch.ones_like({a.name}){retain})"
    wrt = p.pick(lambda v: v is not a) or a
    if roll < 0.7:
        return f"torch.autograd.backward([{a.name}.sum()], inputs=[{wrt.name}]{retain})"
    create = p.rng.choice(("", ", create_graph=True"))
    extra = ", materialize_grads=True" if p.rng.random() < 0.15 else ", allow_unused=True"
    var = p.new(wrt.shape, wrt.dtype)
    return f"{var.name}, = torch.autograd.grad({a.name}.sum(), [{wrt.name}]{retain}{create}{extra})"


def grad_mode(p: Program) -> str:
    p.grad_off = not p.grad_off
    return f"torch.set_grad_enabled({not p.grad_off})"


STEPS = (
    (make_leaf, 1),
    (unary, 3),
    (binary, 3),
    (reduction, 2),
    (matmul, 1),
    (view, 4),
    (pieces, 1),
    (inplace, 4),
    (autograd_state, 2),
    (hook_step, 2),
    (backward, 3),
)


def guarded(p: Program, line: str) -> str:
    """Now and then a step runs inside a grad-mode block, as a one-line `with`."""
    roll = p.rng.random()
    if roll < 0.12:
        return f"with torch.no_grad(): {line}"
    if roll < 0.15:
        return f"with torch.enable_grad(): {line}"
    if roll < 0.17:
        return f"with torch.inference_mode(): {line}"
    return line


def generate(seed: int, max_steps: int = 25) -> list[str]:
    """The program of `seed`: one to three leaves, then up to `max_steps` steps."""
    rng = random.Random(seed)
    p = Program(rng)
    for _ in range(rng.randint(1, 3)):
        p.lines.append(make_leaf(p))
    makers, weights = zip(*STEPS)
    for _ in range(rng.randint(2, max_steps)):
        if rng.random() < 0.04:
            p.lines.append(grad_mode(p))
            continue
        line = rng.choices(makers, weights)[0](p)
        if line is not None:
            p.lines.append(guarded(p, line) if not line.startswith("H[") else line)
    return p.lines
