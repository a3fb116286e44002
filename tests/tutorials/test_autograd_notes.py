"""The "Autograd mechanics" notes, as code: requires_grad propagation and freezing part of a
model, the grad modes as blocks, decorators and functions (no_grad, enable_grad,
set_grad_enabled, inference_mode), evaluation mode being something else, nn.init under
no_grad, the in-place correctness check, freed graphs, backward in several threads, and the
order in which tensor, node and accumulation hooks run."""

from __future__ import annotations

import threading

from ._support import check, fixed, parametrize, set_params


def snip_requires_grad_propagates(torch, out):
    x = fixed(torch, 5, 5)
    y = fixed(torch, 5, 5, scale=0.5)
    z = fixed(torch, 5, 5, scale=2.0).requires_grad_(True)
    a = x + y
    b = a + z
    out("a, b", (a.requires_grad, b.requires_grad))
    with out.raises("integer tensors cannot require grad"):
        torch.tensor([1, 2]).requires_grad_()
    out("non-leaf requires_grad is always True", (b.is_leaf, b.requires_grad))


def snip_freeze_with_module_requires_grad_(torch, out):
    nn = torch.nn
    model = set_params(torch, nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 3)))
    returned = model.requires_grad_(False)
    out("returns the module", returned is model)
    model[2] = set_params(torch, nn.Linear(5, 2))  # a new head trains by default
    out("flags", [(name, p.requires_grad) for name, p in model.named_parameters()])
    optimizer = torch.optim.SGD(model[2].parameters(), lr=1e-2, momentum=0.9)
    before = model[0].weight.detach().clone()
    loss = model(fixed(torch, 3, 4)).pow(2).sum()
    loss.backward()
    optimizer.step()
    out("frozen untouched, no grad", (torch.equal(model[0].weight, before), model[0].weight.grad))
    out("head trained", model[2].weight)
    model.requires_grad_()
    out("requires_grad_() turns all back on", all(p.requires_grad for p in model.parameters()))


