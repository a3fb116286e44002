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
    ANOMALY,
    ERROR_MESSAGE,
    FORWARD_VALUES,
    GRAD_VALUES,
    HOOK,
    INF_NAN,
    MASKED_NAN,
    NO_ERROR,
    REFUSES,
    SECOND_ORDER,
    TANGENTS,
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
    # --- minigrad refuses what torch accepts (README: an integer tensor never requires grad)
    KF(("Tensor.fill_", "torch.fill_"), "3x4,t0d/c/n/i64+f64", "forward", REFUSES, "[forward, inputs requiring grad] torch result: tensor(int64, [3, 4] [-1, -1, -1, -1, ...], requires_grad=True, grad_fn=FillBackward3); minigrad raises: RuntimeError('Autograd not support dtype: Long'): PyTorch lets fill_ with a value that requires grad make an int64 tensor require grad"),
    # --- minigrad accepts what torch refuses
    KF("F.nll_loss", "2x5x3x4,2x3x4/T/*/*", "[bgadhv]*", NO_ERROR, "[backward, seed rand] torch raises: RuntimeError('grad_input must be contiguous'); minigrad leaf .grad: [tensor(float32, [4, 3, 5, 2], requires_grad=False)]: PyTorch's nll_loss2d backward allocates grad_input in the layout of a non-contiguous (N, C, H, W) input and then refuses it (a PyTorch bug); minigrad returns the gradient"),
    KF(("Tensor.sgn", "torch.sgn"), "0d/c/*/*", "accumulate.rand", NO_ERROR, "[accumulate, seed rand] torch raises: RuntimeError('ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() if you want a mutable tensor.'); minigrad after a second backward on the same graph: [tensor(float64, [3, 4], requires_grad=False)]: PyTorch's sgn backward returns an immutable ZeroTensor, which becomes .grad and then refuses the second backward's accumulation (a PyTorch bug); minigrad accumulates zeros"),
    KF(("Tensor.sgn", "torch.sgn"), "[1-9]*/c/*/*", "accumulate.rand", NO_ERROR, "[accumulate, seed rand] torch raises: RuntimeError('ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() if you want a mutable tensor.'); minigrad after a second backward on the same graph: [tensor(float64, [3, 4], requires_grad=False)]: PyTorch's sgn backward returns an immutable ZeroTensor, which becomes .grad and then refuses the second backward's accumulation (a PyTorch bug); minigrad accumulates zeros"),
    KF("F.batch_norm", "bias-only,train/*/*/*", "double.rand", NO_ERROR, "[create_graph, seed rand] torch raises: RuntimeError(\"Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #1 'other'\"): PyTorch's batchnorm_double_backward expands the bias's gradient only when there is a weight (a PyTorch bug); minigrad returns the gradient"),
    # transformer layers: PyTorch's fused attention kernel has no double backward
    KF("F.multi_head_attention_forward", "sdpa*/*/*/*", "double.rand", NO_ERROR, "[create_graph, seed rand] torch raises: RuntimeError('derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented'); minigrad grads of sum(grad * w) w.r.t. inputs and seeds: [...]: without need_weights PyTorch attends with its flash kernel (4-d inputs), whose backward is not differentiable; minigrad's attention is a graph of ordinary ops"),
    # --- issue 21, structural ops (tests/sweep/structural.py)
    KF(("Tensor.topk", "torch.topk"), "3x4,k2/*/k/*", "*", GRAD_VALUES, "[backward, seed rand] leaf .grad[0]: torch 0.0, minigrad 0.7155032753944397: PyTorch's topk orders equal values as its quickselect leaves them; minigrad keeps ties in their original order (as sort does)"),
    KF(("Tensor.topk", "torch.topk"), "3x4,k3,smallest/*/k/*", "*", GRAD_VALUES, "[backward, seed rand] leaf .grad[0]: torch 0.21168941259384155, minigrad -0.7153716683387756: PyTorch's topk orders equal values as its quickselect leaves them; minigrad keeps ties in their original order (as sort does)"),
    KF(("Tensor.topk", "torch.topk"), "3x4,k3,smallest/[cTs]/*/i64", "forward", FORWARD_VALUES, "[forward] result[1]: at (0, 2) torch 3, minigrad 2: PyTorch's topk orders equal values as its quickselect leaves them; minigrad keeps ties in their original order (as sort does)"),
    KF(("Tensor.tril_", "Tensor.triu_"), "*/e/*/*", "forward", REFUSES, "[forward] torch result: tensor(float32, [3, 4]), grad_fn=AsStridedBackward0; minigrad raises: RuntimeError('unsupported operation: more than one element of the written-to tensor refers to a single memory location...'): PyTorch writes a triangle into an expanded tensor in place; minigrad refuses, as for the other in-place ops"),
    KF(("Tensor.tril_", "Tensor.triu_"), "*/e/*/*", "anomaly", ANOMALY, "[detect_anomaly(check_nan=True), seed nan] raises: message 'unsupported operation: more than one element of the written-to tensor refers to a single memory location...' lacks torch's: the same refusal as the forward's"),
    KF("torch.einsum", "ii->i/*/*/*", "version.rand", GRAD_VALUES, "[every argument written in place after the op] leaf .grad[0]: torch 0.0, minigrad -0.7210941409353944: PyTorch's einsum takes a diagonal as a view, whose history is rebased when its base is written in place; minigrad's diagonal is a gathered copy"),
    KF("torch.linalg.matrix_norm", "2x3x4,nuc,d2,0/*/[nk]/*", "double.rand", SECOND_ORDER, "[create_graph, seed rand] grad of grad[0]: torch 0.12750382569640256, minigrad 0.0: the singular values' gradient U diag(g) V^T takes U and V as constants, so its second derivative misses how they move"),
    KF("torch.linalg.matrix_norm", "3x4,-2/*/[nk]/*", "double.rand", SECOND_ORDER, "[create_graph, seed rand] grad of grad[0]: torch 0.056899970021542554, minigrad 0.0: the singular values' gradient U diag(g) V^T takes U and V as constants, so its second derivative misses how they move"),
    KF("torch.linalg.matrix_norm", "3x4,2/*/[nk]/*", "double.rand", SECOND_ORDER, "[create_graph, seed rand] grad of grad[0]: torch 0.016124619885300596, minigrad 0.0: the singular values' gradient U diag(g) V^T takes U and V as constants, so its second derivative misses how they move"),
    KF(("torch.linalg.matrix_norm", "torch.linalg.norm"), "3x4,nuc/*/[nk]/*", "double.rand", SECOND_ORDER, "[create_graph, seed rand] grad of grad[0]: torch -0.22777136513408563, minigrad 0.0: the singular values' gradient U diag(g) V^T takes U and V as constants, so its second derivative misses how they move"),
    KF(("Tensor.det", "torch.det", "torch.linalg.det"), "2x3x3/[cTs]/*/*", "anomaly", INF_NAN, "[detect_anomaly(check_nan=False), seed nan] leaf .grad[0]: torch inf, minigrad nan: an inf or NaN in the gradient spreads through the triangular solves in the order of PyTorch's LAPACK kernels, which minigrad's plain LU does not follow"),
    KF(("Tensor.det", "torch.det", "torch.linalg.det"), "2x3x3/[cTs]/*/*", "backward.nan", INF_NAN, "[backward, seed nan] leaf .grad[0]: torch inf, minigrad nan: an inf or NaN in the gradient spreads through the triangular solves in the order of PyTorch's LAPACK kernels, which minigrad's plain LU does not follow"),
    KF(("Tensor.det", "torch.det", "torch.linalg.det"), "3x3,zero/*/*/*", "double.rand", SECOND_ORDER, "[create_graph, seed rand] grad of grad[0]: torch nan, minigrad 0.0: the gradient of det at a singular matrix is 0 * g in both; its own derivative is NaN in PyTorch's (an SVD of a singular matrix), 0 in minigrad's"),
    KF(("Tensor.cumprod", "Tensor.cumprod_", "torch.cumprod"), "2x3x5,d-1/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grad of grad[0]: torch -inf, minigrad nan: second derivative of cumprod at inf/NaN inputs: PyTorch's double-backward formula meets inf * 0 in other places than minigrad's"),
    KF(("Tensor.cumprod", "Tensor.cumprod_", "torch.cumprod"), "3x4,d0/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grad of grad[0]: torch -inf, minigrad nan: second derivative of cumprod at inf/NaN inputs: PyTorch's double-backward formula meets inf * 0 in other places than minigrad's"),
    KF(("Tensor.cumprod", "torch.cumprod"), "6x35,d1/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grad of grad[0]: torch nan, minigrad -inf: second derivative of cumprod at inf/NaN inputs: PyTorch's double-backward formula meets inf * 0 in other places than minigrad's"),
    KF(("Tensor.cumprod", "Tensor.cumprod_", "torch.cumprod"), "3x4,d1/*/s/*", "double.rand", MASKED_NAN, "[create_graph, seed rand] grad of grad[0]: torch -0.26290322130467975, minigrad nan: second derivative of cumprod at inf/NaN inputs: PyTorch's double-backward formula meets inf * 0 in other places than minigrad's"),
    KF(("Tensor.cumprod", "torch.cumprod"), "3x4,d1,f64/*/s/*", "double.rand", MASKED_NAN, "[create_graph, seed rand] grad of grad[1]: torch 0.6592127316889711, minigrad nan: second derivative of cumprod at inf/NaN inputs: PyTorch's double-backward formula meets inf * 0 in other places than minigrad's"),
    # --- end of issue 21's structural block
    # --- issue 21, nn layers (tests/sweep/layers.py)
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/*", "anomaly", ANOMALY, "[detect_anomaly(check_nan=True), seed rand] torch raises: RuntimeError('Function 'EluBackward0' returned nan values in its 0th output.'); minigrad leaf .grad: [...]: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path (0-d, short tails) the gradient; minigrad follows the scalar rule everywhere"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "anomaly", ANOMALY, "[detect_anomaly(check_nan=True), seed rand] torch raises: RuntimeError('Function 'EluBackward0' returned nan values in its 0th output.'); minigrad leaf .grad: [...]: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient; minigrad follows the scalar rule everywhere"),
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/*", "accumulate.rand", INF_NAN, "[accumulate, seed rand] after one backward[0]: torch nan, minigrad -0.24243748314630675: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient; minigrad follows the scalar rule everywhere"),
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/*", "backward.ones", INF_NAN, "[backward, seed ones] leaf .grad[0]: torch nan, minigrad 1.0: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/*", "backward.sum", INF_NAN, "[backward, seed sum] leaf .grad[0]: torch nan, minigrad 1.0: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grads[0]: torch nan, minigrad -0.8498393306929892: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/f64", "backward.nan", INF_NAN, "[backward, seed nan] leaf .grad[0]: torch nan, minigrad -0.0944903471917653: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/f64", "backward.rand", INF_NAN, "[backward, seed rand] leaf .grad[0]: torch nan, minigrad -0.7924834771959783: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "2x3x5/*/s/*", "hook.rand", INF_NAN, "[hook, seed rand] leaf .grad[0]: torch nan, minigrad -0.4423218368950457: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "2x3x5/*/s/*", "version.rand", INF_NAN, "[the output written in place after the op] leaf .grad[0]: torch nan, minigrad 0.9206263887800943: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "accumulate.rand", INF_NAN, "[accumulate, seed rand] after one backward[0]: torch nan, minigrad -0.7833076388312186: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "backward.nan", INF_NAN, "[backward, seed nan] leaf .grad[0]: torch nan, minigrad 0.5060415863990784: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "backward.ones", INF_NAN, "[backward, seed ones] leaf .grad[0]: torch nan, minigrad 1.0: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "backward.rand", INF_NAN, "[backward, seed rand] leaf .grad[0]: torch nan, minigrad 0.33213505148887634: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "backward.sum", INF_NAN, "[backward, seed sum] leaf .grad[0]: torch nan, minigrad 1.0: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grads[0]: torch nan, minigrad -0.12552862656442332: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "hook.rand", INF_NAN, "[hook, seed rand] leaf .grad[0]: torch nan, minigrad 0.6896904515625466: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "version.rand", INF_NAN, "[the output written in place after the op] leaf .grad[0]: torch nan, minigrad 0.17644748933256205: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF("F.elu_", "2x3x5/*/s/*", "hook.rand", HOOK, "[hook, seed rand] calls of the hook on the input before the in-place op[0]: torch nan, minigrad -0.7723155918144196: PyTorch's vectorised CPU kernel gives NaN at a NaN input, its scalar path the gradient"),
    KF("F.hardtanh", "3x4,min0,max2/*/s/*", "[bgadhv]*", GRAD_VALUES, "[backward, seed rand] leaf .grad[0]: torch -0.12821216881275177, minigrad 0.0: at a NaN input PyTorch's scalar path (0-d, short tails) passes the gradient and its vectorised kernel gives 0; minigrad gives 0 everywhere"),
    KF(("F.hardtanh", "F.hardtanh_"), "3x4,-.5,.5/*/s/*", "[bgadhv]*", GRAD_VALUES, "[backward, seed rand] leaf .grad[0]: torch 0.03056109882891178, minigrad 0.0: at a NaN input PyTorch's scalar path passes the gradient and its vectorised kernel gives 0; minigrad gives 0 everywhere"),
    KF(("F.hardtanh", "F.hardtanh_", "F.relu6"), "0d/*/s/*", "[bgadhv]*", GRAD_VALUES, "[backward, seed rand] leaf .grad[0]: torch 0.7923107743263245, minigrad 0.0: at a NaN input PyTorch's scalar path passes the gradient and its vectorised kernel gives 0; minigrad gives 0 everywhere"),
    KF(("F.hardtanh", "F.hardtanh_", "F.relu6"), "2x3x5/*/s/*", "backward.noncontig", GRAD_VALUES, "[backward, seed noncontig] leaf .grad[0]: torch -0.08571916181344119, minigrad 0.0: at a NaN input PyTorch's scalar path (a strided gradient) passes the gradient; minigrad gives 0 everywhere"),
    KF(("F.hardtanh", "F.hardtanh_", "F.relu6"), "2x3x5/*/s/*", "grad.noncontig", GRAD_VALUES, "[autograd.grad, seed noncontig] grads[0]: torch -0.28450849652290344, minigrad 0.0: at a NaN input PyTorch's scalar path (a strided gradient) passes the gradient; minigrad gives 0 everywhere"),
    KF(("F.hardtanh", "F.hardtanh_", "F.relu6"), "3x4/*/s/*", "[bgadhv]*", GRAD_VALUES, "[backward, seed rand] leaf .grad[0]: torch 0.2114834189414978, minigrad 0.0: at a NaN input PyTorch's scalar path passes the gradient and its vectorised kernel gives 0; minigrad gives 0 everywhere"),
    KF(("F.hardtanh", "F.relu6"), "6x35/*/s/*", "backward.noncontig", GRAD_VALUES, "[backward, seed noncontig] leaf .grad[0]: torch -0.2921904868380958, minigrad 0.0: at a NaN input PyTorch's scalar path (a strided gradient) passes the gradient; minigrad gives 0 everywhere"),
    KF(("F.hardtanh", "F.relu6"), "6x35/*/s/*", "grad.noncontig", GRAD_VALUES, "[autograd.grad, seed noncontig] grads[0]: torch -0.8178861737251282, minigrad 0.0: at a NaN input PyTorch's scalar path (a strided gradient) passes the gradient; minigrad gives 0 everywhere"),
    KF("F.gelu", "2x3x5/*/s/f32", "forward", FORWARD_VALUES, "[forward] result: torch nan, minigrad inf: PyTorch's vectorised float32 gelu gives NaN at +inf (its float64 and scalar paths give inf)"),
    KF("F.gelu", "3x4/*/s/f32", "forward", FORWARD_VALUES, "[forward] result: torch nan, minigrad inf: PyTorch's vectorised float32 gelu gives NaN at +inf (its float64 and scalar paths give inf)"),
    KF("F.gelu", "6x35/*/s/f32", "forward", FORWARD_VALUES, "[forward] result: torch nan, minigrad inf: PyTorch's vectorised float32 gelu gives NaN at +inf (its float64 and scalar paths give inf)"),
    KF(("F.hardtanh_", "F.leaky_relu_"), "0/s/*/*", "double.rand", SECOND_ORDER, "[create_graph, seed rand] grads[0]: requires_grad torch True, minigrad False: an empty gradient through an in-place op into a view: PyTorch's comes back with history, minigrad's without"),
    KF("F.softplus", "3x4,t0/*/s/*", "double.rand", SECOND_ORDER, "[create_graph, seed rand] grad of grad[0]: torch -0.0, minigrad -0.05531364491157432: with threshold 0, at x = 0 PyTorch's double backward takes the linear branch, its first derivative the other"),
    KF("F.group_norm", "2x4x3,g2,w,b/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grad of grad[3]: torch nan, minigrad inf: inf and NaN inputs spread through PyTorch's double-backward formula differently than through minigrad's differentiated first-order formula"),
    KF("F.group_norm", "2x4x3,g2,w,b/*/s/f32", "backward.rand", INF_NAN, "[backward, seed rand] leaf .grad[0]: torch inf, minigrad nan: an inf input meets PyTorch's float32 per-channel sums in another order"),
    KF("F.group_norm", "2x4x3,g4,w,b/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grad of grad[3]: torch nan, minigrad inf: inf and NaN inputs spread through PyTorch's double-backward formula differently than through minigrad's differentiated first-order formula"),
    KF("F.group_norm", "3x4,g2,w/*/s/*", "double.rand", INF_NAN, "[create_graph, seed rand] grad of grad[2]: torch nan, minigrad -inf: inf and NaN inputs spread through PyTorch's double-backward formula differently than through minigrad's differentiated first-order formula"),
    KF("F.embedding", "0;5x4/*/*/*", "double.rand", NO_ERROR, "[create_graph, seed rand] torch raises: RuntimeError('cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 can be any value and is ambiguous'): PyTorch's embedding double backward reshapes an empty gradient with -1 (a PyTorch bug); minigrad returns the gradient"),
    KF("F.group_norm", "2x4x3,g1,b,eps0.1/*/*/*", "[bgadhv]*", NO_ERROR, "[backward, seed rand] torch raises: RuntimeError('tensor does not have a device'): PyTorch's group_norm backward with a bias and no weight fails (a PyTorch bug); minigrad returns the gradients"),
    KF("F.layer_norm", "3x4,b,eps0.1/*/*/*", "double.rand", NO_ERROR, "[create_graph, seed rand] torch raises: RuntimeError(\"Expected a proper Tensor but got None (or an undefined Tensor in C++) for argument #1 'other'\"): PyTorch's layer_norm double backward with a bias and no weight fails (a PyTorch bug); minigrad returns the gradient"),
    # --- reductions and selections: tests/sweep/selections.py
    KF(("Tensor.unique", "torch.unique"), "4x2,d0,inv,counts/c/s/f[36][24]", "forward", FORWARD_VALUES, "[forward] result[0]: 8 of 8 values differ, first at (0, 0): torch nan, minigrad 0.0: PyTorch sorts the slices of unique(dim=) with a comparison that skips NaN columns (not a strict weak order), so where a slice holding NaN lands depends on its sort's steps; minigrad sorts NaN last, column by column"),
    KF(("Tensor.unique", "torch.unique"), "2x4,d1,inv/c/s/f64", "forward", FORWARD_VALUES, "[forward] result[0]: values differ: PyTorch sorts the slices of unique(dim=) with a comparison that skips NaN columns (not a strict weak order), so where a slice holding NaN lands depends on its sort's steps; minigrad sorts NaN last, column by column"),
    # --- end of the reductions and selections block
    # --- forward mode (issue 22): the sweep's jvp column, 246 of its 24,077 cases (drafted with
    # `triage --full --check jvp` and `draft`, then read). What differs, by kind:
    # - special values (`/s/`): in forward over reverse, PyTorch's fused backward kernels (conv,
    #   batch_norm, mse, nll with weights, elu/gelu/hardswish float32) put NaN where minigrad's
    #   formula, written with ops, gives inf or a number (and the other way round);
    # - det at a singular matrix and the SVD norms (nuc, 2, -2): their backward formulas take U and
    #   V (or the adjugate) as constants, so the gradient's tangent misses how those move (the
    #   create_graph entries above say the same of the second derivative);
    # - in-place ops with their own input as operand (x.mul_(x), pow_, atan2_, remainder_, fmod_):
    #   PyTorch's in-place formula reads the operand after it was overwritten; minigrad's gives
    #   the derivative of the function;
    # - cumprod past a zero with inf/NaN inputs, vector_norm's tangent dtype with dtype=float64
    #   (PyTorch's stays float32), layer_norm of 0 rows (no tangent in PyTorch), group_norm g1
    #   with a bias (PyTorch raises), hardtanh at its bounds (as the reverse entries above), and
    #   float32 rounding in multi-head attention's second order.
    KF("F.batch_norm", "2x3x4x4,train,m0.3/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -inf"),
    KF("F.batch_norm", "2x3x5,train/*/s/f32", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad inf"),
    KF("F.batch_norm", "4x3,train/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -inf"),
    KF("F.batch_norm", "no-stats,train/*/s/f64", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad inf"),
    KF("F.conv1d", "2x3x7;4x3x2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.5024833679199219"),
    KF("F.conv1d", "2x3x7;4x3x3;4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.009811464697122574"),
    KF("F.conv1d", "3x7;4x3x3;4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.7429105043411255"),
    KF("F.conv1d", "pad-same,k2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.32963699102401733"),
    KF("F.conv1d", "pad-same,k3,d2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.6108163595199585"),
    KF(("F.conv1d", "F.conv2d"), "pad-valid/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.21242590248584747"),
    KF(("F.conv1d", "F.conv2d"), "stride2,pad1/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.19039475917816162"),
    KF(("F.conv1d", "F.conv2d", "F.conv_transpose2d"), "dilation2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.655739426612854"),
    KF(("F.conv1d", "F.conv2d", "F.conv_transpose2d"), "groups2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.6069318652153015"),
    KF("F.conv2d", "1x2x4x4;3x2x1x1;3/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.6697033643722534"),
    KF("F.conv2d", "2x3x6x6;4x3x3x3/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -1.123748540878296"),
    KF("F.conv2d", "2x3x6x6;4x3x3x3;4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.1778569370508194"),
    KF("F.conv2d", "3x6x6;4x3x3x3;4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 2.414987087249756"),
    KF("F.conv2d", "depthwise,stride2,pad1/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.19614815711975098"),
    KF("F.conv2d", "dilation(2,1),pad(2,1)/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 1.271363615989685"),
    KF("F.conv2d", "pad-same,k2x4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.10876740515232086"),
    KF("F.conv2d", "pad-same/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 2.567596435546875"),
    KF(("F.conv2d", "F.conv_transpose2d"), "stride(1,2),pad(0,1)/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -1.1130759716033936"),
    KF("F.conv_transpose2d", "1x2x4x4;2x3x1x1;3/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.5191576480865479"),
    KF("F.conv_transpose2d", "2x3x4x4;3x2x3x3/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -2.3518435955047607"),
    KF("F.conv_transpose2d", "2x3x4x4;3x2x3x3;2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 2.473234176635742"),
    KF("F.conv_transpose2d", "3x4x4;3x2x3x3;2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 2.407660722732544"),
    KF("F.conv_transpose2d", "outpad1,dilation2/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -1.3803421258926392"),
    KF("F.conv_transpose2d", "stride2,pad1,outpad1/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.36326199769973755"),
    KF(("F.cross_entropy", "F.nll_loss"), "weight,ignore1,none/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] grads[0]: torch nan, minigrad -inf"),
    KF(("F.elu", "F.elu_", "F.hardswish"), "2x3x5/*/s/f64", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch nan, minigrad -0.313624020627423"),
    KF(("F.elu", "F.hardswish"), "6x35/*/s/*", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch nan, minigrad 0.622175931930542"),
    KF("F.gelu", "2x3x5/*/s/f32", "jvp.rand", TANGENTS, "[forward mode] outputs[0]: torch nan, minigrad inf"),
    KF("F.gelu", "3x4/*/s/f32", "jvp.rand", TANGENTS, "[forward mode] outputs[0]: torch nan, minigrad inf"),
    KF("F.gelu", "6x35/*/s/f32", "jvp.rand", TANGENTS, "[forward mode] outputs[0]: torch nan, minigrad inf"),
    KF("F.group_norm", "2x4x3,g1,b,eps0.1/T/*/*", "jvp.rand", TANGENTS, "[forward over reverse] torch raises: RuntimeError('shape '[0]' is invalid for input of size 4'); minigrad grads: [tensor(float32, [3, 4, 2], requires_grad=False"),
    KF("F.group_norm", "2x4x3,g1,b,eps0.1/c/*/*", "jvp.rand", TANGENTS, "[forward over reverse] torch raises: RuntimeError('shape '[0]' is invalid for input of size 4'); minigrad grads: [tensor(float32, [2, 4, 3], requires_grad=False"),
    KF("F.group_norm", "2x4x3,g1,b,eps0.1/s/*/*", "jvp.rand", TANGENTS, "[forward over reverse] torch raises: RuntimeError('shape '[0]' is invalid for input of size 4'); minigrad grads: [tensor(float32, [2, 4, 6], requires_grad=False"),
    KF("F.hardtanh", "3x4,min0,max2/*/s/*", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch 0.9748761653900146, minigrad 0.0"),
    KF(("F.hardtanh", "F.hardtanh_"), "3x4,-.5,.5/*/s/*", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch -0.6131447553634644, minigrad 0.0"),
    KF(("F.hardtanh", "F.hardtanh_", "F.relu6"), "0d/*/s/*", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch 0.1380956918001175, minigrad 0.0"),
    KF(("F.hardtanh", "F.hardtanh_", "F.relu6"), "3x4/*/s/*", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch -0.2618755102157593, minigrad 0.0"),
    KF(("F.hardtanh", "F.relu6"), "3x4,inplace/*/s/f32", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch 0.23435547947883606, minigrad 0.0"),
    KF("F.layer_norm", "0x4/T/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch None, minigrad tensor(float32, [4, 0] [], requires_grad=False)"),
    KF("F.layer_norm", "0x4/c/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch None, minigrad tensor(float32, [0, 4] [], requires_grad=False)"),
    KF("F.layer_norm", "0x4/s/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch None, minigrad tensor(float32, [0, 8] [], requires_grad=False)"),
    KF("F.layer_norm", "0x4/same/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch None, minigrad tensor(float32, [0, 4] [], requires_grad=False)"),
    KF("F.mse_loss", "0d,0d/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.19804969429969788"),
    KF("F.mse_loss", "3x1,1x4,none/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.5918211340904236"),
    KF("F.mse_loss", "3x4,3x4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.015166311524808407"),
    KF("F.mse_loss", "3x4,4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.0030508548952639103"),
    KF("F.mse_loss", "4,3x4/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.34458696842193604"),
    KF("F.mse_loss", "none/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -0.03167334571480751"),
    KF("F.mse_loss", "sum/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad 0.6439833045005798"),
    KF("F.multi_head_attention_forward", "float-padding/c/n/f32", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[4]: torch 2.2172927856445312e-05, minigrad -5.340576171875e-05"),
    KF("F.nll_loss", "weight/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] grads[0]: torch nan, minigrad 0.0"),
    KF("F.softplus", "3x4,t0/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch 0.0, minigrad 0.12633655965328217"),
    KF(("Tensor.__imod__", "Tensor.__imul__", "Tensor.arctan2_", "Tensor.atan2_", "Tensor.fmod_", "Tensor.mul_", "Tensor.pow_", "Tensor.remainder_"), "*/same/*/*", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: torch inf, minigrad 0.0"),
    KF(("Tensor.cumprod", "Tensor.cumprod_", "torch.cumprod"), "2x3x5,d-1/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad -inf"),
    KF(("Tensor.cumprod", "Tensor.cumprod_", "torch.cumprod"), "3x4,d1/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad inf"),
    KF(("Tensor.cumprod", "torch.cumprod"), "3x4,d1,f64/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad inf"),
    KF(("Tensor.cumprod", "torch.cumprod"), "6x35,d1/*/s/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch nan, minigrad inf"),
    KF(("Tensor.det", "torch.det", "torch.linalg.det"), "3x3,zero/T/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 3] [nan, nan, nan, nan, ...], requires_grad=False), minigrad None"),
    KF(("Tensor.det", "torch.det", "torch.linalg.det"), "3x3,zero/c/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 3] [nan, nan, nan, nan, ...], requires_grad=False), minigrad None"),
    KF(("Tensor.det", "torch.det", "torch.linalg.det"), "3x3,zero/s/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 6] [nan, 0.0, nan, 0.0, ...], requires_grad=False), minigrad None"),
    KF("torch.linalg.matrix_norm", "2x3x4,nuc,d2,0/*/k/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [2, 3, 4] [0.01348135992884636, -0.0103396475315094, -0.009447190910577774, 0.017944874241948128"),
    KF("torch.linalg.matrix_norm", "2x3x4,nuc,d2,0/T/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [4, 3, 2] [-0.23262953758239746, -0.18686920404434204, 0.043723609298467636, -0.0693421587347984"),
    KF("torch.linalg.matrix_norm", "2x3x4,nuc,d2,0/c/n/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [2, 3, 4] [0.021464191377162933, 0.005016140174120665, 0.018039599061012268, 0.00700396066531539"),
    KF("torch.linalg.matrix_norm", "2x3x4,nuc,d2,0/s/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [2, 3, 8] [0.01612238585948944, 0.0, -0.17488330602645874, 0.0, ...], requires_grad=False), mini"),
    KF("torch.linalg.matrix_norm", "3x4,-2/*/k/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 4] [nan, nan, nan, nan, ...], requires_grad=False), minigrad None"),
    KF("torch.linalg.matrix_norm", "3x4,-2/T/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [4, 3] [0.025524519383907318, -0.018477335572242737, 0.12457654625177383, -0.1020810678601265, ."),
    KF("torch.linalg.matrix_norm", "3x4,-2/c/n/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 4] [0.04714713245630264, 0.03378438204526901, 0.06860167533159256, 0.07346631586551666, ...]"),
    KF("torch.linalg.matrix_norm", "3x4,-2/s/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 8] [-0.04455994814634323, 0.0, 0.09547474980354309, 0.0, ...], requires_grad=False), minigra"),
    KF("torch.linalg.matrix_norm", "3x4,2/*/k/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 4] [-0.036282967776060104, 0.014573910273611546, -0.009543114341795444, 0.03303473815321922,"),
    KF("torch.linalg.matrix_norm", "3x4,2/T/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [4, 3] [0.025039460510015488, 0.026870541274547577, -0.013630885630846024, 0.0032430081628262997"),
    KF("torch.linalg.matrix_norm", "3x4,2/c/n/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 4] [0.20291630923748016, 0.01049136184155941, -0.07380224764347076, -0.26806923747062683, .."),
    KF("torch.linalg.matrix_norm", "3x4,2/s/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 8] [0.6474055647850037, 0.0, 0.7000570297241211, 0.0, ...], requires_grad=False), minigrad N"),
    KF(("torch.linalg.matrix_norm", "torch.linalg.norm"), "3x4,nuc/*/k/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 4] [nan, nan, nan, nan, ...], requires_grad=False), minigrad None"),
    KF(("torch.linalg.matrix_norm", "torch.linalg.norm"), "3x4,nuc/T/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [4, 3] [-0.03618019074201584, 0.029982157051563263, -0.06011006236076355, 0.017483210191130638, "),
    KF(("torch.linalg.matrix_norm", "torch.linalg.norm"), "3x4,nuc/c/n/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 4] [0.1446370780467987, 0.016203388571739197, 0.01433497667312622, 0.02742515504360199, ...]"),
    KF(("torch.linalg.matrix_norm", "torch.linalg.norm"), "3x4,nuc/s/*/*", "jvp.rand", TANGENTS, "[forward over reverse] their tangents[0]: torch tensor(float32, [3, 8] [0.04801471531391144, 0.0, 0.0983472615480423, 0.0, ...], requires_grad=False), minigrad "),
    KF("torch.linalg.vector_norm", "3x4,f64/T/*/f32", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: dtype torch 'float32', minigrad 'float64'"),
    KF("torch.linalg.vector_norm", "3x4,f64/c/*/f32", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: dtype torch 'float32', minigrad 'float64'"),
    KF("torch.linalg.vector_norm", "3x4,f64/s/*/f32", "jvp.rand", TANGENTS, "[forward mode] their tangents[0]: dtype torch 'float32', minigrad 'float64'"),
    # --- end of the forward mode block
)
# fmt: on
