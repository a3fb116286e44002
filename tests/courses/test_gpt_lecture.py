"""Karpathy's "Let's build GPT": character data and batches, the averaging tricks behind
self-attention, a bigram model, then heads, multi-head attention, blocks and the AdamW loop,
all in our own code on a made-up text."""

from __future__ import annotations

import inspect
import math
from contextlib import nullcontext

from tutorials._support import check, parametrize, set_params

from ._data import randn, summary

TEXT = "to be or not to be, that is the question; whether tis nobler in the mind to suffer\n" * 3


def vocabulary():
    chars = sorted(list(set(TEXT)))
    stoi = {ch: i for i, ch in enumerate(chars)}
    itos = {i: ch for i, ch in enumerate(chars)}
    return len(chars), (lambda s: [stoi[c] for c in s]), (lambda ids: "".join(itos[i] for i in ids))


def snip_data_and_batches(torch, out):
    vocab_size, encode, decode = vocabulary()
    data = torch.tensor(encode(TEXT), dtype=torch.long)
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]
    out("data", (data.shape, data.dtype, data[:10], decode(data[:10].tolist()), len(val_data)))
    block_size, batch_size = 8, 4
    torch.manual_seed(1337)
    ix = torch.randint(len(train_data) - block_size, (batch_size,))
    x = torch.stack([train_data[i : i + block_size] for i in ix])
    y = torch.stack([train_data[i + 1 : i + block_size + 1] for i in ix])
    out("batch", (summary(x), y.shape, bool((x[:, 1:] == y[:, :-1]).all())))
    for t in range(3):
        context, target = x[0, : t + 1], y[0, t]
        out(f"context {t}", (context.shape, target.shape, target.dtype))


def snip_averaging_the_past(torch, out):
    F = torch.nn.functional
    B, T, C = 2, 5, 3
    x = randn(torch, B, T, C)
    xbow = torch.zeros((B, T, C))
    for b in range(B):
        for t in range(T):
            xprev = x[b, : t + 1]
            xbow[b, t] = torch.mean(xprev, 0)
    wei = torch.tril(torch.ones(T, T))
    wei = wei / wei.sum(1, keepdim=True)
    xbow2 = wei @ x
    tril = torch.tril(torch.ones(T, T))
    wei = torch.zeros((T, T))
    wei = wei.masked_fill(tril == 0, float("-inf"))
    out("masked", wei)
    wei = F.softmax(wei, dim=-1)
    xbow3 = wei @ x
    out("averages", (xbow, torch.allclose(xbow, xbow2), torch.allclose(xbow, xbow3)))


def snip_one_head(torch, out):
    nn, F = torch.nn, torch.nn.functional
    B, T, C, head_size = 2, 6, 8, 4
    x = randn(torch, B, T, C, seed=3)
    key = set_params(torch, nn.Linear(C, head_size, bias=False), 0.7)
    query = set_params(torch, nn.Linear(C, head_size, bias=False), 0.3)
    value = set_params(torch, nn.Linear(C, head_size, bias=False), 0.5)
    k, q = key(x), query(x)
    wei = q @ k.transpose(-2, -1) * head_size**-0.5
    tril = torch.tril(torch.ones(T, T))
    wei = wei.masked_fill(tril[:T, :T] == 0, float("-inf"))
    wei = F.softmax(wei, dim=-1)
    v = value(x)
    result = wei @ v
    out("weights", (wei[0], wei.sum(-1)))
    out("out", (result.shape, result, result.grad_fn is not None))


