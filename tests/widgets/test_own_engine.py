"""The explorer on a learner's own engine (widgets/own_engine.py): drawn, replayed, put back.

Random small graphs of add/mul/matmul/tanh/sum with reused objects, on a scalar micrograd-shaped
engine and a numpy one (tests/widgets/own_engines.py): the replay's `.grad` steps end at the
engine's own final gradients, which agree with PyTorch's; `order()` is the order the engine
called `_backward`; every `_backward` is the learner's again afterwards, also after an error.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from own_engines import Arr, Val, topological

import widgets
from widgets import draw_own, record_own_backward
from widgets.labels import summarize

CJK = re.compile(r"[\u4e00-\u9fff]")
ENGLISH = re.compile(r"\b[A-Za-z][a-z]+(?:[ -][a-z]+){2,}\b")  # three English words in a row
EVIL = "<b>&x"
OPS = ("+", "*", "tanh", "@")
BINARY = {"+": lambda a, b: a + b, "*": lambda a, b: a * b, "@": lambda a, b: a @ b}


def program(seed: int, scalar: bool) -> tuple[list[np.ndarray], list[tuple[str, int, int]]]:
    """Leaf values and steps `(op, i, j)` on earlier results: objects used more than once."""
    rng = np.random.default_rng(seed)
    n_leaves = int(rng.integers(2, 4))
    shape = () if scalar else (2, 2)
    leaves = [rng.normal(size=shape).round(2) for _ in range(n_leaves)]
    ops = OPS[:3] if scalar else OPS
    steps = []
    for k in range(int(rng.integers(3, 9))):
        size = n_leaves + k
        steps.append((str(rng.choice(ops)), int(rng.integers(size)), int(rng.integers(size))))
    return leaves, steps


def run(leaves: list, steps: list, tanh) -> list:
    """Every value of `program` in order, with `tanh(a)` and the BINARY ops."""
    values = list(leaves)
    for op, i, j in steps:
        values.append(tanh(values[i]) if op == "tanh" else BINARY[op](values[i], values[j]))
    return values


def learner_graph(seed: int, scalar: bool) -> tuple[list, object, list[np.ndarray], list]:
    """(leaves, root, their values, steps) on Val (scalar) or Arr (2x2 arrays, summed)."""
    values, steps = program(seed, scalar)
    if scalar:
        leaves = [Val(float(v), label=f"x{k}") for k, v in enumerate(values)]
    else:
        leaves = [Arr(v, name=f"x{k}") for k, v in enumerate(values)]
    out = run(leaves, steps, lambda a: a.tanh())[-1]
    return leaves, (out if scalar else out.sum()), values, steps


def torch_grads(values: list[np.ndarray], steps: list) -> list[np.ndarray]:
    torch = pytest.importorskip("torch")
    leaves = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in values]
    run(leaves, steps, torch.tanh)[-1].sum().backward()
    return [
        t.grad.numpy() if t.grad is not None else np.zeros_like(v) for t, v in zip(leaves, values)
    ]


def backwards_of(objs: list) -> dict[int, object]:
    return {id(o): o.__dict__.get("_backward") for o in objs}


def reachable(root) -> list:
    return topological(root, "_prev" if isinstance(root, Val) else "parents")


def node_titles(bwd, objs: list) -> list[str]:
    """The titles of what runs for each object: its op node, or the leaf itself."""
    titles = bwd.graph.titles()
    return [titles[bwd.builder.node_title_id(bwd.own.find(o))] for o in objs]


@pytest.mark.parametrize("seed", range(16))
def test_replay_ends_at_the_learners_grads_and_order_is_the_call_order(seed):
    scalar = seed % 2 == 0
    leaves, root, values, steps = learner_graph(seed, scalar)
    everything = reachable(root)
    before = backwards_of(everything)
    calls: list = []
    with record_own_backward(root) as bwd:
        root.backward(calls)
    assert backwards_of(everything) == before  # the learner's own closures, put back

    assert bwd.order() == node_titles(bwd, calls)
    kinds = [r["kind"] for r in bwd.records]
    assert kinds[0] == "backward_start" and kinds[-1] == "backward_end"
    assert kinds.count("node_start") == sum(1 for o in calls if bwd.own.find(o).parents)

    frames = bwd.frames()
    final = torch_grads(values, steps)
    used = {id(o) for o in everything}
    for leaf, expected in zip(leaves, final):
        if id(leaf) not in used:
            continue
        proxy = bwd.own.find(leaf)
        written = [r for r in bwd.records if r["kind"] == "accumulate" and r["variable"] is proxy]
        assert written, f"no .grad step for {leaf.name if not scalar else leaf.label}"
        np.testing.assert_array_equal(written[-1]["after"], np.asarray(leaf.grad))
        np.testing.assert_allclose(np.asarray(leaf.grad), expected, rtol=1e-12, atol=1e-12)
        leaf_id = bwd.builder.tensor_id[proxy]
        last = [f["leaf"] for f in frames if f.get("leaf", {}).get("id") == leaf_id][-1]
        assert last["after"] == summarize(np.asarray(leaf.grad))

    # what the edges carried into each object made by an op adds up to its .grad
    for obj in everything:
        t = bwd.own.find(obj)
        if not t.parents or obj is root:
            continue
        sent = [r["grad"] for r in bwd.records if r["kind"] == "edge" and r["target"] is t.grad_fn]
        np.testing.assert_allclose(sum(sent), np.asarray(obj.grad), rtol=1e-12, atol=1e-12)


def test_the_picture_has_op_nodes_leaves_and_the_root():
    a, b = Val(2.0, label="a"), Val(-3.0, label="b")
    c = a * b
    loss = (c + a).tanh() * a
    view = draw_own(loss, names={"c": c})
    kinds = view.graph.counts()
    assert kinds == {"tensor": 2, "leaf": 2, "backward": 4}
    titles = sorted(view.drawing().titles.values())
    assert titles == sorted(
        ["a", "b", "c", "output", "add._backward", "tanh._backward"]
        + ["mul._backward #0", "mul._backward #3"]
    )
    assert view.title(a) == "a" and view.title(c) == "c" and view.title(loss) == "output"
    assert "AccumulateGrad" not in view.source()  # the learner's engine has none
    kinds_of_edges = sorted(e.kind for e in view.graph.edges.values())
    assert kinds_of_edges == ["grad"] * 7 + ["output"] * 2


def test_op_titles():
    from widgets.own_engine import node_title

    assert [node_title(op) for op in ("+", "-", "*", "/", "@", "**2", "**-1", "ReLU", "")] == [
        "add._backward",
        "sub._backward",
        "mul._backward",
        "div._backward",
        "matmul._backward",
        "pow2._backward",
        "pow-1._backward",
        "ReLU._backward",
        "op._backward",
    ]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 2)])
def test_arrays_of_any_shape(shape):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(len(shape))
    xv, yv = rng.normal(size=shape), rng.normal(size=shape)
    x, y = Arr(xv, name="x"), Arr(yv, name="y")
    loss = ((x * y).tanh() + x).sum()
    with record_own_backward(loss, names={"x": x, "y": y}) as bwd:
        loss.backward()
    tx, ty = (torch.tensor(v, requires_grad=True) for v in (xv, yv))
    ((tx * ty).tanh() + tx).sum().backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad, ty.grad.numpy(), rtol=1e-12)
    assert bwd.order()[:4] == ["sum._backward", "add._backward", "tanh._backward", "mul._backward"]
    assert bwd.player().frames[-1]["kind"] == "backward_end"
    assert bwd.graph.nodes[bwd.builder.tensor_id[bwd.own.find(x)]].shape == shape


def test_a_second_backward_adds_onto_old_grads():
    a, b = Val(1.5, label="a"), Val(2.0, label="b")
    h = a * b
    loss = h + h
    with record_own_backward(loss) as bwd:
        loss.backward()
        loss.backward()  # no zeroing: the learner's engine piles up, and the replay shows it
    kinds = [r["kind"] for r in bwd.records]
    assert kinds.count("backward_start") == 2 and kinds.count("backward_end") == 2
    a_steps = [r for r in bwd.records if r["kind"] == "accumulate" and r["variable"].obj is a]
    assert [float(r["before"]) for r in a_steps] == [0.0, 4.0]
    # h kept its .grad 2 from the first pass: the second sends (2 + 2) * b = 8 into a.grad
    assert float(a_steps[-1]["after"]) == a.grad == 4.0 + 8.0
    sums = [r for r in bwd.records if r["kind"] == "buffer_sum"]
    assert [(float(r["before"]), float(r["added"])) for r in sums] == [(2.0, 2.0)]


def test_a_wrong_order_is_replayed_as_it_ran():
    """A classic bug: forgetting to reverse the topological order. One pass, the seed last,
    and the leaves' steps add nothing: the replay shows what the engine did, not the fix."""
    a, b = Val(1.5, label="a"), Val(2.0, label="b")
    loss = (a * b).tanh()
    with record_own_backward(loss) as bwd:
        loss.grad = 1.0
        for v in reachable(loss):  # parents first: the wrong way round
            v._backward()
    kinds = [r["kind"] for r in bwd.records]
    assert kinds.count("backward_start") == 1 and kinds[-1] == "backward_end"
    starts = [r["node"].name() for r in bwd.records if r["kind"] == "node_start"]
    assert starts == ["mul._backward", "tanh._backward"]
    seed = next(i for i, r in enumerate(bwd.records) if r["kind"] == "edge" and r["source"] is None)
    assert bwd.records[seed + 1]["node"].name() == "tanh._backward"  # the seed comes last
    assert a.grad == b.grad == 0.0
    assert all(float(r["added"]) == 0.0 for r in bwd.records if r["kind"] == "accumulate")
    assert bwd.order() == ["a", "b", "mul._backward", "tanh._backward"]


