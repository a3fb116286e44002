"""What the fuzzer does not compare, and why: each a deliberate difference the README lists.

- The sign of a zero that comes out of a matrix product: PyTorch's BLAS kernels decide it (an
  outer product keeps -0.0 where a longer dot product starts its sum at +0.0, and which kernel
  runs depends on the shapes and the CPU); numpy's differ. Once a program has multiplied
  matrices, zeros are compared without their sign.
- `_version` of gradients that `autograd.grad` returns (and of their views), and of tensors in
  programs that use `inference_mode`: there PyTorch counts in-place writes its own
  implementation made (inside some backward formulas; inside composite ops run on inference
  tensors), which say nothing about the program. (The version a summed gradient gets from the
  engine is mirrored.)

And a tolerance, not a difference: once a program has a float32 tensor, float64 values may hold
float32 rounding (promoted from it), so all are compared at float32's tolerance.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

GRAD_RESULT = re.compile(r"^(?:with [^:]+: )?((?:t\d+, )*t\d+),? = torch\.autograd\.grad\(")
ASSIGNED = re.compile(r"^(?:with [^:]+: )?(t\d+) = ")
NAMES = re.compile(r"\bt\d+\b")


@dataclass
class Relaxed:
    """What a step's comparison leaves out, from the program's lines up to it."""

    zero_sign: bool = False
    versions_of: set[str] = field(default_factory=set)
    all_versions: bool = False
    float32: bool = False

    def see(self, line: str) -> None:
        if "@" in line:
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
            self.versions_of.add(assigned.group(1))

    def skips_version(self, name: str) -> bool:
        return self.all_versions or name in self.versions_of
