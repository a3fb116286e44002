# ruff: noqa: E501 - one entry a line, the table reads as a table
"""Every known mismatch of the sweep, applied as strict xfails: a case that starts passing fails
until its entry goes. The table may only shrink.

An entry matches a case when ``op`` names the case's op (one name or a tuple of names) and the
glob patterns ``sample`` (``name/layout/values/dtype``, e.g. ``3x4/c/s/f64``) and ``check``
(e.g. ``backward.nan``, ``forward``; a leading "!" negates: ``!forward``) match; the first entry
that matches counts. ``cls`` groups entries in the report (python -m tests.sweep.report); ``why``
is the first difference of one case it covers (PyTorch's outcome, then minigrad's).

Drafted by ``python -m tests.sweep.triage --full --out F && python -m tests.sweep.draft F`` (the
patterns are the most general ones that match failing cases only), then reviewed. When a fix
makes cases pass, `triage` lists them as FIXED: delete or narrow their entries.
"""

from __future__ import annotations

from typing import NamedTuple

from .classify import (
    ERROR_MESSAGE,
    INF_NAN,
    NO_ERROR,
)


class KF(NamedTuple):
    op: str | tuple[str, ...]
    sample: str
    check: str
    cls: str
    why: str


# fmt: off
KNOWN: tuple[KF, ...] = (
    # --- error message differs
    KF(("Tensor.fill_", "torch.fill_"), "3x4,t0d/*/*/i64+f64", "[bg][ar]*.rand", ERROR_MESSAGE, "[backward, seed rand] torch raises: RuntimeError('isDifferentiableType(grad.scalar_type()) INTERNAL ASSERT FAILED at ...engine.cpp:998, please report a bug to PyTorch.'); minigrad leaf .grad: [...]: PyTorch's fill_ records FillBackward3 on an int64 tensor and then fails an internal assert"),
    # --- inf/nan propagation differs
    KF("F.batch_norm", "2x3x4x4,train,m0.3/c/s/f64", "backward.ones", INF_NAN, "[backward, seed ones] leaf .grad[0]: 32 of 96 values differ, first at (0, 0, 0, 0): torch inf, minigrad -inf: an infinite weight times g - mean(g) - (x - mean) k, which is 0 up to rounding for a constant seed; the sign of that rounding depends on the order of PyTorch's vectorised sums"),
    # --- minigrad accepts what torch refuses
    KF("F.nll_loss", "2x5x3x4,2x3x4/T/*/*", "!forward", NO_ERROR, "[backward, seed rand] torch raises: RuntimeError('grad_input must be contiguous'); minigrad leaf .grad: [tensor(float32, [4, 3, 5, 2], requires_grad=False)]: PyTorch's nll_loss2d backward allocates grad_input in the layout of a non-contiguous (N, C, H, W) input and then refuses it (a PyTorch bug); minigrad returns the gradient"),
    KF(("Tensor.sgn", "torch.sgn"), "0d/c/*/*", "accumulate.rand", NO_ERROR, "[accumulate, seed rand] torch raises: RuntimeError('ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() if you want a mutable tensor.'); minigrad after a second backward on the same graph: [tensor(float64, [3, 4], requires_grad=False)]: PyTorch's sgn backward returns an immutable ZeroTensor, which becomes .grad and then refuses the second backward's accumulation (a PyTorch bug); minigrad accumulates zeros"),
    KF(("Tensor.sgn", "torch.sgn"), "[1-9]*/c/*/*", "accumulate.rand", NO_ERROR, "[accumulate, seed rand] torch raises: RuntimeError('ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() if you want a mutable tensor.'); minigrad after a second backward on the same graph: [tensor(float64, [3, 4], requires_grad=False)]: PyTorch's sgn backward returns an immutable ZeroTensor, which becomes .grad and then refuses the second backward's accumulation (a PyTorch bug); minigrad accumulates zeros"),
    KF("F.batch_norm", "bias-only,train/*/*/*", "double.rand", NO_ERROR, "[create_graph, seed rand] torch raises: RuntimeError(\"Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #1 'other'\"): PyTorch's batchnorm_double_backward expands the bias's gradient only when there is a weight (a PyTorch bug); minigrad returns the gradient"),
)
# fmt: on