class Unhashable(Val):
    """Objects that cannot be dict keys (a tensor class with an elementwise `==` is like this)."""

    __hash__ = None

    def __eq__(self, other):
        raise AssertionError("the explorer compared two of the learner's objects")


def test_objects_are_never_hashed_or_compared():
    a, b = Unhashable(1.0, label="a"), Unhashable(2.0, label="b")
    loss = Unhashable(3.0, (a, b), "+")
    loss._backward = lambda: None
    assert draw_own(loss).graph.counts() == {"tensor": 1, "leaf": 2, "backward": 1}
    calls: list = []
    with record_own_backward(loss, names={"a": a}) as bwd:
        loss.backward(calls)
    assert bwd.order() == node_titles(bwd, calls) and len(calls) == 3
    assert bwd.title(a) == "a"


def test_a_failing_backward_is_an_error_frame_and_every_backward_is_put_back():
    a, b = Val(1.0, label="a"), Val(2.0, label="b")
    c = a * b
    loss = c.tanh()

    def broken() -> None:
        raise ZeroDivisionError("my engine divided by zero")

    c._backward = broken
    everything = reachable(loss)
    before = backwards_of(everything)
    with pytest.raises(ZeroDivisionError, match="divided by zero"):
        with record_own_backward(loss) as bwd:
            loss.backward()
    assert backwards_of(everything) == before
    assert c._backward is broken
    assert isinstance(bwd.error, ZeroDivisionError)
    last = bwd.records[-1]
    assert last["kind"] == "error" and last["node"] is bwd.own.find(c).grad_fn
    frame = bwd.frames()[-1]
    assert "mul._backward" in frame["error"] and "my engine divided by zero" in frame["error"]
    assert bwd.order() == ["tanh._backward", "mul._backward"]
    bwd.player()  # replays up to the error


