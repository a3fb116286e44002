"""What the fuzzer does not compare, and why: each a deliberate difference the README lists.

- The sign of a zero that comes out of a matrix product: PyTorch's BLAS kernels decide it (an
  outer product keeps -0.0 where a longer dot product starts its sum at +0.0, and which kernel
  runs depends on the shapes and the CPU); numpy's differ. Likewise the zero that `max()` or
  `min()` of a whole tensor picks among +0.0 and -0.0 ties: its vectorized reduction decides by
  SIMD lane (AVX2 or AVX-512, by CPU), where `amax` and `max(dim)` keep the first. Once a
  program has multiplied matrices or reduced a whole tensor so, zeros are compared without
  their sign.
- `_version` of gradients that `autograd.grad` returns (and of their views), and of tensors in
  programs that use `inference_mode`: there PyTorch counts in-place writes its own
  implementation made (inside some backward formulas; inside composite ops run on inference
  tensors), which say nothing about the program. (The version a summed gradient gets from the
  engine is mirrored.)

- Inference tensors in recorded ops, where PyTorch's outcome hangs on its dispatch details:
  an op that both fails an argument check and would save an inference tensor reports either
  error, whichever its generated code meets first (minigrad: the argument's); and an inference
  tensor that requires grad (made so inside `inference_mode`) used outside it is recorded by
  some ops (`t * 2`), not by others (`t.exp()`), and refused by others still (`t @ v` for some
  shapes only; `t.mean()` as "functions with out=..."); so is a tensor requiring grad whose
  `.data` became an inference tensor. minigrad never records an op whose inputs are all
  inference tensors. Such a program is compared up to its first difference.

- An integer tensor that requires grad: PyTorch lets an in-place write of a value that requires
  grad make one (`t.masked_fill_(m, v)`, `t[m] = v`) and refuses the next op on it; minigrad
  refuses the write ("Autograd not support dtype", the same words). From there on a program is
  not compared.
- An in-place op whose operand is the very elements of its target, laid out differently only
  along dims of size 1: PyTorch's overlap test compares those strides too and refuses; strides
  of size-1 dims follow other conventions in numpy, so minigrad leaves them out and computes.
  From there on a program is not compared.
- float32 values once a float32 tensor holds a number beyond 2**23 (where float32 has no
  fraction left): sin, cos and their kin of such numbers are rounding noise, and numpy's and
  PyTorch's (SLEEF's) argument reductions give different noise.
- A `register_hook` after one on the same tensor raised: PyTorch's raising call has already
  given the tensor its (empty) hook dict before it failed reading the history, so the next
  call skips that read and "registers" a hook its node never learns of (it never runs);
  minigrad raises again. From there on a program is not compared.
- PyTorch's immutable ZeroTensor (sgn's gradient, so abs's and norm's under create_graph): it
  becomes a leaf's `.grad` and refuses the next write into it; minigrad's gradient is an
  ordinary tensor of zeros (the README lists this PyTorch bug). From there on a program is not
  compared.
- Which of two errors in one op is reported: where an op's argument is wrong (a dtype or a
  shape) and an operand is a view whose history PyTorch refuses to re-derive, PyTorch reports
  the history (its autograd layer runs before the kernel's checks), minigrad the argument.

And a tolerance, not a difference: once a program has a float32 tensor (written or made, as an
integer's exp()), float64 values may hold float32 rounding (promoted from it), so all are
compared at float32's tolerance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

INTEGERS = ("int64", "int32", "bool")
SAVED_INFERENCE = "Inference tensors cannot be saved for backward"
WHOLE_EXTREME = re.compile(r"\.(max|min)\(\)")
ZERO_TENSOR = "ZeroTensors are immutable"
PARTIAL_OVERLAP = "unsupported operation: some elements of the input tensor and the written-to"
VIEW_HISTORY = re.compile(r"^(A view was created in|Output \d+ of \w+ is a view (and|of a view))")
GRAD_RESULT = re.compile(r"^(?:with [^:]+: )?((?:t\d+, )*t\d+),? = torch\.autograd\.grad\(")
ASSIGNED = re.compile(r"^(?:with [^:]+: )?((?:t\d+, )*t\d+),? = ")
NAMES = re.compile(r"\bt\d+\b")
HOOKED = re.compile(r"\b(t\d+)\.register_hook\(")


@dataclass
class Relaxed:
    """What a step's comparison leaves out, from the program's lines up to it."""

    zero_sign: bool = False
    versions_of: set[str] = field(default_factory=set)
    all_versions: bool = False
    float32: bool = False
    inference_grad: bool = False
    huge_float32: bool = False
    hook_refused: set[str] = field(default_factory=set)

    def see(self, line: str) -> None:
        if line.startswith("with torch.inference_mode()") and (
            "requires_grad" in line or ".data = " in line  # (a tensor requiring grad made one)
        ):
            self.inference_grad = True
        if "@" in line or WHOLE_EXTREME.search(line):
            self.zero_sign = True
        if "float32" in line:
            self.float32 = True
        if "inference_mode" in line:
            self.all_versions = True
        found = GRAD_RESULT.match(line)
        if found:
            self.versions_of.update(n.strip() for n in found.group(1).split(","))
        assigned = ASSIGNED.match(line)  # a view of such a gradient shares its version
        if assigned and set(NAMES.findall(line[assigned.end() :])) & self.versions_of:
            self.versions_of.update(n.strip() for n in assigned.group(1).split(","))

    def see_dtypes(self, tensors: dict) -> None:
        """A float32 tensor made without saying so (an integer's exp()) counts too; and one
        holding a number beyond 2**23 (see above) ends the comparison of float32 values."""
        for seen in tensors.values():
            if isinstance(seen, dict) and seen["dtype"] == "float32":
                self.float32 = True
                values = seen["values"]
                if isinstance(values, np.ndarray) and (np.abs(values) > 2.0**23).any():
                    self.huge_float32 = True

    def skips_version(self, name: str) -> bool:
        return self.all_versions or name in self.versions_of

    def unpredictable(self, expected: tuple | None, actual: tuple | None) -> str | None:
        """Whether two differing errors are one of the quirks listed above: "accept" the step;
        None if not one."""
        if expected is None or expected[0] != "RuntimeError" or actual is None:
            return None
        if VIEW_HISTORY.match(expected[1]) and not VIEW_HISTORY.match(actual[1]):
            return "accept"
        if actual[0] == "RuntimeError" and expected[1].startswith(SAVED_INFERENCE):
            return "accept"
        return None

    def half_registered_hook(self, line: str, error: tuple | None) -> bool:
        """Whether this line registers a hook on a tensor whose earlier register_hook PyTorch
        refused (see above); remembers a refusal."""
        found = HOOKED.search(line)
        if found is None:
            return False
        if found.group(1) in self.hook_refused:
            return True
        if error is not None:
            self.hook_refused.add(found.group(1))
        return False

    @staticmethod
    def immutable_zeros(expected: tuple | None) -> bool:
        """PyTorch refused to write into one of its ZeroTensors (see above)."""
        return expected is not None and expected[1].startswith(ZERO_TENSOR)

    @staticmethod
    def size_one_overlap(expected: tuple | None, actual: tuple | None) -> bool:
        """PyTorch refuses an overlap that minigrad, leaving size-1 strides out, lets through."""
        return expected is not None and expected[1].startswith(PARTIAL_OVERLAP) and actual is None


def integer_requiring_grad(tensors: dict) -> bool:
    """Whether PyTorch's run holds an integer tensor that requires grad (see above)."""
    return any(
        isinstance(seen, dict) and seen["requires_grad"] is True and seen["dtype"] in INTEGERS
        for seen in tensors.values()
    )
