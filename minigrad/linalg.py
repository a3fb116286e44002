"""torch.linalg: norms, det, inv, solve (and matmul), with PyTorch's LinAlgError."""

# ruff: noqa: F401 - this module re-exports the public names

from .ops.linalg import matmul
from .ops.matrix_norm import linalg_norm as norm
from .ops.matrix_norm import matrix_norm, vector_norm
from .ops.solve import LinAlgError, det, inv, solve