def test_an_error_outside_every_backward_ends_the_pass_with_an_error():
    a = Val(1.0, label="a")
    loss = a * a
    with pytest.raises(RuntimeError):
        with record_own_backward(loss) as bwd:
            loss.backward()
            raise RuntimeError("after the loop")
    last = bwd.records[-1]
    assert last["kind"] == "error" and last["node"] is None
    assert "_backward" not in vars(a) or a._backward.__qualname__.startswith("Val.")


def test_a_lone_leaf_as_root():
    x = Val(2.0, label="x")
    assert draw_own(x).graph.counts() == {"leaf": 1}
    with record_own_backward(x) as bwd:
        x.backward()
    assert bwd.order() == ["x"] and bwd.records == [] and x.grad == 1.0
    assert "BackwardPlayer(0 frames" in repr(bwd.player())


def test_a_backward_that_replaces_a_grad_with_another_shape_is_named():
    x = Arr([1.0, 2.0], name="x")
    y = x.tanh()
    x.grad = np.zeros(3)  # stale, of another shape

    def replaces() -> None:
        x.grad = np.ones(2)  # `=` where `+=` belongs: no sum can turn [3] into [2]

    y._backward = replaces
    with pytest.raises(ValueError, match=r"from shape \[3\] to \[2\]"):
        with record_own_backward(y) as bwd:
            y.grad = np.ones(2)
            y._backward()
    assert y._backward is replaces
    assert bwd.records[-1]["kind"] == "error"
    assert bwd.frames()[-1]["error"].startswith("ValueError in tanh._backward")


