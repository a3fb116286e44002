"""Learn the Basics, "Save and Load the Model", and the checkpointing recipe: state dicts of a
model and of its optimizer through torch.save / torch.load (weights_only), load_state_dict
into a fresh model, eval() before inference, resuming training from a checkpoint dict.
Each library reads back only its own files, so every snippet writes to a temporary folder."""

from __future__ import annotations

import os
import tempfile

from ._support import check, fixed, parametrize, set_params


def net(torch):
    return set_params(
        torch,
        torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2)),
    )


def snip_state_dict_round_trip(torch, out):
    model = net(torch)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model_weights.pth")
        torch.save(model.state_dict(), path)
        fresh = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
        result = fresh.load_state_dict(torch.load(path, weights_only=True))
        out("missing and unexpected keys", (result.missing_keys, result.unexpected_keys))
    fresh.eval()
    out("same weights", [torch.equal(a, b) for a, b in zip(model.parameters(), fresh.parameters())])
    out("parameters stay parameters", [type(p).__name__ for p in fresh.parameters()])
    out("eval flag", (fresh.training, fresh[0].training))
    x = fixed(torch, 2, 3)
    out("same predictions", fresh(x))


def snip_state_dict_contents(torch, out):
    model = net(torch)
    state = model.state_dict()
    out("keys", list(state.keys()))
    out("values are detached", [(v.requires_grad, v.grad_fn is None) for v in state.values()])
    out("type", type(state).__name__)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "sd.pt")
        torch.save(state, path)
        loaded = torch.load(path)
    out("loaded", [(k, v) for k, v in loaded.items()])
    out("loaded type", type(loaded).__name__)


def snip_load_into_the_wrong_model(torch, out):
    model = net(torch)
    other = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    with out.raises("size mismatch"):
        other.load_state_dict(model.state_dict())
    smaller = torch.nn.Sequential(torch.nn.Linear(3, 4))
    with out.raises("unexpected keys"):
        smaller.load_state_dict(model.state_dict())
    result = smaller.load_state_dict(model.state_dict(), strict=False)
    out("strict=False", (result.missing_keys, result.unexpected_keys))


def snip_resume_from_a_checkpoint(torch, out):
    model = net(torch)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = fixed(torch, 5, 3), fixed(torch, 5, 2, scale=0.5)

    def train_step(m, opt):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    for _ in range(2):
        loss = train_step(model, optimizer)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "checkpoint.tar")
        torch.save(
            {
                "epoch": 2,
                "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(),
                "loss": loss,
            },
            path,
        )
        checkpoint = torch.load(path, weights_only=True)
    resumed = net(torch)
    resumed_opt = torch.optim.SGD(resumed.parameters(), lr=0.05, momentum=0.9)
    resumed.load_state_dict(checkpoint["model_state_dict"])
    resumed_opt.load_state_dict(checkpoint["optimizer_state_dict"])
    out("epoch and loss", (checkpoint["epoch"], checkpoint["loss"]))
    out("optimizer state", sorted(checkpoint["optimizer_state_dict"].keys()))
    resumed.train()
    out("both continue alike", (train_step(model, optimizer), train_step(resumed, resumed_opt)))
    out(
        "same parameters",
        [torch.equal(a, b) for a, b in zip(model.parameters(), resumed.parameters())],
    )


def snip_whole_model_needs_weights_only_false(torch, out):
    model = net(torch)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.pth")
        torch.save(model, path)
        with out.raises("weights_only refuses a pickled Module"):
            torch.load(path)
        loaded = torch.load(path, weights_only=False)
    out("a Sequential again", (type(loaded).__name__, len(loaded)))
    out("predictions", loaded(fixed(torch, 2, 3)))


@parametrize(globals())
def test_saveloadrun(lib, snippet):
    check(snippet, lib)
