"""PyTorch's autograd tutorials and notes, pattern by pattern, on torch and on minigrad."""
