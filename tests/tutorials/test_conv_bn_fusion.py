""" "Fusing Convolution and Batch Norm using Custom Function": a Conv2D Function whose backward is
two convolutions, a training-mode BatchNorm Function with a hand-derived, buffer-frugal
backward (once_differentiable, in-place accumulation), both fused into one Function that
saves only the conv input and recomputes the conv in backward, a Module around it with
kaiming_uniform_ init, and the MNIST-style training loop (Adadelta, StepLR, nll_loss,
inference_mode). Shapes are shrunk so that gradcheck stays quick."""

from __future__ import annotations

import math

from ._support import check, fixed, parametrize


def unsqueeze_all(t):
    return t[None, :, None, None]


def convolution_backward(F, grad_out, X, weight):
    grad_input = F.conv2d(X.transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
    grad_X = F.conv_transpose2d(grad_out, weight)
    return grad_X, grad_input


def batch_norm_backward(grad_out, X, sum, sqrt_var, N, eps):
    tmp = -((X - unsqueeze_all(sum) / N) * grad_out).sum(dim=(0, 2, 3))
    d_denom = tmp / (sqrt_var + eps) ** 2
    d_var = d_denom / (2 * sqrt_var)
    d_mean_dx = grad_out / unsqueeze_all(sqrt_var + eps)
    d_mean_dx = unsqueeze_all(-d_mean_dx.sum(dim=(0, 2, 3)) / N)
    grad_input = X * unsqueeze_all(d_var * N)
    grad_input += unsqueeze_all(-d_var * sum)
    grad_input *= 2 / ((N - 1) * N)
    grad_input += d_mean_dx
    grad_input *= unsqueeze_all(sqrt_var + eps)
    grad_input += grad_out
    grad_input /= unsqueeze_all(sqrt_var + eps)
    return grad_input


def functions(torch):
    F = torch.nn.functional
    once_differentiable = torch.autograd.function.once_differentiable

    class Conv2D(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, weight):
            ctx.save_for_backward(X, weight)
            return F.conv2d(X, weight)

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_out):
            X, weight = ctx.saved_tensors
            return convolution_backward(F, grad_out, X, weight)

    class BatchNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, eps=1e-3):
            sum = X.sum(dim=(0, 2, 3))
            var = X.var(unbiased=True, dim=(0, 2, 3))
            N = X.numel() / X.size(1)
            sqrt_var = torch.sqrt(var)
            ctx.save_for_backward(X)
            ctx.eps = eps
            ctx.sum = sum
            ctx.N = N
            ctx.sqrt_var = sqrt_var
            mean = sum / N
            denom = sqrt_var + eps
            return (X - unsqueeze_all(mean)) / unsqueeze_all(denom)

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_out):
            (X,) = ctx.saved_tensors
            return batch_norm_backward(grad_out, X, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps)

    class FusedConvBN2DFunction(torch.autograd.Function):
        @staticmethod
        def forward(ctx, X, conv_weight, eps=1e-3):
            assert X.ndim == 4
            ctx.save_for_backward(X, conv_weight)
            X = F.conv2d(X, conv_weight)
            sum = X.sum(dim=(0, 2, 3))
            var = X.var(unbiased=True, dim=(0, 2, 3))
            N = X.numel() / X.size(1)
            sqrt_var = torch.sqrt(var)
            ctx.eps = eps
            ctx.sum = sum
            ctx.N = N
            ctx.sqrt_var = sqrt_var
            mean = sum / N
            denom = sqrt_var + eps
            out = X - unsqueeze_all(mean)
            out /= unsqueeze_all(denom)
            return out

        @staticmethod
        def backward(ctx, grad_out):
            X, conv_weight = ctx.saved_tensors
            X_conv_out = F.conv2d(X, conv_weight)
            grad_out = batch_norm_backward(
                grad_out, X_conv_out, ctx.sum, ctx.sqrt_var, ctx.N, ctx.eps
            )
            grad_X, grad_input = convolution_backward(F, grad_out, X, conv_weight)
            return grad_X, grad_input, None, None, None, None, None

    return Conv2D, BatchNorm, FusedConvBN2DFunction


def doubles(torch, *shape, scale=1.0):
    return fixed(torch, *shape, scale=scale, dtype=torch.double).requires_grad_(True)


def snip_weight_gradient_is_a_convolution(torch, out):
    F = torch.nn.functional
    X = doubles(torch, 2, 2, 4, 4)
    weight = doubles(torch, 3, 2, 2, 2, scale=0.5)
    y = F.conv2d(X, weight)
    grad_out = fixed(torch, *y.shape, scale=0.3, dtype=torch.double)
    y.backward(grad_out)
    by_hand = F.conv2d(X.detach().transpose(0, 1), grad_out.transpose(0, 1)).transpose(0, 1)
    out("matches autograd", (torch.allclose(by_hand, weight.grad), by_hand.shape))


def snip_conv2d_function_gradcheck(torch, out):
    Conv2D, _, _ = functions(torch)
    X = doubles(torch, 2, 2, 3, 3)
    weight = doubles(torch, 2, 2, 2, 2, scale=0.5)
    out("gradcheck", torch.autograd.gradcheck(Conv2D.apply, (X, weight)))


def snip_batch_norm_function(torch, out):
    _, BatchNorm, _ = functions(torch)
    a = doubles(torch, 2, 2, 3, 4)
    y = BatchNorm.apply(a)
    out("normalized per channel", (y.mean(dim=(0, 2, 3)), y.grad_fn.name()))
    out("gradcheck", torch.autograd.gradcheck(BatchNorm.apply, (a,), fast_mode=False))
    (y * fixed(torch, 2, 2, 3, 4, dtype=torch.double)).sum().backward()
    out("grad", a.grad)


