""" "Visualizing Gradients": leaves and non-leaves, retain_grad and retains_grad, walking grad_fn,
then a deep Linear/norm/Sigmoid net whose every leaf module gets a forward hook that hangs a
gradient hook on its output; the collected gradients give the mean |grad| per layer. Also the
alternatives the tutorial names: module backward hooks and post-accumulate-grad hooks."""

from __future__ import annotations

from ._support import check, fixed, parametrize


def snip_leaves_and_retain_grad(torch, out):
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = a * 3
    c = b * b
    d = c.mean()
    out("is_leaf", (a.is_leaf, b.is_leaf, c.is_leaf, d.is_leaf))
    b.retain_grad()
    a.retain_grad()  # a no-op on a leaf
    out("retains_grad", (a.retains_grad, b.retains_grad, c.retains_grad))
    d.backward()
    out("leaf grad", a.grad)
    out("retained grad", b.grad)
    with out.warns("a non-leaf's .grad is None"):
        out("c.grad", c.grad)
    out("grad_fn chain", (d.grad_fn.name(), d.grad_fn.next_functions[0][0].name()))
    mul_b = d.grad_fn.next_functions[0][0].next_functions[0][0]
    out("to the leaf", [(n and n.name(), nr) for n, nr in mul_b.next_functions])
    out("which holds a", mul_b.next_functions[0][0].variable is a)
    with out.raises("retain_grad on a tensor that does not require grad"):
        torch.ones(2).retain_grad()


def snip_retain_grad_and_hooks_order(torch, out):
    x = torch.tensor([1.0, -1.0], requires_grad=True)
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(("before retain_grad", g.clone())))
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    (y * y).sum().backward()
    out("hooks saw", seen)
    out("retained grad is the one hooks returned", y.grad)
    out("leaf grad", x.grad)


def fc_layer(nn, in_size, out_size, norm_layer):
    return nn.Sequential(nn.Linear(in_size, out_size), norm_layer(out_size), nn.Sigmoid())


def make_net(torch, batchnorm):
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self, in_size=4 * 4, hidden_size=8, out_size=3, num_layers=3):
            super().__init__()
            norm_layer = nn.BatchNorm1d if batchnorm else nn.Identity
            layers = [fc_layer(nn, in_size, hidden_size, norm_layer)]
            for _ in range(num_layers - 1):
                layers.append(fc_layer(nn, hidden_size, hidden_size, norm_layer))
            layers.append(nn.Linear(hidden_size, out_size))
            self.layers = nn.Sequential(*layers)

        def forward(self, x):
            x = torch.flatten(x, 1)
            return self.layers(x)

    model = Net()
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(fixed(torch, *p.shape, scale=1.5 / (i % 4 + 1)))
    return model


def get_all_layers(model, hook_forward, hook_backward):
    layers = {}
    grads = []
    for name, layer in model.named_modules():
        if any(layer.children()) is False:
            layers[layer] = name
            layer.register_forward_hook(hook_forward(name, grads, hook_backward))
    return layers, grads


def hook_forward(module_name, grads, hook_backward):
    def hook(module, args, output):
        output.register_hook(hook_backward(module_name, grads))

    return hook


def hook_backward(module_name, grads):
    def hook(grad):
        grads.append((module_name, grad))

    return hook


def get_grads(grads):
    layer_idx, avg_grads = [], []
    for idx, (_name, grad) in enumerate(grads):
        if grad is not None:
            avg_grads.append(grad.abs().mean())
            layer_idx.append(len(grads) - 1 - idx)
    return layer_idx, avg_grads


def train_with_hooks(torch, out, batchnorm):
    F = torch.nn.functional
    x = fixed(torch, 6, 4, 4, scale=2.0)
    y = torch.tensor([0, 2, 1, 1, 0, 2])
    model = make_net(torch, batchnorm)
    model.train()
    out("a block", repr(model.layers[0]))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    layers, grads = get_all_layers(model, hook_forward, hook_backward)
    out("hooked layers", sorted(layers.values()))
    for _ in range(3):
        grads.clear()
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
    out("order the gradients arrived in", [name for name, _ in grads])
    out("mean |grad| per layer", get_grads(grads))
    out("loss", loss)


def snip_gradient_flow_without_batchnorm(torch, out):
    train_with_hooks(torch, out, batchnorm=False)


def snip_gradient_flow_with_batchnorm(torch, out):
    train_with_hooks(torch, out, batchnorm=True)


def snip_full_backward_hooks(torch, out):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Sigmoid(), nn.Linear(4, 2))
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(fixed(torch, *p.shape, scale=1.0 / (i + 1)))
    seen = []

    def hook(module, grad_input, grad_output):
        seen.append((type(module).__name__, grad_input, grad_output))

    handles = [m.register_full_backward_hook(hook) for m in model]
    x = fixed(torch, 2, 3).requires_grad_(True)
    model(x).sum().backward()
    out("grad_input and grad_output per module", seen)
    for h in handles:
        h.remove()
    seen.clear()
    model(x).sum().backward()
    out("removed", seen)


def snip_module_pre_hooks(torch, out):
    nn = torch.nn
    layer = nn.Linear(2, 2)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
        layer.bias.zero_()
    seen = []

    def scale_input(module, args):
        seen.append(("forward pre-hook", args[0].shape))
        return (args[0] * 2,)

    def look_at_output(module, args, output):
        seen.append(("forward hook", output.detach().clone()))

    def scale_grad_output(module, grad_output):
        seen.append(("backward pre-hook", grad_output[0].clone()))
        return (grad_output[0] * 0.5,)

    handles = [
        layer.register_forward_pre_hook(scale_input),
        layer.register_forward_hook(look_at_output),
        layer.register_full_backward_pre_hook(scale_grad_output),
    ]
    x = torch.tensor([[1.0, -1.0]], requires_grad=True)
    layer(x).sum().backward()
    out("hooks", seen)
    out("grads shaped by the hooks", (x.grad, layer.weight.grad))
    for handle in handles:
        handle.remove()
    out("plain again", layer(x))


def snip_post_accumulate_grad_hook(torch, out):
    model = torch.nn.Linear(3, 2)
    with torch.no_grad():
        model.weight.copy_(fixed(torch, 2, 3))
        model.bias.zero_()
    norms = {}

    def record_norm(param):
        norms[tuple(param.shape)] = param.grad.norm()

    for p in model.parameters():
        p.register_post_accumulate_grad_hook(record_norm)
    model(fixed(torch, 4, 3)).pow(2).sum().backward()
    out("norms of the accumulated grads", sorted(norms.items()))
    with out.raises("only on leaves"):
        (model.weight * 2).register_post_accumulate_grad_hook(record_norm)


@parametrize(globals())
def test_visualizing_gradients(lib, snippet):
    check(snippet, lib)
