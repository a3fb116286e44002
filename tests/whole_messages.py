"""Record an error's whole message, not only its first sentence as tests/parity.py compares.

PyTorch's multi-line messages (a parametrization that changes a shape, a pruning amount out of
range) carry their facts after the first line. minigrad spells its names `minigrad.` where
PyTorch spells them `torch.` (dtypes, class paths), and object addresses differ from run to
run: both are normalized away before comparing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from parity import Recorder


def normalized(message: str) -> str:
    message = message.replace("minigrad.", "torch.")
    return re.sub(r" at 0x[0-9a-f]+", "", message)


@contextmanager
def raises_whole(out: Recorder, label: str) -> Iterator[None]:
    """Like `out.raises`, but the error's type and whole (normalized) message are recorded."""
    try:
        yield
    except Exception as exc:  # recording is the point
        out(label, (type(exc).__name__, normalized(str(exc))))
    else:
        out(label, "no exception")
