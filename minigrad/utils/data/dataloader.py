"""DataLoader: a dataset read through a sampler, in batches put together by a collate function.

minigrad loads in the calling process: `num_workers > 0` is accepted and runs the same loop
in-process (`worker_init_fn(0)` is called once per pass, and `get_worker_info()` answers None,
as in PyTorch's main process); `pin_memory` is accepted and does nothing (no GPU to pin for).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ...core.generator import Generator
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

# what may not change once a DataLoader is made (PyTorch's list)
FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


def get_worker_info() -> None:
    """None: every sample is loaded in the main process."""
    return None


class DataLoader:
    """Batches of `dataset`: indices from a sampler (shuffled by `generator` when asked),
    grouped by a BatchSampler, the samples joined by `collate_fn`; options checked, and
    refused together, as PyTorch's are."""

    def __init__(
        self,
        dataset: Dataset,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Sampler | Iterable | None = None,
        batch_sampler: Sampler | Iterable | None = None,
        num_workers: int = 0,
        collate_fn: Callable | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable | None = None,
        multiprocessing_context: Any = None,
        generator: Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        _check_workers(num_workers, timeout, prefetch_factor, persistent_workers)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            _check_iterable(shuffle, sampler, batch_sampler)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None:
            if iterable:
                sampler = _InfiniteIndices()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.pin_memory, self.timeout = num_workers, pin_memory, timeout
        self.worker_init_fn, self.prefetch_factor = worker_init_fn, prefetch_factor
        self.persistent_workers = persistent_workers
        self.multiprocessing_context = multiprocessing_context
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self._initialized = True

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_initialized", False) and name in FROZEN:
            raise ValueError(
                f"{name} attribute should not be set after {type(self).__name__} is initialized"
            )
        super().__setattr__(name, value)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Iterable:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> _LoaderIterator:
        if self.num_workers > 0 and self.worker_init_fn is not None:
            self.worker_init_fn(0)
        return _LoaderIterator(self)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self._index_sampler)


class _InfiniteIndices(Sampler[None]):
    """An IterableDataset's 'sampler': it only says how many samples to take (one per index)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class _LoaderIterator:
    """One pass over a DataLoader: fetch each batch of indices, then collate it."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._indices = iter(loader._index_sampler)
        self._stream = iter(loader.dataset) if isinstance(loader.dataset, IterableDataset) else None

    def __iter__(self) -> _LoaderIterator:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self) -> Any:
        loader = self._loader
        index = next(self._indices)
        if self._stream is not None:
            data = self._from_stream(index)
        elif loader._auto_collation:
            data = _fetch(loader.dataset, index)
        else:
            data = loader.dataset[index]
        return loader.collate_fn(data)

    def _from_stream(self, index: Any) -> Any:
        """The next sample, or the next batch of them (shorter at the end unless drop_last)."""
        if not self._loader._auto_collation:
            return next(self._stream)
        batch = []
        for _ in index:
            try:
                batch.append(next(self._stream))
            except StopIteration:
                break
        if not batch or (self._loader.drop_last and len(batch) < len(index)):
            raise StopIteration
        return batch


def _fetch(dataset: Dataset, indices: list) -> list:
    getitems = getattr(dataset, "__getitems__", None)
    if callable(getitems):
        return getitems(indices)
    return [dataset[i] for i in indices]


def _check_workers(
    num_workers: int, timeout: float, prefetch_factor: int | None, persistent: bool
) -> None:
    if num_workers < 0:
        raise ValueError(
            "num_workers option should be non-negative; use num_workers=0 to disable "
            "multiprocessing."
        )
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError(
            "prefetch_factor option could only be specified in multiprocessing.let num_workers "
            "> 0 to enable multiprocessing, otherwise set prefetch_factor to None."
        )
    if persistent and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")


def _check_iterable(shuffle: Any, sampler: Any, batch_sampler: Any) -> None:
    """An IterableDataset decides its own order."""
    for name, value in (
        ("shuffle", shuffle),
        ("sampler", sampler),
        ("batch_sampler", batch_sampler),
    ):
        if value is not None and value is not False:
            raise ValueError(
                f"DataLoader with IterableDataset: expected unspecified {name} option, but got "
                f"{name}={value}"
            )
