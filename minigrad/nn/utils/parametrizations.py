"""Ready-made parametrizations (torch.nn.utils.parametrizations): weight_norm, spectral_norm.

orthogonal is not here yet: it needs matrix_exp or a QR decomposition, which minigrad lacks.
"""

from __future__ import annotations

from ... import creation
from ...core.grad_mode import no_grad
from ...core.shapes import wrap_dim
from ...core.tensor import Tensor
from ..modules.conv import ConvTranspose2d
from ..modules.module import Module
from .parametrize import register_parametrization

__all__ = ["spectral_norm", "weight_norm"]


def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """The 2-norm of each slice along `dim`, shaped to broadcast against v; dim=-1 means the
    norm of the whole tensor (a 0-d result), as in PyTorch's weight norm."""
    if dim == -1:
        return v.norm()
    dim = wrap_dim(dim, v.dim())
    size = v.shape[dim]
    norms = v.transpose(0, dim).reshape(size, -1).norm(dim=1)
    return norms.reshape([size if d == dim else 1 for d in range(v.dim())])


class _WeightNorm(Module):
    """weight = g * v / ||v||: the direction v and the magnitude g are learned separately."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize `module.<name>` as g * v / ||v|| (the norm taken over every dimension but
    `dim`; over the whole tensor when dim is None). g and v become
    `parametrizations.<name>.original0` and `original1`."""
    return register_parametrization(module, name, _WeightNorm(dim), unsafe=True)


def _normalize(x: Tensor, eps: float) -> Tensor:
    """F.normalize of a vector: x / max(||x||, eps)."""
    return x / x.norm().clamp_min(eps)


class _SpectralNorm(Module):
    """weight / sigma, sigma the largest singular value of the weight seen as a matrix (rows
    along `dim`), estimated by power iteration: the vectors `_u`, `_v` are buffers, refined
    by `n_power_iterations` steps at each use in training mode (15 at the start); a vector
    is simply normalized."""

    def __init__(
        self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12
    ) -> None:
        super().__init__()
        ndim = weight.ndim
        if not -ndim <= dim < ndim:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}] "
                f"but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but got "
                f"n_power_iterations={n_power_iterations}"
            )
        self.dim = dim % ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            rows, columns = self._as_matrix(weight).shape
            for name, size in (("_u", rows), ("_v", columns)):
                start = creation.randn(size, dtype=weight.dtype)
                self.register_buffer(name, _normalize(start, eps))
            self._power_method(self._as_matrix(weight), 15)

    def _as_matrix(self, weight: Tensor) -> Tensor:
        rest = [d for d in range(weight.dim()) if d != self.dim]
        return weight.permute(self.dim, *rest).flatten(1)

    def _power_method(self, matrix: Tensor, steps: int) -> None:
        """Refine _u and _v in place (their identities are the module's buffers)."""
        with no_grad():
            for _ in range(steps):
                self._u.copy_(_normalize(matrix @ self._v, self.eps))
                self._v.copy_(_normalize(matrix.T @ self._u, self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return _normalize(weight, self.eps)
        matrix = self._as_matrix(weight)
        if self.training:
            self._power_method(matrix, self.n_power_iterations)
        sigma = (self._u.clone() * (matrix @ self._v.clone())).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module,
    name: str = "weight",
    n_power_iterations: int = 1,
    eps: float = 1e-12,
    dim: int | None = None,
) -> Module:
    """Divide `module.<name>` by its spectral norm (largest singular value), keeping a layer
    1-Lipschitz, e.g. in a GAN's discriminator. dim defaults to the output channels: 0, or 1
    for a transposed convolution."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, ConvTranspose2d) else 0
    parametrization = _SpectralNorm(weight, n_power_iterations, dim, eps)
    return register_parametrization(module, name, parametrization)
