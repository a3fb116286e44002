""" "Hooks for autograd saved tensors" (and the matching section of the autograd notes): what a
graph saves (_saved_self, _saved_result), pack/unpack hooks that log, scale, index a list,
return a tuple or a string, keep tensors "on the CPU" (save_on_cpu, a wrapping Module) or on
disk (torch.save / torch.load in a temporary folder, files deleted with the graph), and hooks
registered on one saved tensor (_raw_saved_self.register_hooks)."""

from __future__ import annotations

import gc
import os
import tempfile
import uuid

from ._support import check, fixed, parametrize, set_params


def snip_what_the_graph_saves(torch, out):
    a = fixed(torch, 5).requires_grad_(True)
    b = torch.ones(5, requires_grad=True)
    y = a * b
    out("saved self and other", (y.grad_fn._saved_self, y.grad_fn._saved_other))
    out("the very same objects", (y.grad_fn._saved_self is a, y.grad_fn._saved_other is b))
    e = torch.exp(a)
    out("an output is saved", (e.grad_fn._saved_result.equal(e), e.grad_fn._saved_result is e))

    def f(x):
        return x * x

    x = fixed(torch, 5, scale=2.0).requires_grad_(True)
    y = f(f(f(x)))
    chain = []
    node = y.grad_fn
    while node is not None and hasattr(node, "_saved_self"):
        chain.append(node._saved_self)
        node = node.next_functions[0][0]
    out("f(f(f(x))) keeps every intermediate", chain)


def snip_logging_hooks(torch, out):
    log = []

    def pack_hook(x):
        log.append(("pack", x.detach().clone()))
        return x

    def unpack_hook(x):
        log.append(("unpack", x.detach().clone()))
        return x

    a = torch.ones(5, requires_grad=True)
    b = torch.ones(5, requires_grad=True) * 2
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = a * b
    out("packed at the forward", [label for label, _ in log])
    y.sum().backward()
    out("unpacked at the backward", log)
    out("grads", (a.grad, b.grad is None))


def snip_scaling_hooks(torch, out):
    x = fixed(torch, 5).requires_grad_(True)
    with torch.autograd.graph.saved_tensors_hooks(lambda x: x * 4, lambda x: x / 4):
        y = torch.pow(x, 2)
    y.sum().backward()
    out("grad", (x.grad, x.grad.equal(2 * x)))


