"""Hook frames say which kind of hook fired, whose it is, what it is called, what it saw and
returned, and which drawn element wears the badge; in minigrad and, where torch shows its
hooks to Python, in torch. Names reach every HTML and SVG output escaped."""

from __future__ import annotations

import inspect
import json
import re

import pytest
from explorer_graphs import lib, libraries

import minigrad as mg
from minigrad.autograd import record_steps
from widgets import draw_graph, record_backward, record_forward

FIELDS = {"kind", "owner", "fn", "saw", "returned", "target", "text"}


def line_of(marker: str) -> int:
    """The line of this file holding `marker` (lambdas are named by where they are written)."""
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()
    return next(i for i, line in enumerate(lines, 1) if marker in line and "line_of" not in line)


def hooks_of(trace) -> list[dict]:
    found = [f["hook"] for f in trace.frames() if f["kind"] == "hook" and "hook" in f]
    assert all(set(h) == FIELDS for h in found)
    return found


def tensor_hooks(torch):
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    h = x * 3

    def double(grad):
        return grad * 2

    h.register_hook(double)
    x.register_hook(lambda g: None)  # marker: leaf tensor hook
    x.register_post_accumulate_grad_hook(lambda t: None)  # marker: post-accumulate
    h.retain_grad()
    z = (h**2).sum()
    with record_backward(z, names={"x": x, "h": h}) as trace:
        z.backward()
    return trace, x, h


@pytest.mark.parametrize("name", libraries())
def test_tensor_hooks_are_reported_on_their_tensors(name):
    trace, x, h = tensor_hooks(lib(name))
    ids = trace.builder.tensor_id
    got = [(k["kind"], k["owner"], k["fn"], k["target"]) for k in hooks_of(trace)]
    assert got == [
        ("tensor", "h", "double", ids[h]),
        ("retain_grad", "h", "retain_grad", ids[h]),
        (
            "tensor",
            "x",
            f"<lambda> at test_explorer_hooks.py line {line_of('marker: leaf tensor hook')}",
            ids[x],
        ),
        (
            "post_accumulate",
            "x",
            f"<lambda> at test_explorer_hooks.py line {line_of('marker: post-accumulate')}",
            ids[x],
        ),
    ]
    texts = [k["text"] for k in hooks_of(trace)]
    assert texts[0] == "tensor hook double on h: saw [6., -6.], returned [12., -12.]"
    assert texts[1] == "retain_grad on h: h.grad = [12., -12.]"
    assert texts[2].endswith("on x: saw [36., -36.], returned None (gradient unchanged)")
    assert texts[3].startswith("post-accumulate-grad hook <lambda> at test_explorer_hooks.py line")
    assert texts[3].endswith("on x: saw x.grad = [36., -36.]")
    assert sum(f["kind"] == "hook" for f in trace.frames()) == 4  # one frame per record


@pytest.mark.parametrize("name", libraries())
def test_hook_frames_follow_the_engines_order(name):
    trace, _, _ = tensor_hooks(lib(name))
    steps = [
        (f["kind"], f.get("hook", {}).get("kind"))
        for f in trace.frames()
        if f["kind"] in ("node_start", "hook", "accumulate")
    ]
    assert steps[-5:] == [
        ("hook", "retain_grad"),
        ("node_start", None),
        ("hook", "tensor"),
        ("accumulate", None),
        ("hook", "post_accumulate"),
    ]


def test_node_hooks_name_the_node_and_show_what_they_returned():
    a = mg.tensor([1.0, 2.0], requires_grad=True)
    b = mg.tensor([3.0, 4.0], requires_grad=True)
    y = (a * b + a * 2).sum()
    first_mul = y.grad_fn.next_functions[0][0].next_functions[0][0]
    first_mul.register_prehook(lambda go: (go[0] * 10,))  # marker: prehook
    first_mul.register_hook(lambda gi, go: None)  # marker: posthook
    unnamed = a * 1
    unnamed.register_hook(lambda g: None)
    with record_backward(y, unnamed.sum(), names={"a": a}) as trace:
        y.backward()
        unnamed.sum().backward()
    hooks = hooks_of(trace)
    node_id = trace.builder.node_id[first_mul]
    assert [(k["kind"], k["owner"], k["target"]) for k in hooks[:2]] == [
        ("pre", "MulBackward0 #0", node_id),
        ("post", "MulBackward0 #0", node_id),
    ]
    assert hooks[0]["fn"] == f"<lambda> at test_explorer_hooks.py line {line_of('marker: prehook')}"
    assert hooks[0]["saw"] == "[1., 1.]" and hooks[0]["returned"] == "[10., 10.]"
    assert (
        hooks[1]["fn"] == f"<lambda> at test_explorer_hooks.py line {line_of('marker: posthook')}"
    )
    assert hooks[1]["saw"] == "([30., 40.], [10., 20.])" and hooks[1]["returned"] == "None"
    assert hooks[1]["text"] == (
        f"post-hook {hooks[1]['fn']} on MulBackward0 #0: saw grad_inputs ([30., 40.], [10., 20.]), "
        "returned None (gradient unchanged)"
    )
    last = hooks[2]  # a tensor that is not drawn: its node wears the badge
    unnamed_mul = trace.builder.node_id[unnamed.grad_fn]
    assert last["owner"] == f"the output of {trace.title(unnamed_mul)}"
    assert last["target"] == unnamed_mul


