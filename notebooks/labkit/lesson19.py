"""Lesson 19 (autograd at scale): the checks, and the few tools its cells share.

- part 1, `check_reducer` (lesson19_ddp.py): a bucketed gradient reducer for simulated data
  parallelism, with `all_reduce` (the simulated collective) and `buckets_of` (DDP's rule);
- part 2, `check_scaled_step` (lesson19_amp.py): loss scaling and unscale-before-clip by hand;
- `needs`: the cells after an exercise use the learner's answer and wait for its check;
- `quiet_stderr`: PyTorch's profiler writes lines with timestamps straight to file descriptor 2,
  past Python's sys.stderr; a notebook that stores outputs must not keep them;
- `aot_graphs`: the forward and backward graphs AOTAutograd hands to a compiler, captured by a
  backend that compiles nothing (torch.compile runs them as they are).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from . import feedback, lesson19_amp, lesson19_ddp
from .feedback import NotYet
from .lesson19_ddp import all_reduce, buckets_of

__all__ = [
    "NotYet",
    "aot_graphs",
    "all_reduce",
    "buckets_of",
    "check_reducer",
    "check_scaled_step",
    "needs",
    "quiet_stderr",
]

_PARTS = {1: lesson19_ddp.REDUCER, 2: lesson19_amp.SCALED}


def check_reducer(reducer_class: Any) -> None:
    """Part 1's check (lesson19_ddp.check_reducer)."""
    lesson19_ddp.check_reducer(reducer_class)


def check_scaled_step(scaled_step: Any) -> None:
    """Part 2's check (lesson19_amp.check_scaled_step)."""
    lesson19_amp.check_scaled_step(scaled_step)


def needs(*parts: int) -> None:
    """Stop a cell that uses the answers to these parts until their checks have passed."""
    feedback.needs(*(_PARTS[p] for p in parts))


@contextmanager
def quiet_stderr() -> Iterator[None]:
    """Send file descriptor 2 to /dev/null inside the block (C++ writes bypass sys.stderr)."""
    sys.stderr.flush()
    saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def aot_graphs(fn: Callable[..., Any], *args: Any) -> dict[str, Any]:
    """Compile `fn` with a backend that only records AOTAutograd's two graphs, run it forward
    and backward once on `args`, and return {"forward": GraphModule, "backward": GraphModule}."""
    import torch
    from functorch.compile import make_boxed_func
    from torch._functorch.aot_autograd import aot_module_simplified

    graphs: dict[str, Any] = {}

    def keep(name: str) -> Callable[..., Any]:
        def compiler(graph: Any, example_inputs: Any) -> Any:
            graphs[name] = graph
            return make_boxed_func(graph.forward)

        return compiler

    def backend(graph: Any, example_inputs: Any) -> Any:
        return aot_module_simplified(
            graph, example_inputs, fw_compiler=keep("forward"), bw_compiler=keep("backward")
        )

    # compiling switches off, for the whole process, the argument checks of every
    # torch.distributions object made afterwards (Distribution's default validate_args): put back
    validate = torch.distributions.Distribution._validate_args
    try:
        torch._dynamo.reset()
        out = torch.compile(fn, backend=backend)(*args)
        out.backward()
    finally:
        torch.distributions.Distribution.set_default_validate_args(validate)
    return graphs
