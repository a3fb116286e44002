"""W5 and W6: the models learners train next (issue 21), written once against `lib` as the
courses write them, so PyTorch and minigrad run the same lines.

- W5, makemore's MLP (nn-zero-to-hero, part 2): a character embedding table indexed by a
  (32, 3) batch of contexts, tanh hidden layer, cross-entropy, `p.data += -lr * p.grad`.
- W6, the GPT lecture's model at toy size: token and position embeddings, two blocks of
  causal multi-head self-attention (tril mask, masked_fill, softmax) and a ReLU MLP, each
  behind a LayerNorm, AdamW.

The text is the benchmark's own: seeded random characters (no downloads).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from .runner import Runner, timed

MAKEMORE = {"vocab": 27, "block": 3, "embed": 10, "hidden": 200, "batch": 32, "lr": 0.1}
GPT = {"vocab": 65, "block": 16, "embed": 32, "heads": 4, "layers": 2, "batch": 16, "lr": 1e-3}


def _text(vocab: int, length: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, vocab, length).astype(np.int64)


def _batches(vocab: int, block: int, batch: int, seed: int, count: int = 8) -> list:
    """`count` fixed (contexts, next characters) batches, cycled through by the step."""
    text, rng = _text(vocab, 10_000, seed), np.random.default_rng(seed + 1)
    out = []
    for _ in range(count):
        starts = rng.integers(0, len(text) - block - 1, batch)
        x = np.stack([text[s : s + block] for s in starts])
        y = np.stack([text[s + 1 : s + block + 1] for s in starts])
        out.append((x, y))
    return out


def makemore_step(lib: ModuleType) -> Runner:
    cfg = MAKEMORE
    rng = np.random.default_rng(0)
    shapes = [
        (cfg["vocab"], cfg["embed"]),
        (cfg["block"] * cfg["embed"], cfg["hidden"]),
        (cfg["hidden"],),
        (cfg["hidden"], cfg["vocab"]),
        (cfg["vocab"],),
    ]
    C, W1, b1, W2, b2 = params = [
        lib.tensor(rng.standard_normal(s).astype(np.float32) * 0.1, requires_grad=True)
        for s in shapes
    ]
    batches = [
        (lib.from_numpy(x), lib.from_numpy(y[:, -1].copy()))
        for x, y in _batches(cfg["vocab"], cfg["block"], cfg["batch"], seed=1)
    ]
    state = {"i": 0}

    def step() -> float:
        xb, yb = batches[state["i"] % len(batches)]
        state["i"] += 1
        emb = C[xb]
        h = lib.tanh(emb.view(-1, cfg["block"] * cfg["embed"]) @ W1 + b1)
        logits = h @ W2 + b2
        loss = lib.nn.functional.cross_entropy(logits, yb)
        for p in params:
            p.grad = None
        loss.backward()
        for p in params:
            p.data += -cfg["lr"] * p.grad
        return loss.item()

    return timed("step", step)


def gpt(lib: ModuleType) -> Any:
    """The lecture's decoder-only transformer (bigram model grown into a GPT), at toy size."""
    nn, F = lib.nn, lib.nn.functional
    cfg = GPT
    embed, block = cfg["embed"], cfg["block"]
    size = embed // cfg["heads"]

    class Head(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.key = nn.Linear(embed, size, bias=False)
            self.query = nn.Linear(embed, size, bias=False)
            self.value = nn.Linear(embed, size, bias=False)
            self.register_buffer("tril", lib.tril(lib.ones(block, block)))

        def forward(self, x: Any) -> Any:
            _, T, _ = x.shape
            k, q = self.key(x), self.query(x)
            wei = q @ k.transpose(-2, -1) * size**-0.5
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            return F.softmax(wei, dim=-1) @ self.value(x)

    class MultiHead(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.heads = nn.ModuleList([Head() for _ in range(cfg["heads"])])
            self.proj = nn.Linear(embed, embed)

        def forward(self, x: Any) -> Any:
            return self.proj(lib.cat([h(x) for h in self.heads], dim=-1))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.sa = MultiHead()
            self.ffwd = nn.Sequential(
                nn.Linear(embed, 4 * embed), nn.ReLU(), nn.Linear(4 * embed, embed)
            )
            self.ln1, self.ln2 = nn.LayerNorm(embed), nn.LayerNorm(embed)

        def forward(self, x: Any) -> Any:
            x = x + self.sa(self.ln1(x))
            return x + self.ffwd(self.ln2(x))

    class TinyGPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.token = nn.Embedding(cfg["vocab"], embed)
            self.position = nn.Embedding(block, embed)
            self.blocks = nn.Sequential(*[Block() for _ in range(cfg["layers"])])
            self.ln_f = nn.LayerNorm(embed)
            self.lm_head = nn.Linear(embed, cfg["vocab"])

        def forward(self, idx: Any, targets: Any) -> Any:
            B, T = idx.shape
            x = self.token(idx) + self.position(lib.arange(T))
            logits = self.lm_head(self.ln_f(self.blocks(x)))
            return F.cross_entropy(logits.view(B * T, -1), targets.view(B * T))

    return TinyGPT()


def gpt_step(lib: ModuleType) -> Runner:
    cfg = GPT
    model = gpt(lib)
    rng = np.random.default_rng(0)
    with lib.no_grad():  # the same starting weights in both libraries
        for p in model.parameters():
            p.copy_(lib.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))
    opt = lib.optim.AdamW(model.parameters(), lr=cfg["lr"])
    batches = [
        (lib.from_numpy(x), lib.from_numpy(y))
        for x, y in _batches(cfg["vocab"], cfg["block"], cfg["batch"], seed=2)
    ]
    state = {"i": 0}

    def step() -> float:
        xb, yb = batches[state["i"] % len(batches)]
        state["i"] += 1
        loss = model(xb, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()

    return timed("step", step)
