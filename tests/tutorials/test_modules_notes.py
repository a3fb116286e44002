"""The "Modules" notes: a hand-made Linear with nn.Parameter, composing modules (Sequential,
ModuleList, an OrderedDict, add_module), walking children / named_modules, apply() for
initialization, buffers (persistent or not) and what state_dict holds, train/eval, changing
dtype with to()/double(), freezing, and the module hooks (forward pre-hook, forward hook,
full backward hook) that the notes list."""

from __future__ import annotations

from collections import OrderedDict

from ._support import check, fixed, parametrize, set_params


def my_linear(torch):
    nn = torch.nn

    class MyLinear(nn.Module):
        def __init__(self, in_features, out_features):
            super().__init__()
            self.weight = nn.Parameter(fixed(torch, in_features, out_features))
            self.bias = nn.Parameter(fixed(torch, out_features, scale=0.5))

        def forward(self, input):
            return (input @ self.weight) + self.bias

    return MyLinear


def snip_a_module_by_hand(torch, out):
    MyLinear = my_linear(torch)
    m = MyLinear(4, 3)
    sample_input = fixed(torch, 4, scale=2.0)
    y = m(sample_input)
    out("output", (y, y.grad_fn.name()))
    out("named_parameters", [(n, p.shape, p.requires_grad) for n, p in m.named_parameters()])
    out("a Parameter is a Tensor", (isinstance(m.weight, torch.Tensor), type(m.weight).__name__))
    out("repr of a parameter", repr(torch.nn.Parameter(torch.tensor([1.0, 2.0]))))
    frozen = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    out("requires_grad=False", (frozen.requires_grad, frozen.is_leaf))
    out("number of parameters", sum(p.numel() for p in m.parameters()))


def snip_composing_modules(torch, out):
    nn = torch.nn
    MyLinear = my_linear(torch)
    net = nn.Sequential(MyLinear(4, 3), nn.ReLU(), MyLinear(3, 1))
    out("sequential", (net(fixed(torch, 4)), len(net), type(net[1]).__name__))
    named = nn.Sequential(OrderedDict([("l0", nn.Linear(2, 3)), ("act", nn.Tanh())]))
    out("OrderedDict names", [name for name, _ in named.named_children()])
    out("access by name", type(named.act).__name__)

    class DynamicNet(nn.Module):
        def __init__(self, num_layers):
            super().__init__()
            self.linears = nn.ModuleList([MyLinear(4, 4) for _ in range(num_layers)])
            self.final = MyLinear(4, 1)

        def forward(self, x):
            for linear in self.linears:
                x = linear(x).relu()
            return self.final(x)

    dynamic = DynamicNet(3)
    out("ModuleList", dynamic(fixed(torch, 4)))
    out("children", [name for name, _ in dynamic.named_children()])
    out("named_modules", [name for name, _ in dynamic.named_modules()])
    out("parameters", [name for name, _ in dynamic.named_parameters()])


def snip_module_dict(torch, out):
    nn = torch.nn
    activations = nn.ModuleDict({"relu": nn.ReLU(), "tanh": nn.Tanh()})
    activations["sigmoid"] = nn.Sigmoid()
    x = torch.tensor([-1.0, 0.5])
    out("by key", [(key, activations[key](x)) for key in activations])
    out("dict-like", (len(activations), "tanh" in activations, list(activations.keys())))
    out("repr", repr(activations))
    activations.update([("identity", nn.Identity())])
    out("pop", (type(activations.pop("relu")).__name__, list(activations)))
    holder = nn.Module()
    holder.heads = nn.ModuleDict({"a": nn.Linear(2, 1), "b": nn.Linear(2, 3)})
    out("parameters registered", [name for name, _ in holder.named_parameters()])
    with out.raises("a pair of the wrong length"):
        activations.update([("x",)])


def snip_add_module_and_children(torch, out):
    nn = torch.nn
    net = nn.Module()
    net.add_module("first", nn.Linear(2, 2))
    net.register_module("second", nn.ReLU())
    out("children", [type(c).__name__ for c in net.children()])
    out("modules", [type(m).__name__ for m in net.modules()])
    out("get_submodule", type(net.get_submodule("first")).__name__)
    out("get_parameter", net.get_parameter("first.bias").shape)
    with out.raises("a non-module"):
        net.add_module("third", torch.ones(2))