class Method:
    """`_backward` defined on the class, not on each instance."""

    def __init__(self, data: float, parents: tuple = (), op: str = "") -> None:
        self.data, self.grad, self.parents, self.op = data, 0.0, parents, op

    def _backward(self) -> None:
        for p in self.parents:
            p.grad += self.grad


class Slotted:
    """`_backward` in a slot: an instance attribute without a `__dict__`."""

    __slots__ = ("data", "grad", "parents", "op", "_backward")

    def __init__(self, data: float, parents: tuple = (), op: str = "") -> None:
        self.data, self.grad, self.parents, self.op = data, 0.0, parents, op

        def _backward() -> None:
            for p in parents:
                p.grad += self.grad

        self._backward = _backward


@pytest.mark.parametrize("cls", [Method, Slotted])
def test_backward_on_the_class_or_in_a_slot_is_put_back(cls):
    x = cls(2.0)
    y = cls(3.0, (x,), "+")
    slot_fn = None if cls is Method else y._backward
    with record_own_backward(y) as bwd:
        y.grad = 1.0
        y._backward()
    assert x.grad == 1.0
    assert bwd.order() == ["add._backward"]
    if cls is Method:
        assert "_backward" not in vars(y) and y._backward.__func__ is Method._backward
    else:
        assert y._backward is slot_fn


class Bare:
    def __init__(self, **attrs) -> None:
        self.__dict__.update(attrs)


@pytest.mark.parametrize(
    ("attrs", "missing"),
    [
        ({"grad": 0.0, "parents": ()}, "`data`"),
        ({"data": 1.0, "parents": ()}, "`grad`"),
        ({"data": 1.0, "grad": 0.0}, "`parents` or `_prev`"),
        ({"data": 1.0, "grad": 0.0, "parents": "LEAF", "op": ""}, "parents/_prev"),
        ({"data": "one", "grad": 0.0, "parents": ()}, "Bare.data"),
    ],
)
def test_objects_off_the_protocol_are_refused_by_name(attrs, missing):
    bad = Bare(**attrs)
    if attrs.get("parents") == "LEAF":
        bad.parents = 3
    root = Val(1.0)
    root._prev = (bad,)
    root._op = "tanh"
    with pytest.raises(TypeError, match=re.escape(missing)):
        draw_own(root)


