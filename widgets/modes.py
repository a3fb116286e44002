"""`forward_and_reverse`: one function differentiated both ways, each pass replayed.

Forward mode runs the function once on dual inputs (inside `forward_ad.dual_level`): every op
computes its output's tangent as it computes its output, so the forward player shows the graph
growing with each new node's tangent beside it, and one pass gives f(x) and J·v. Reverse mode
runs one backward pass from the output: the backward player shows the gradients flowing back,
and one pass gives vᵀJ for every input at once. The inputs require grad so that both players
draw the same graph (forward mode alone needs none; PyTorch builds none for it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape
from typing import Any

from IPython.display import HTML, display

from . import adapters
from .language import resolve
from .player import BackwardPlayer, ForwardPlayer
from .texts import say
from .trace import record_backward, record_forward


class ModesView:
    """The two players of `forward_and_reverse`, each under a heading that says what its one
    pass computes; `.forward` and `.backward` are the players (each with `save_html`)."""

    def __init__(self, forward: ForwardPlayer, backward: BackwardPlayer, lang: str) -> None:
        self.forward, self.backward, self.lang = forward, backward, lang

    def _ipython_display_(self) -> None:
        for key, player in (("modes.forward", self.forward), ("modes.backward", self.backward)):
            display(HTML(f'<div class="mg-modes-heading">{escape(say(key, self.lang))}</div>'))
            display(player)

    def __repr__(self) -> str:
        forward, backward = (say(k, self.lang) for k in ("modes.forward", "modes.backward"))
        return f"{forward}\n{self.forward!r}\n{backward}\n{self.backward!r}"


def forward_and_reverse(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    tangents: Sequence[Any],
    *,
    names: Sequence[str] | None = None,
    seed: Any = None,
    lang: str | None = None,
    **player_options: Any,
) -> ModesView:
    """Differentiate `fn` at `inputs` both ways (minigrad or torch tensors alike).

    tangents: one direction per input (forward mode computes J·v along it).
    names:    the inputs' names in the pictures (default x0, x1, ...).
    seed:     the output's gradient for the backward pass (default: ones, as for a sum).
    """
    if len(tangents) != len(inputs):
        raise ValueError(f"one tangent per input: got {len(inputs)} inputs, {len(tangents)}")
    lib = adapters.library_of(inputs[0])
    lang = resolve(lang)
    leaves = [x.detach().clone().requires_grad_(True) for x in inputs]
    labels = list(names) if names is not None else [f"x{i}" for i in range(len(leaves))]
    named: Mapping[str, Any] = dict(zip(labels, leaves, strict=True))
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        with record_forward(names=named) as forward:
            out = fn(*(fw.make_dual(x, t) for x, t in zip(leaves, tangents, strict=True)))
    with record_backward(out, forward=forward, names=named) as backward:
        out.backward(lib.ones_like(out) if seed is None else seed)
    return ModesView(
        forward.player(lang=lang, **player_options),
        backward.player(lang=lang, **player_options),
        lang,
    )