def snip_grad_mode_blocks_and_functions(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.no_grad():
        a = x * 2
        with torch.enable_grad():
            b = x * 2
    out("nested", (a.requires_grad, b.requires_grad, torch.is_grad_enabled()))
    is_train = False
    with torch.set_grad_enabled(is_train):
        c = x * 2
    out("set_grad_enabled(flag)", c.requires_grad)
    torch.set_grad_enabled(False)
    d = x * 2
    torch.set_grad_enabled(True)
    out("set_grad_enabled as a call", (d.requires_grad, torch.is_grad_enabled()))
    with torch.no_grad():
        x2 = x * 1
    out("made in no_grad, used after", ((x2 * x).requires_grad, x2.requires_grad))


def snip_grad_mode_decorators(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    @torch.no_grad()
    def frozen(t):
        return t * 2

    @torch.enable_grad()
    def tracked(t):
        return t * 2

    @torch.inference_mode()
    def inferred(t):
        return t * 2

    @torch.inference_mode(False)
    def not_inferred(t):
        return t * 2

    out("no_grad", (frozen(x).requires_grad, frozen.__name__))
    with torch.no_grad():
        out("enable_grad inside no_grad", tracked(x).requires_grad)
    out("inference_mode()", (inferred(x).requires_grad, inferred(x).is_inference()))
    with torch.inference_mode():
        out("inference_mode(False) inside", not_inferred(x).is_inference())
    out("modes restored", (torch.is_grad_enabled(), torch.is_inference_mode_enabled()))


def snip_set_grad_enabled_as_a_decorator(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)

    @torch.set_grad_enabled(False)
    def switched_off(t):
        return t * 2

    out("decorating leaves the mode alone", torch.is_grad_enabled())
    out("the call runs without grad", (switched_off(x).requires_grad, torch.is_grad_enabled()))


def snip_inference_mode(torch, out):
    w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    x = fixed(torch, 3)
    with torch.inference_mode():
        y = x * 2
        out("inside", (torch.is_inference_mode_enabled(), torch.is_grad_enabled()))
        out("tensors made inside", (y.is_inference(), y.requires_grad, (w * 2).requires_grad))
    out("outside", (torch.is_inference_mode_enabled(), y.is_inference(), x.is_inference()))
    with out.raises("an inference tensor saved for backward"):
        (y * w).sum().backward()
    z = y.clone()
    (z * w).sum().backward()
    out("a clone is a normal tensor", (z.is_inference(), w.grad))
    with out.raises("in-place on an inference tensor outside inference mode"):
        y.add_(1)


def snip_eval_mode_is_not_no_grad(torch, out):
    nn = torch.nn
    model = set_params(torch, nn.Sequential(nn.Linear(3, 3), nn.Dropout(p=0.5)))
    model.eval()
    x = fixed(torch, 2, 3)
    y = model(x)
    out("eval: dropout is the identity, graph still recorded", (y, y.requires_grad))
    out("flags", (model.training, model[1].training))
    model.train()
    out("train() again", (model.training, model[1].training))
    out("train(False) is eval()", model.train(False).training)


def snip_nn_init_runs_without_recording(torch, out):
    nn = torch.nn
    layer = nn.Linear(3, 2)
    returned = nn.init.constant_(layer.weight, 0.25)
    nn.init.zeros_(layer.bias)
    out("values", (layer.weight, layer.bias))
    out("still leaves", (returned is layer.weight, layer.weight.grad_fn, layer.weight.is_leaf))
    nn.init.ones_(layer.bias)
    nn.init.eye_(layer.weight)
    out("ones_ and eye_", (layer.bias, layer.weight))
    w = torch.empty(4, 5)
    nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("relu"))
    bound = nn.init.calculate_gain("relu") * (6 / (4 + 5)) ** 0.5
    out("xavier bound", bool((w.abs() <= bound).all()))
    nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    out("kaiming_normal_ shape", w.shape)
    out("gains", [nn.init.calculate_gain(n) for n in ("linear", "sigmoid", "tanh", "relu")])


def snip_inplace_correctness_check(torch, out):
    x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x.sigmoid()
    out("version before", y._version)
    y.mul_(2)
    out("version after", y._version)
    with out.raises("sigmoid's saved output was modified"):
        y.sum().backward()
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    c = b.detach()
    d = b**2
    c.zero_()  # shares b's data and version counter
    with out.raises("modified through a detached alias"):
        d.sum().backward()


def snip_graph_freed_after_backward(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x.pow(2)
    out("saved before", y.grad_fn._saved_self)
    y.sum().backward()
    with out.raises("saved tensors after backward"):
        y.grad_fn._saved_self  # noqa: B018
    with out.raises("backward again"):
        y.sum().backward()
    z = x.exp()
    z.sum().backward(retain_graph=True)
    z.sum().backward()
    out("retain_graph keeps it for one more pass", x.grad)


def snip_backward_in_threads(torch, out):
    results = [None] * 4

    def train_fn(i):
        x = torch.ones(5, 5, requires_grad=True)
        y = (x + 3) * (x + 4) * 0.5 * (i + 1)
        y.sum().backward()
        results[i] = x.grad

    threads = [threading.Thread(target=train_fn, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out("every thread got its own gradient", results)
    shared = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (shared * shared).sum()
    grads = [None] * 3

    def grad_fn(i):
        (grads[i],) = torch.autograd.grad(y, shared, retain_graph=True)

    threads = [threading.Thread(target=grad_fn, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out("grad() on a shared graph", grads)


def snip_hooks_fire_only_when_used(torch, out):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x * 3
    fired = []
    a.register_hook(lambda g: fired.append("a"))
    b.register_hook(lambda g: fired.append("b"))
    torch.autograd.grad(a.sum(), x, retain_graph=True)
    out("only a's hook", fired)
    fired.clear()
    (a.sum() + b.sum()).backward(inputs=[x])
    out("both", sorted(fired))


def snip_hook_order(torch, out):
    log = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    z = y.sin()
    y.register_hook(lambda g: log.append("tensor hook on y"))
    y.grad_fn.register_prehook(lambda gs: log.append("pre-hook of y.grad_fn"))
    y.grad_fn.register_hook(lambda gi, go: log.append("post-hook of y.grad_fn"))
    y.retain_grad()
    x.register_hook(lambda g: (log.append("tensor hook on leaf x"), g * 10)[1])
    x.register_post_accumulate_grad_hook(lambda p: log.append(("after accumulation", p.grad)))
    z.sum().backward()
    out("order", log)
    out("x.grad is what the leaf hook returned", (x.grad, y.grad))


def snip_hooks_and_inplace(torch, out):
    log = []
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1
    y.register_hook(lambda g: log.append(("registered before mul_", g.clone())))
    y.mul_(3)
    y.register_hook(lambda g: log.append(("registered after mul_", g.clone())))
    (y * torch.tensor([1.0, 10.0])).sum().backward()
    out("each hook sees its own version", log)
    out("grad", x.grad)


@parametrize(globals())
def test_autograd_notes(lib, snippet):
    check(snippet, lib)