def snip_pack_to_a_list_index(torch, out):
    storage = []

    def pack(x):
        storage.append(x)
        return len(storage) - 1

    def unpack(i):
        return storage[i]

    x = fixed(torch, 5).requires_grad_(True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()
    out("grad", (x.grad.equal(2 * x), len(storage)))


def snip_pack_to_a_tuple(torch, out):
    def pack(x):
        delta = fixed(torch, *x.size(), scale=0.1)
        return x - delta, lambda x: x + delta

    def unpack(packed):
        x, f = packed
        return f(x)

    x = fixed(torch, 5).requires_grad_(True)
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x * x
    y.sum().backward()
    out("grad", (torch.allclose(x.grad, 2 * x), x.grad))


def snip_pack_to_a_string(torch, out):
    x = torch.tensor([0.5, -1.25, 2.0, 0.0, 3.5], requires_grad=True)
    unpack = lambda s: eval("torch." + s, {"torch": torch})  # noqa: E731
    with torch.autograd.graph.saved_tensors_hooks(repr, unpack):
        y = x * x
    out("what was kept", y.grad_fn._saved_self)
    y.sum().backward()
    out("grad", (x.grad, torch.all(x.grad - 2 * x <= 1e-4)))


def snip_pack_to_cpu(torch, out):
    def pack_hook(x):
        return (x.device, x.cpu())

    def unpack_hook(packed):
        device, tensor = packed
        return tensor.to(device)

    x = fixed(torch, 5).requires_grad_(True)
    with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = x * x
    y.sum().backward()
    out("grad", torch.allclose(x.grad, 2 * x))


def snip_save_on_cpu(torch, out):
    nn = torch.nn

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(fixed(torch, 5))

        def forward(self, x):
            with torch.autograd.graph.save_on_cpu(pin_memory=True):
                return self.w * x

    class SaveToCpu(nn.Module):
        def __init__(self, module):
            super().__init__()
            self.module = module

        def forward(self, *args, **kwargs):
            with torch.autograd.graph.save_on_cpu(pin_memory=True):
                return self.module(*args, **kwargs)

    model = Model()
    loss = model(fixed(torch, 5, scale=3.0)).sum()
    loss.backward()
    out("Model", model.w.grad)
    model = set_params(
        torch, nn.Sequential(nn.Linear(4, 6), SaveToCpu(nn.Linear(6, 6)), nn.Linear(6, 2))
    )
    loss = model(fixed(torch, 4)).sum()
    loss.backward()
    out("wrapped layer", [p.grad for p in model.parameters()])
    out("repr", repr(model))


class SelfDeletingTempFile:
    def __init__(self, folder):
        self.name = os.path.join(folder, str(uuid.uuid4()))

    def __del__(self):
        os.remove(self.name)


def snip_save_to_disk(torch, out):
    with tempfile.TemporaryDirectory() as folder:

        def pack_hook(tensor):
            temp_file = SelfDeletingTempFile(folder)
            torch.save(tensor, temp_file.name)
            return temp_file

        def unpack_hook(temp_file):
            return torch.load(temp_file.name)

        x = fixed(torch, 5).requires_grad_(True)
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = x.pow(2)
        out("one file while the graph lives", len(os.listdir(folder)))
        out("read back", y.grad_fn._saved_self)
        y.sum().backward()
        gc.collect()
        out("grad", x.grad)
        out("backward freed the file", os.listdir(folder))


def snip_unpack_that_deletes_fails_twice(torch, out):
    with tempfile.TemporaryDirectory() as folder:

        def pack_hook(tensor):
            name = os.path.join(folder, str(uuid.uuid4()))
            torch.save(tensor, name)
            return name

        def unpack_hook(name):
            tensor = torch.load(name)
            os.remove(name)
            return tensor

        x = torch.ones(5, requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = x.pow(2)
        out("first access", y.grad_fn._saved_self)
        try:
            y.grad_fn._saved_self  # noqa: B018
        except OSError as error:  # its message names a random file
            out("second access: the file is gone", type(error).__name__)


def snip_save_to_disk_above_a_threshold(torch, out):
    nn = torch.nn
    threshold = 10
    with tempfile.TemporaryDirectory() as folder:
        written = []

        def pack_hook(x):
            if x.numel() < threshold:
                return x
            temp_file = SelfDeletingTempFile(folder)
            torch.save(x, temp_file.name)
            written.append(tuple(x.shape))
            return temp_file

        def unpack_hook(tensor_or_sctf):
            if isinstance(tensor_or_sctf, torch.Tensor):
                return tensor_or_sctf
            return torch.load(tensor_or_sctf.name)

        class SaveToDisk(nn.Module):
            def __init__(self, module):
                super().__init__()
                self.module = module

            def forward(self, *args, **kwargs):
                with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
                    return self.module(*args, **kwargs)

        model = SaveToDisk(set_params(torch, nn.Linear(8, 3)))
        loss = model(fixed(torch, 4, 8)).pow(2).sum()
        out("only large tensors went to disk", sorted(written))
        loss.backward()
        out("grads", [p.grad for p in model.parameters()])


def snip_hooks_on_one_saved_tensor(torch, out):
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    seen = []
    y.grad_fn._raw_saved_self.register_hooks(
        lambda t: (seen.append("pack"), t * 10)[1], lambda t: (seen.append("unpack"), t / 10)[1]
    )
    out("packed at once", seen)
    out("reads through unpack", y.grad_fn._saved_self)
    with out.raises("registering twice"):
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    y.sum().backward()
    out("grad", (x.grad, seen))
    with out.raises("after the graph was freed"):
        y.grad_fn._saved_self  # noqa: B018


def snip_hook_errors(torch, out):
    x = torch.ones(3, requires_grad=True)
    with out.raises("unpack must return a tensor"):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: "no tensor"):
            y = x * x
        y.sum().backward()
    with out.raises("pack returns an input, unpack a wrong shape"):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t[:2]):
            y = x * x
        y.sum().backward()


@parametrize(globals())
def test_saved_tensors_hooks(lib, snippet):
    check(snippet, lib)
