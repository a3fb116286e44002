"""torch.backends as a CPU-only build answers it: flags a training script sets for
reproducibility (`cudnn.deterministic = True`) are kept and change nothing here."""

from . import cuda, cudnn, mps

__all__ = ["cuda", "cudnn", "mps"]