def snip_batch_norm_pieces(torch, out):
    X = fixed(torch, 2, 3, 2, 2)
    out("sum over (0, 2, 3)", X.sum(dim=(0, 2, 3)))
    out("unbiased var", (X.var(unbiased=True, dim=(0, 2, 3)), X.var(dim=(0, 2, 3))))
    out("N", (X.numel() / X.size(1), X.size(), X.ndim))
    out("t[None, :, None, None]", unsqueeze_all(torch.tensor([1.0, 2.0, 3.0])).shape)


def snip_fused_function_gradcheck(torch, out):
    _, _, Fused = functions(torch)
    weight = doubles(torch, 2, 2, 2, 2, scale=0.5)
    X = doubles(torch, 2, 2, 3, 3)
    out("gradcheck", torch.autograd.gradcheck(Fused.apply, (X, weight)))


def fused_module(torch):
    nn = torch.nn
    _, _, Fused = functions(torch)

    class FusedConvBN(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, eps=1e-3, dtype=None):
            super().__init__()
            weight_shape = (out_channels, in_channels, kernel_size, kernel_size)
            self.conv_weight = nn.Parameter(torch.empty(*weight_shape, dtype=dtype))
            self.num_features = out_channels
            self.eps = eps
            self.reset_parameters()

        def forward(self, X):
            return Fused.apply(X, self.conv_weight, self.eps)

        def reset_parameters(self):
            nn.init.kaiming_uniform_(self.conv_weight, a=math.sqrt(5))

    return FusedConvBN


def snip_fused_module_init(torch, out):
    FusedConvBN = fused_module(torch)
    layer = FusedConvBN(2, 3, 3)
    w = layer.conv_weight
    bound = 1 / math.sqrt(2 * 3 * 3)  # kaiming_uniform_ with a=sqrt(5): 1/sqrt(fan_in)
    out("shape and bounds", (w.shape, bool((w.abs() <= bound).all()), w.requires_grad))
    out("parameters", [name for name, _ in layer.named_parameters()])
    with torch.no_grad():
        w.copy_(fixed(torch, 3, 2, 3, 3, scale=0.3))
    y = layer(fixed(torch, 2, 2, 5, 5))
    out("forward", (y.shape, y.grad_fn.name()))


def net(torch, kind):
    """kind: "fused" (the tutorial's FusedConvBN), "unfused" (nn.Conv2d + nn.BatchNorm2d), or
    "custom_bn" (nn.Conv2d + the BatchNorm Function: conv backward by autograd)."""
    nn = torch.nn
    F = torch.nn.functional
    FusedConvBN = fused_module(torch)
    _, BatchNorm, _ = functions(torch)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            if kind == "fused":
                self.convbn1 = FusedConvBN(1, 3, 3)
                self.convbn2 = FusedConvBN(3, 4, 3)
            else:
                self.conv1 = nn.Conv2d(1, 3, 3, 1, bias=False)
                self.conv2 = nn.Conv2d(3, 4, 3, 1, bias=False)
            if kind == "unfused":
                self.bn1 = nn.BatchNorm2d(3, affine=False, track_running_stats=False)
                self.bn2 = nn.BatchNorm2d(4, affine=False, track_running_stats=False)
            self.fc1 = nn.Linear(16, 8)
            self.dropout = nn.Dropout(0.5)
            self.fc2 = nn.Linear(8, 3)

        def conv_bn(self, x, i):
            if kind == "fused":
                return getattr(self, f"convbn{i}")(x)
            x = getattr(self, f"conv{i}")(x)
            return getattr(self, f"bn{i}")(x) if kind == "unfused" else BatchNorm.apply(x)

        def forward(self, x):
            x = F.relu(self.conv_bn(x, 1))
            x = F.relu(self.conv_bn(x, 2))
            x = F.max_pool2d(x, 2)
            x = F.relu(x)
            x = x.flatten(1)
            x = self.fc1(x)
            x = self.dropout(x)
            x = F.relu(x)
            x = self.fc2(x)
            return F.log_softmax(x, dim=1)

    model = Net()
    with torch.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(fixed(torch, *p.shape, scale=0.6 / (i + 1)))
    model.dropout.p = 0.0  # the tutorial drops at random; both libraries must see one net
    return model


def train_and_test(torch, out, model):
    F = torch.nn.functional
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    data = fixed(torch, 6, 1, 8, 8)
    target = torch.tensor([0, 2, 1, 1, 0, 2])
    loader = [(data[:3], target[:3]), (data[3:], target[3:])]
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(2):
        model.train()
        for batch_idx, (x, y) in enumerate(loader):
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            output = model(x)
            loss = F.nll_loss(output, y)
            loss.backward()
            optimizer.step()
            out(f"epoch {epoch} batch {batch_idx}", (loss.item(), output.grad_fn.name()))
        model.eval()
        test_loss = 0
        correct = 0
        with torch.inference_mode():
            for x, y in loader:
                output = model(x)
                test_loss += F.nll_loss(output, y, reduction="sum").item()
                pred = output.argmax(dim=1, keepdim=True)
                correct += (pred == y.view_as(pred)).sum().item()
        out(f"test {epoch}", (test_loss / len(data), correct, output.is_inference()))
        scheduler.step()
    out("lr", scheduler.get_last_lr())


def snip_train_fused_net(torch, out):
    train_and_test(torch, out, net(torch, "fused"))


def snip_train_unfused_net(torch, out):
    train_and_test(torch, out, net(torch, "unfused"))


def snip_train_with_the_batch_norm_function(torch, out):
    train_and_test(torch, out, net(torch, "custom_bn"))


@parametrize(globals())
def test_conv_bn_fusion(lib, snippet):
    check(snippet, lib)