def bigram_model(torch, vocab_size):
    nn, F = torch.nn, torch.nn.functional

    class BigramLanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding_table = nn.Embedding(vocab_size, vocab_size)

        def forward(self, idx, targets=None):
            logits = self.token_embedding_table(idx)
            if targets is None:
                return logits, None
            B, T, C = logits.shape
            logits = logits.view(B * T, C)
            targets = targets.view(B * T)
            return logits, F.cross_entropy(logits, targets)

        def generate(self, idx, max_new_tokens):
            for _ in range(max_new_tokens):
                logits, _ = self(idx)
                probs = F.softmax(logits[:, -1, :], dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    return set_params(torch, BigramLanguageModel())


def snip_bigram_language_model(torch, out):
    vocab_size, encode, decode = vocabulary()
    data = torch.tensor(encode(TEXT), dtype=torch.long)
    m = bigram_model(torch, vocab_size)
    xb = torch.stack([data[i : i + 8] for i in (0, 9, 30, 51)])
    yb = torch.stack([data[i + 1 : i + 9] for i in (0, 9, 30, 51)])
    logits, loss = m(xb, yb)
    out("forward", (logits.shape, loss))
    optimizer = torch.optim.AdamW(m.parameters(), lr=1e-2)
    for _ in range(5):
        logits, loss = m(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    out("trained", (loss.item(), m.token_embedding_table.weight[:2]))
    idx = m.generate(torch.zeros((1, 1), dtype=torch.long), max_new_tokens=10)
    text = decode(idx[0].tolist())
    out("generated", (summary(idx), len(text)))


def gpt(torch, vocab_size, n_embd=16, n_head=2, n_layer=2, block_size=8, dropout=0.2):
    nn, F = torch.nn, torch.nn.functional

    class Head(nn.Module):
        def __init__(self, head_size):
            super().__init__()
            self.key = nn.Linear(n_embd, head_size, bias=False)
            self.query = nn.Linear(n_embd, head_size, bias=False)
            self.value = nn.Linear(n_embd, head_size, bias=False)
            self.register_buffer("tril", torch.tril(torch.ones(block_size, block_size)))
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            B, T, C = x.shape
            k, q = self.key(x), self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            wei = wei.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
            wei = self.dropout(F.softmax(wei, dim=-1))
            return wei @ self.value(x)

    class MultiHeadAttention(nn.Module):
        def __init__(self, num_heads, head_size):
            super().__init__()
            self.heads = nn.ModuleList([Head(head_size) for _ in range(num_heads)])
            self.proj = nn.Linear(head_size * num_heads, n_embd)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            out = torch.cat([h(x) for h in self.heads], dim=-1)
            return self.dropout(self.proj(out))

    class FeedForward(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd),
                nn.ReLU(),
                nn.Linear(4 * n_embd, n_embd),
                nn.Dropout(dropout),
            )

        def forward(self, x):
            return self.net(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.sa = MultiHeadAttention(n_head, n_embd // n_head)
            self.ffwd = FeedForward()
            self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)

        def forward(self, x):
            x = x + self.sa(self.ln1(x))
            return x + self.ffwd(self.ln2(x))

    class GPTLanguageModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_embedding_table = nn.Embedding(vocab_size, n_embd)
            self.position_embedding_table = nn.Embedding(block_size, n_embd)
            self.blocks = nn.Sequential(*[Block() for _ in range(n_layer)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab_size)
            self.apply(self._init_weights)

        def _init_weights(self, module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def forward(self, idx, targets=None):
            B, T = idx.shape
            tok_emb = self.token_embedding_table(idx)
            pos_emb = self.position_embedding_table(torch.arange(T))
            x = self.blocks(tok_emb + pos_emb)
            logits = self.lm_head(self.ln_f(x))
            if targets is None:
                return logits, None
            B, T, C = logits.shape
            return logits, F.cross_entropy(logits.view(B * T, C), targets.view(B * T))

        def generate(self, idx, max_new_tokens):
            for _ in range(max_new_tokens):
                idx_cond = idx[:, -block_size:]
                logits, _ = self(idx_cond)
                probs = F.softmax(logits[:, -1, :], dim=-1)
                idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
            return idx

    return GPTLanguageModel()


def snip_gpt_model(torch, out):
    vocab_size, encode, _ = vocabulary()
    torch.manual_seed(1337)
    model = gpt(torch, vocab_size)
    out("init", (summary(model.lm_head.weight), model.lm_head.bias.abs().sum()))
    out(
        "parameters",
        (sum(p.numel() for p in model.parameters()) / 1e6, len(list(model.parameters()))),
    )
    out("state_dict", list(model.state_dict().keys())[:12])
    out("buffers", [name for name, _ in model.named_buffers()])
    set_params(torch, model)
    data = torch.tensor(encode(TEXT), dtype=torch.long)
    xb = torch.stack([data[i : i + 8] for i in (0, 9, 30, 51)])
    yb = torch.stack([data[i + 1 : i + 9] for i in (0, 9, 30, 51)])
    model.eval()
    logits, loss = model(xb, yb)
    out("eval forward", (logits[0, :2], loss, model.training, model.blocks[0].sa.dropout.training))
    model.train()
    logits, loss = model(xb, yb)
    out("train forward", (logits.shape, bool(torch.isfinite(loss)), model.training))
    idx = model.generate(torch.zeros((1, 1), dtype=torch.long), max_new_tokens=12)
    out("generated", summary(idx))


def snip_estimate_loss_and_adamw(torch, out):
    vocab_size, encode, _ = vocabulary()
    model = set_params(torch, gpt(torch, vocab_size, dropout=0.0))
    data = torch.tensor(encode(TEXT), dtype=torch.long)
    starts = {"train": (0, 9, 30, 51), "val": (100, 120, 140, 160)}

    def get_batch(split):
        x = torch.stack([data[i : i + 8] for i in starts[split]])
        y = torch.stack([data[i + 1 : i + 9] for i in starts[split]])
        return x, y

    @torch.no_grad()
    def estimate_loss():
        result = {}
        model.eval()
        for split in ["train", "val"]:
            losses = torch.zeros(2)
            for k in range(2):
                X, Y = get_batch(split)
                _, loss = model(X, Y)
                losses[k] = loss.item()
            result[split] = losses.mean()
        model.train()
        return result

    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    history = []
    for step in range(4):
        if step % 2 == 0:
            losses = estimate_loss()
            history.append(f"step {step}: train {losses['train']:.4f}, val {losses['val']:.4f}")
        xb, yb = get_batch("train")
        _, loss = model(xb, yb)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    out("history", history)
    out("after", (loss, model.lm_head.bias[:4], model.training, losses["val"].requires_grad))


def snip_nanogpt_patterns(torch, out):
    """The follow-up repository's idioms: fused qkv split into heads, GELU MLP, ModuleDict,
    weight tying, decay/no-decay AdamW groups, top-k sampling with a temperature."""
    nn, F = torch.nn, torch.nn.functional
    B, T, C, n_head, vocab = 2, 5, 8, 2, 11
    transformer = nn.ModuleDict(
        dict(
            wte=nn.Embedding(vocab, C),
            wpe=nn.Embedding(T, C),
            h=nn.ModuleList([nn.Linear(C, 3 * C), nn.Linear(C, C)]),
            ln_f=nn.LayerNorm(C, bias=False),
        )
    )
    lm_head = nn.Linear(C, vocab, bias=False)
    transformer.wte.weight = lm_head.weight
    mlp = nn.Sequential(nn.Linear(C, 4 * C), nn.GELU(), nn.Linear(4 * C, C), nn.Dropout(0.0))
    model = nn.ModuleDict(dict(transformer=transformer, lm_head=lm_head, mlp=mlp))
    set_params(torch, model)
    out("tied", (transformer.wte.weight is lm_head.weight, len(list(model.parameters()))))
    idx = torch.tensor([[1, 4, 2, 9, 0], [3, 3, 7, 10, 5]])
    pos = torch.arange(0, T, dtype=torch.long)
    x = transformer.wte(idx) + transformer.wpe(pos)
    q, k, v = transformer.h[0](x).split(C, dim=2)
    k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
    q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
    v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    bias = torch.tril(torch.ones(T, T)).view(1, 1, T, T)
    att = F.softmax(att.masked_fill(bias[:, :, :T, :T] == 0, float("-inf")), dim=-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    x = x + transformer.h[1](y)
    x = x + mlp(x)
    logits = lm_head(transformer.ln_f(x))
    targets = torch.tensor([[4, 2, 9, 0, -1], [3, 7, 10, 5, -1]])
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
    out("forward", (att[0, 0], logits[0, -1], loss))
    param_dict = {pn: p for pn, p in model.named_parameters() if p.requires_grad}
    decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
    nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
    optim_groups = [
        {"params": decay_params, "weight_decay": 0.1},
        {"params": nodecay_params, "weight_decay": 0.0},
    ]
    out("groups", (sum(p.numel() for p in decay_params), sum(p.numel() for p in nodecay_params)))
    fused_available = "fused" in inspect.signature(torch.optim.AdamW).parameters
    optimizer = torch.optim.AdamW(optim_groups, lr=6e-4, betas=(0.9, 0.95))
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    out("step", (fused_available, norm, lm_head.weight[0], transformer.wte.weight.grad is None))
    with torch.no_grad():
        top_logits = logits[:, -1, :] / 0.8
        v, _ = torch.topk(top_logits, min(3, top_logits.size(-1)))
        top_logits[top_logits < v[:, [-1]]] = -float("Inf")
        probs = F.softmax(top_logits, dim=-1)
        out("top-k", ((probs > 0).sum(-1), probs.sum(-1)))
        idx_next = torch.multinomial(probs, num_samples=1)
        out("next", (summary(idx_next), bool((probs.gather(1, idx_next) > 0).all())))


def snip_nanogpt_training_setup(torch, out):
    """nanoGPT's train.py on a CPU: TF32 flags, the dtype table, a disabled GradScaler."""
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    device_type, dtype = "cpu", "float32"
    ptdtype = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[
        dtype
    ]
    ctx = (
        nullcontext()
        if device_type == "cpu"
        else torch.amp.autocast(device_type=device_type, dtype=ptdtype)
    )
    scaler = torch.amp.GradScaler(device_type, enabled=(dtype == "float16"))
    model = set_params(torch, torch.nn.Linear(4, 2))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    with ctx:
        loss = model(torch.ones(3, 4)).square().mean()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    out("trained", (loss, model.bias, scaler.is_enabled()))


NEEDS: dict[str, str] = {}


@parametrize(globals(), xfail=NEEDS)
def test_gpt_lecture(lib, snippet):
    check(snippet, lib)