def test_the_engine_reports_the_hook_function_itself():
    x = mg.tensor([1.0], requires_grad=True)
    y = x * 2

    def keep(g):
        return None

    y.register_hook(keep)
    y.grad_fn.register_prehook(lambda go: None)
    with record_steps() as steps:
        y.sum().backward()
    hooks = [r for r in steps.records if r["kind"] == "hook"]
    assert [(r["hook"], r["fn"]) for r in hooks] == [("tensor", "keep"), ("pre", "<lambda>")]
    assert hooks[0]["function"] is keep and callable(hooks[1]["function"])
    assert hooks[1]["returned"] is None


@pytest.mark.parametrize("name", libraries())
def test_module_backward_hooks_are_the_modules(name):
    torch = lib(name)
    lin = torch.nn.Linear(2, 1)
    model = torch.nn.Sequential(lin)

    def on_grad(module, grad_input, grad_output):
        return None

    def on_grad_output(module, grad_output):
        return (grad_output[0] * 2,)

    lin.register_full_backward_hook(on_grad)
    lin.register_full_backward_pre_hook(on_grad_output)
    inp = torch.tensor([[1.0, 2.0]], requires_grad=True)
    with record_forward(model, names={"inp": inp}) as fwd:
        loss = model(inp).sum()
    with record_backward(loss, forward=fwd) as bwd:
        loss.backward()
    hooks = hooks_of(bwd)
    assert [(k["kind"], k["owner"], k["fn"]) for k in hooks] == [
        ("module_pre", "Linear 0", "on_grad_output"),
        ("module", "Linear 0", "on_grad"),
    ]
    assert hooks[0]["saw"] == "[[1.]]" and hooks[0]["returned"] == "[[2.]]"
    assert hooks[1]["returned"] == "None"
    kinds = {bwd.graph.nodes[k["target"]].name for k in hooks}
    assert kinds == {"BackwardHookFunctionBackward"}
    assert len(lin._backward_hooks) == 1 and next(iter(lin._backward_hooks.values())) is on_grad


def test_torch_spies_are_gone_after_the_block():
    torch = pytest.importorskip("torch")
    x = torch.tensor([1.0], requires_grad=True)

    def hook(g):
        return None

    x.register_hook(hook)
    y = (x * 2).sum()
    with record_backward(y, names={"x": x}):
        y.backward(retain_graph=True)
    assert list(x._backward_hooks.values()) == [hook]


EVIL_NAME = "<script>alert('x')</script>\"q\" \\N \\"


def test_hook_and_tensor_names_reach_html_and_svg_escaped(tmp_path):
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3

    def hook(g):
        return None

    hook.__name__ = EVIL_NAME
    h.register_hook(hook)
    y = h.sum()
    with record_backward(y, names={EVIL_NAME: x, f"{EVIL_NAME}!": h}) as trace:
        y.backward()
    player = trace.player()
    (first,) = hooks_of(trace)
    assert first["fn"] == EVIL_NAME and first["owner"] == f"{EVIL_NAME}!"  # data, as typed
    outputs = {
        "svg": player.svg,
        "picture": player.picture_html(),
        "static": draw_graph(y, names={EVIL_NAME: x}).html(),
        "page": player.save_html(tmp_path / "page.html").read_text(encoding="utf-8"),
    }
    for where, text in outputs.items():
        assert "<script>alert" not in text, where
        assert "alert(" not in re.sub(r"&lt;script&gt;alert\(|\\u003cscript>alert\(", "", text), (
            where
        )
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in player.svg
    state = outputs["page"].split('id="mg-state">')[1].split("</script>")[0]
    frames = json.loads(state)["frames"]
    assert any(f.get("hook", {}).get("fn") == EVIL_NAME for f in frames)  # JSON, read as text
    assert outputs["page"].count("<script") == 2  # the state and the player: nothing else
