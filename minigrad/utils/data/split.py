"""random_split: a dataset cut into non-overlapping random Subsets."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

from ... import creation
from ...core.generator import Generator, default_generator
from .dataset import Dataset, Subset


def _lengths(total: int, lengths: Sequence[float]) -> list[int]:
    """Fractions summing to 1 become lengths: each floored, then the remainder handed out one
    by one from the first split on."""
    if not (math.isclose(sum(lengths), 1) and sum(lengths) <= 1):
        return list(lengths)
    counts = []
    for i, fraction in enumerate(lengths):
        if not 0 <= fraction <= 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        counts.append(int(math.floor(total * fraction)))
    for i in range(total - sum(counts)):
        counts[i % len(counts)] += 1
    for i, n in enumerate(counts):
        if n == 0:
            warnings.warn(
                f"Length of split at index {i} is 0. This might result in an empty dataset.",
                UserWarning,
                stacklevel=3,
            )
    return counts


def random_split(
    dataset: Dataset,
    lengths: Sequence[float],
    generator: Generator | None = default_generator,
) -> list[Subset]:
    """Subsets of the given lengths (or fractions of len(dataset)), drawn by one shuffle."""
    lengths = _lengths(len(dataset), lengths)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = creation.randperm(sum(lengths), generator=generator).tolist()
    subsets, start = [], 0
    for n in lengths:
        subsets.append(Subset(dataset, order[start : start + n]))
        start += n
    return subsets