def snip_apply_for_initialization(torch, out):
    nn = torch.nn
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    visited = []

    @torch.no_grad()
    def init_weights(m):
        visited.append(type(m).__name__)
        if isinstance(m, nn.Linear):
            nn.init.constant_(m.weight, 0.2)
            m.bias.fill_(0.01)

    returned = net.apply(init_weights)
    out("children first, then the container", (visited, returned is net))
    out("weights", [p for p in net.parameters()])
    out("still leaves", [(p.is_leaf, p.grad_fn) for p in net.parameters()])


def snip_buffers(torch, out):
    nn = torch.nn

    class RunningMean(nn.Module):
        def __init__(self, num_features, momentum=0.9):
            super().__init__()
            self.momentum = momentum
            self.register_buffer("mean", torch.zeros(num_features))
            self.register_buffer("scratch", torch.ones(num_features), persistent=False)

        def forward(self, x):
            self.mean = self.momentum * self.mean + (1.0 - self.momentum) * x
            return self.mean

    m = RunningMean(3)
    for step in range(3):
        m(fixed(torch, 3) * (step + 1))
    out("mean", m.mean)
    out("buffers", [(name, b.shape) for name, b in m.named_buffers()])
    out("state_dict holds persistent buffers only", list(m.state_dict().keys()))
    out("no parameters", list(m.parameters()))
    out("buffer needs no grad", m.mean.requires_grad)


def snip_state_dict_of_a_composite(torch, out):
    nn = torch.nn
    net = set_params(torch, nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)))
    state = net.state_dict()
    out("keys", list(state.keys()))
    out("values", list(state.values()))
    clone = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    clone.load_state_dict(state)
    x = fixed(torch, 5, 2)
    out("same outputs", torch.equal(net(x), clone(x)))
    out("load copies, it does not share", clone[0].weight is net[0].weight)


def snip_training_and_evaluation_modes(torch, out):
    nn = torch.nn

    class ModalModule(nn.Module):
        def forward(self, x):
            return x + 1 if self.training else x - 1

    m = ModalModule()
    x = torch.zeros(2)
    out("train", (m(x), m.training))
    m.eval()
    out("eval", (m(x), m.training))
    net = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.9))
    out("eval() reaches submodules", [sub.training for sub in net.eval().modules()])


def snip_changing_dtype(torch, out):
    nn = torch.nn
    net = set_params(torch, nn.Linear(2, 2))
    net.to(torch.float64)
    out("to(float64)", [p.dtype for p in net.parameters()])
    out("float64 input", net(torch.ones(1, 2, dtype=torch.float64)).dtype)
    net.float()
    out("float()", [p.dtype for p in net.parameters()])
    net.double()
    out("double()", [p.dtype for p in net.parameters()])
    out("still parameters", [type(p).__name__ for p in net.parameters()])
    net.to(dtype=torch.float32)
    with out.raises("a float64 input into a float32 layer"):
        net(torch.ones(1, 2, dtype=torch.float64))


def snip_module_hooks_from_the_notes(torch, out):
    nn = torch.nn
    log = []

    def forward_pre_hook(m, inputs):
        log.append("forward pre-hook")
        return (inputs[0] + 1,)

    def forward_hook(m, inputs, output):
        log.append("forward hook")
        return output * 2

    def backward_hook(m, grad_inputs, grad_outputs):
        log.append(("backward hook", grad_inputs, grad_outputs))

    m = set_params(torch, nn.Linear(3, 1))
    handles = [
        m.register_forward_pre_hook(forward_pre_hook),
        m.register_forward_hook(forward_hook),
        m.register_full_backward_hook(backward_hook),
    ]
    x = fixed(torch, 2, 3).requires_grad_(True)
    y = m(x)
    out("output reflects both forward hooks", y)
    y.sum().backward()
    out("log", log)
    out("grads", (x.grad, m.weight.grad))
    for h in handles:
        h.remove()
    out("removed", m(x))

    def with_kwargs(m, args, kwargs, output):
        log.append(("with_kwargs", sorted(kwargs)))

    m.register_forward_hook(with_kwargs, with_kwargs=True)
    log.clear()
    m(input=x)
    out("with_kwargs=True", log)


@parametrize(globals())
def test_modules_notes(lib, snippet):
    check(snippet, lib)