def test_an_op_result_needs_op_and_backward():
    leaf = Bare(data=1.0, grad=0.0, parents=())
    with pytest.raises(TypeError, match=re.escape("`op` or `_op`")):
        draw_own(Bare(data=1.0, grad=0.0, parents=(leaf,), _backward=lambda: None))
    with pytest.raises(TypeError, match=re.escape("`_backward`")):
        with record_own_backward(Bare(data=1.0, grad=0.0, parents=(leaf,), op="+")):
            pass
    with pytest.raises(ValueError, match="names\\['z'\\]"):
        draw_own(Val(1.0), names={"z": Val(2.0)})
    with pytest.raises(TypeError, match="at least one"):
        draw_own()


def test_a_20000_step_chain_walks_and_replays_without_recursion():
    x = Val(0.3, label="x")
    out = x
    for _ in range(20_000):
        out = out.tanh()
    with record_own_backward(out) as bwd:
        out.backward()
    assert len(bwd.order()) == 20_001
    assert bwd.order()[-1] == "x"
    written = [r for r in bwd.records if r["kind"] == "accumulate"]
    assert len(written) == 1 and float(written[0]["after"]) == x.grad
    assert len(bwd.frames()) == len(bwd.records)
    assert draw_own(out).graph.counts() == {"tensor": 1, "leaf": 1, "backward": 20_000}


def test_names_are_escaped_in_the_picture_and_the_replay(tmp_path):
    a = Val(1.0, label=EVIL)
    b = Val(2.0)
    loss = a * b
    svg = draw_own(loss, names={"b": b}).svg()
    assert "&lt;b&gt;&amp;x" in svg and EVIL not in svg
    with record_own_backward(loss) as bwd:
        loss.backward()
    player = bwd.player()
    assert EVIL not in player.svg and EVIL not in player.picture_html()
    page = player.save_html(tmp_path / "own.html").read_text(encoding="utf-8")
    assert EVIL not in page
    assert "\\u003cb>&x.grad" in page  # the step text, inside the page's JSON, still no tag


def test_chinese_words():
    x, w = Arr([1.0, -2.0], name="x"), Arr([0.5, 0.25])
    loss = (x * w).sum()
    with record_own_backward(loss) as bwd:
        loss.backward()
    player = bwd.player(lang="zh")
    for frame in player.frames:
        assert not ENGLISH.search(frame["text"]), frame["text"]
    worded = [f for f in player.frames if f["kind"] not in ("edge", "accumulate")]
    assert worded and all(CJK.search(f["text"]) for f in worded)
    assert "叶子" in bwd.order(lang="zh")  # w has no name: the word for a leaf
    assert bwd.order(lang="zh")[:2] == ["sum._backward", "mul._backward"]
    assert CJK.search(draw_own(loss, lang="zh").summary())
    assert CJK.search(repr(player))


def test_karpathy_micrograd_values_work_as_they_are():
    engine = pytest.importorskip("micrograd.engine")
    a, b = engine.Value(2.0), engine.Value(-3.0)
    c = a * b + a**2
    loss = c.relu() + (c * 0.5)
    with record_own_backward(loss, names={"a": a, "b": b}) as bwd:
        loss.backward()
    assert not any("_backward" in vars(v) and v._backward.__name__ == "run" for v in (a, b, c))
    written = {}
    for r in bwd.records:
        if r["kind"] == "accumulate":
            written[bwd.title(r["variable"])] = float(r["after"])
    assert written["a"] == a.grad and written["b"] == b.grad
    assert any(t.startswith("pow2._backward") for t in bwd.order())
    assert "ReLU._backward" in bwd.order()


def test_draw_own_uses_the_default_language():
    widgets.set_language("zh")
    try:
        assert CJK.search(draw_own(Val(1.0) * Val(2.0)).summary())
    finally:
        widgets.set_language("en")
