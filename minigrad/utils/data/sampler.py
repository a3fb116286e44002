"""Samplers: which dataset indices a DataLoader reads, in which order. The random ones draw
from their `generator=`; without one, each pass seeds a fresh generator from the default one,
so `torch.manual_seed` fixes their shuffles too."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

from ... import creation
from ...core import dtypes
from ...core.generator import Generator, generator_of
from ...ops.sampling import multinomial

T_co = TypeVar("T_co", covariant=True)
RANDOM_CHUNK = 32  # with replacement, indices are drawn this many at a time


class Sampler(Generic[T_co]):
    """Subclasses give `__iter__` (and `__len__` when they know it)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        """Takes (and ignores) the data source, so subclasses may pass it up as PyTorch's do."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


def _positive_int(name: str, value: Any, bool_ok: bool = False) -> None:
    if not isinstance(value, int) or (isinstance(value, bool) and not bool_ok) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _fresh(generator: Generator | None) -> Generator:
    """The generator a pass draws from: its own, else one seeded from the default generator."""
    if generator is not None:
        return generator
    return Generator().manual_seed(int(generator_of(None).integers(2**63)))


class SequentialSampler(Sampler[int]):
    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A shuffle of the indices; with `num_samples` beyond the dataset, further shuffles
    follow; with `replacement`, independent uniform draws."""

    def __init__(
        self,
        data_source: Sized,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        _positive_int("num_samples", self.num_samples, bool_ok=True)

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, generator = len(self.data_source), _fresh(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // RANDOM_CHUNK):
                yield from creation.randint(n, (RANDOM_CHUNK,), generator=generator).tolist()
            rest = self.num_samples % RANDOM_CHUNK
            yield from creation.randint(n, (rest,), generator=generator).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from creation.randperm(n, generator=generator).tolist()
        yield from creation.randperm(n, generator=generator).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, shuffled."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices, self.generator = indices, generator

    def __iter__(self) -> Iterator[int]:
        order = creation.randperm(len(self.indices), generator=self.generator).tolist()
        return (self.indices[i] for i in order)

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """Indices drawn with probability proportional to their weight (torch.multinomial)."""

    def __init__(
        self,
        weights: Sequence[float],
        num_samples: int,
        replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:
        _positive_int("num_samples", num_samples)
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        self.weights = creation.as_tensor(weights, dtype=dtypes.float64)
        if self.weights.ndim != 1:
            raise ValueError(
                "weights should be a 1d sequence but given weights have shape "
                f"{tuple(self.weights.shape)}"
            )
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        drawn = multinomial(
            self.weights, int(self.num_samples), self.replacement, generator=self.generator
        )
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Another sampler's indices in lists of `batch_size` (the last one shorter unless
    `drop_last`)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        _positive_int("batch_size", batch_size)
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
