"""Big graphs for the explorer: a small transformer, the same code in minigrad and in torch.

Each block is pre-norm attention and an MLP, both residual, written with `nn.Linear`, `softmax`
and tensor ops (the norm by hand: minigrad has no LayerNorm), so that its backward graph has
~88 nodes per block (with saved tensors, leaves and AccumulateGrads): 4 blocks ~ 340 nodes,
23 ~ 2,000, 114 ~ 10,000. `recorded(torch, blocks)` records the forward with its modules and
the backward, as a learner would.

    python tests/widgets/big_graphs.py 4 23 114          # kernel-side timings, minigrad
    python tests/widgets/big_graphs.py --torch 4 23 114  # and torch
    python tests/widgets/big_graphs.py --flat 4 23 114   # without module boxes (cut instead)
"""

from __future__ import annotations

import sys
import time
from types import ModuleType
from typing import Any

from widgets import record_backward, record_forward


def transformer(torch: ModuleType, blocks: int, width: int = 8, tokens: int = 4) -> tuple:
    """(model, input): `blocks` transformer blocks on a `tokens` x `width` input."""
    nn = torch.nn

    class Norm(nn.Module):
        def forward(self, x: Any) -> Any:
            centred = x - x.mean(-1, keepdim=True)
            return centred / (centred.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()

    class Attention(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.q, self.k, self.v, self.out = (nn.Linear(width, width) for _ in range(4))

        def forward(self, x: Any) -> Any:
            scores = self.q(x) @ self.k(x).transpose(0, 1) / width**0.5
            return self.out(torch.softmax(scores, -1) @ self.v(x))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm1, self.attn, self.norm2 = Norm(), Attention(), Norm()
            self.mlp = nn.Sequential(
                nn.Linear(width, 2 * width), nn.ReLU(), nn.Linear(2 * width, width)
            )

        def forward(self, x: Any) -> Any:
            x = x + self.attn(self.norm1(x))
            return x + self.mlp(self.norm2(x))

    torch.manual_seed(0)
    return nn.Sequential(*[Block() for _ in range(blocks)]), torch.randn(tokens, width)


def recorded(
    torch: ModuleType, blocks: int, modules: bool = True
) -> tuple[record_forward, record_backward]:
    """The transformer's forward (with its modules) and backward, recorded. `modules=False`:
    the backward alone, with parameter names only (no module knows its nodes)."""
    model, x = transformer(torch, blocks)
    with record_forward(model if modules else None, names={"x": x}) as fwd:
        loss = model(x).pow(2).mean()
    with record_backward(loss, forward=fwd if modules else None, module=model) as bwd:
        loss.backward()
    return fwd, bwd


def timings(torch: ModuleType, blocks: int, modules: bool = True) -> dict[str, Any]:
    """Kernel-side seconds and sizes of a backward player for `blocks` blocks."""
    t0 = time.perf_counter()
    _, bwd = recorded(torch, blocks, modules)
    t1 = time.perf_counter()
    player = bwd.player()
    t2 = time.perf_counter()
    return {
        "graph nodes": len(bwd.graph.nodes),
        "drawn": player.view.drawing().size,
        "frames": len(player.frames),
        "record s": round(t1 - t0, 2),
        "player s": round(t2 - t1, 2),
        **{k.replace("_ms", " s"): round(v / 1000, 2) for k, v in player.timings.items()},
        "summary": player.summary,
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--torch" in args:
        import torch as library
    else:
        import minigrad as library
    for n in (int(a) for a in args if not a.startswith("--")):
        print(n, "blocks:", timings(library, n, modules="--flat" not in args))
