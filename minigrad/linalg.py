"""torch.linalg: norms, det, inv, solve, matrix_exp (and matmul), with PyTorch's LinAlgError."""

# ruff: noqa: F401 - this module re-exports the public names

from .ops.linalg import matmul
from .ops.matrix_exp import linalg_matrix_exp as matrix_exp
from .ops.matrix_norm import linalg_norm as norm
from .ops.matrix_norm import matrix_norm, vector_norm
from .ops.solve import LinAlgError, det, inv, solve
