"""Hook records -> what the player shows: which kind of hook fired, whose it is, what it is called,
what it saw and returned, and which drawn element wears the badge.

Both libraries' records arrive here in one shape, `events.hook` (minigrad/core/events.py):
`hook` (its kind, one of `events.HOOK_KINDS`), `node`, `slot`, `fn` (a name), `function` (the
hook itself, when known), `grad` (what it saw), `returned`, and the `tensor` or `module` the
hook belongs to where the producer knows it (torch's do). A module's full backward hooks run
inside a `BackwardHook` object's own node hooks in minigrad (as in PyTorch); they are recognised
here and reported as the module's.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

from . import torch_internals
from .labels import summarize, summarize_many
from .texts import say
from .walk import GraphBuilder

SAW = {
    "pre": "grad_outputs ",
    "post": "grad_inputs ",
    "module_pre": "grad_output ",
    "module": "grad_input ",
}


def function_label(function: Any, name: str, lang: str = "en") -> str | None:
    """A hook's name; a lambda's says where it was written (`<lambda> at cell line 3`). None
    when nothing tells it apart (the caller then numbers it)."""
    inner = getattr(function, "func", function)  # functools.partial
    code = getattr(inner, "__code__", None)
    own = getattr(inner, "__name__", None) or name
    if own != "<lambda>":
        return own if function is inner else f"partial({own})"
    if code is None:
        return None
    path = code.co_filename
    cell = "ipykernel_" in path or path.startswith("<ipython-input")
    where = say("hook.cell", lang) if cell else os.path.basename(path)
    return say("hook.lambda_at", lang, where=where, line=code.co_firstlineno)


def _same(saw: Any, returned: Any) -> bool:
    if not isinstance(saw, list) or not isinstance(returned, list) or len(saw) != len(returned):
        return False
    return all(
        (a is None and b is None)
        or (a is not None and b is not None and np.array_equal(a, b, equal_nan=True))
        for a, b in zip(saw, returned, strict=True)
    )


class HookNamer:
    """Describes hook records against one builder's ids and one graph's titles."""

    def __init__(self, builder: GraphBuilder, titles: dict[str, str], lang: str = "en") -> None:
        self.lang = lang
        self.b = builder
        self.titles = titles
        self.fired: Counter = Counter()  # (kind, owner) -> hooks seen this pass, to number them

    def new_pass(self) -> None:
        self.fired.clear()

    def describe(self, rec: dict, node_title: Callable[[Any], str]) -> tuple[dict | None, str]:
        """(the frame's `hook` object, or None for a step no user hook took; the panel text)."""
        kind = rec["hook"]
        node, function = rec.get("node"), rec.get("function")
        saw, returned = rec.get("grad"), rec.get("returned")
        fns: list[Any] = [function]
        owner, target = node_title(node), self.b.node_id.get(node)
        module = rec.get("module")
        backward_hook = torch_internals.backward_hook_of(function) if kind == "post" else None
        if backward_hook is not None:
            bh, side = backward_hook
            module = bh.module
            if _same(saw, returned):  # BackwardHook hands them on whatever its hooks returned
                returned = None
            if side == "_input_hook" and rec.get("returned") is not None:
                kind, fns = "module", list(bh.user_hooks)
            elif side == "_output_hook" and bh.user_pre_hooks:
                kind, fns = "module_pre", list(bh.user_pre_hooks)
            elif side == "_output_hook" and bh.input_tensors_index is None:
                kind, fns = "module", list(bh.user_hooks)  # no input needs grad: they run here
            else:
                what = "grad_output" if side == "_output_hook" else "grad_input"
                name = self.b.modules.module_name(module, self.lang)
                return None, say("hook.passes_on", self.lang, owner=name, what=what)
        if module is not None:
            owner = self.b.modules.module_name(module, self.lang)
        elif kind in ("tensor", "retain_grad", "post_accumulate"):
            owner, target = self._tensor_owner(rec, owner, target)
        names = [
            self._label(f, rec.get("fn", "") if f is function else "", kind, owner) for f in fns
        ]
        hook = {
            "kind": kind,
            "owner": owner,
            "fn": ", ".join(names) if names else say("hook.none", self.lang),
            "saw": self._summary(saw),
            "returned": self._returned(saw, returned),
            "target": target,
        }
        hook["text"] = self._text(hook)
        return hook, hook["text"]

    def _label(self, function: Any, name: str, kind: str, owner: str) -> str:
        self.fired[(kind, owner)] += 1
        label = function_label(function, name, self.lang) if function is not None else name
        if not label or label == "<lambda>":
            return say("hook.numbered", self.lang, k=self.fired[(kind, owner)], owner=owner)
        return label

    def _tensor_owner(self, rec: dict, owner: str, target: str | None) -> tuple[str, str | None]:
        """The tensor a tensor hook belongs to: named and drawn when the graph shows it."""
        node, slot = rec.get("node"), rec.get("slot") or 0
        tid = self.b.tensor_id.get(rec["tensor"]) if rec.get("tensor") is not None else None
        if tid is None and node in self.b.accumulate_edge:  # a leaf: its AccumulateGrad runs it
            tid = self.b.graph.edges[self.b.accumulate_edge[node]].target
        if tid is None:
            seeds = self.b.seed_edges.get((node, slot))
            tid = self.b.graph.edges[seeds[0]].source if seeds else None
        if tid is not None:
            return self.titles[tid], tid
        if slot == 0:
            return say("hook.output", self.lang, owner=owner), target
        return say("hook.output_slot", self.lang, slot=slot, owner=owner), target

    def _summary(self, values: Any) -> str:
        if isinstance(values, list):
            return summarize_many(values, self.lang)
        return summarize(values, self.lang)

    def _returned(self, saw: Any, returned: Any) -> str:
        if returned is None or returned is False:
            return "None"
        if returned is True:
            return say("hook.replaced", self.lang)
        if _same(saw, returned):
            return say("hook.same", self.lang)
        return self._summary(returned)

    def _text(self, hook: dict) -> str:
        kind, owner, saw = hook["kind"], hook["owner"], hook["saw"]
        if kind == "retain_grad":
            return say("hook.retain_text", self.lang, owner=owner, saw=saw)
        words = say(f"hook.{kind}", self.lang)
        if kind == "post_accumulate":
            return say(
                "hook.accumulate_text", self.lang, kind=words, fn=hook["fn"], owner=owner, saw=saw
            )
        returned = hook["returned"]
        if returned == "None":
            returned = say("hook.unchanged", self.lang)
        what = SAW.get(kind, "")
        return say(
            "hook.text",
            self.lang,
            kind=words,
            fn=hook["fn"],
            owner=owner,
            what=what,
            saw=saw,
            returned=returned,
        )
