"""The courses learners take next (makemore, the GPT lecture, d2l, PyTorch's tutorials), pattern
by pattern in our own code on synthetic data, on torch and on minigrad."""
