"""torch.distributions against PyTorch: Normal, Uniform, Bernoulli, Categorical, Multinomial and
kl_divergence.

Each snippet runs on both libraries (tests/parity.py): log_prob, entropy, cdf and the moments
with their gradients, shapes and dtypes, on several shapes (parameters and values broadcast),
float32 and float64, and edge parameters (probabilities 0 and 1, logits -inf); the validation
errors word for word, reprs, expand. Draws come from each library's own generator, so samples
are compared by shape, dtype, support and gradient, and their statistics are checked on
minigrad alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from parity import Recorder, assert_same

import minigrad

torch_lib = pytest.importorskip("torch")

DTYPES = ["float32", "float64"]


def values(torch: ModuleType, shape: tuple, dtype: str, seed: int, low: float, high: float):
    rng = np.random.default_rng(seed)
    return torch.tensor(rng.uniform(low, high, shape), dtype=getattr(torch, dtype))


def leaf(torch: ModuleType, shape: tuple | None, dtype: str, seed: int, low=-2.0, high=2.0):
    """A parameter: a tensor leaf that requires grad, or a plain number when shape is None."""
    if shape is None:
        return float(np.random.default_rng(seed).uniform(low, high))
    return values(torch, shape, dtype, seed, low, high).requires_grad_()


def error(out: Recorder, label: str, fn: Callable[[], Any]) -> None:
    """The exception's type and its whole message (the parity check compares only the first
    sentence, and these messages matter to the end: they quote reprs and values). A class
    named in a message is named without its library."""
    try:
        fn()
    except Exception as exc:  # recording is the point
        message = re.sub(r"<class '(torch|minigrad)\.", "<class '", str(exc))
        out(label, (type(exc).__name__, message))
    else:
        out(label, "no exception")


def shapes(out: Recorder, d: Any) -> None:
    out("shapes", (tuple(d.batch_shape), tuple(d.event_shape), repr(d)))


def moments(out: Recorder, d: Any, names: tuple = ("mean", "mode", "variance", "stddev")) -> None:
    for name in names:
        out(name, getattr(d, name))


def gradients(torch: ModuleType, out: Recorder, total: Any, leaves: list) -> None:
    """d total / d leaves (and the second order for the differentiable ones)."""
    leaves = [x for x in leaves if getattr(x, "requires_grad", False)]
    if not leaves:
        return
    grads = torch.autograd.grad(total, leaves, create_graph=True, allow_unused=True)
    out("gradients", [g if g is not None else "None" for g in grads])
    second = [g.sum() for g in grads if g is not None and g.requires_grad]
    if second:
        again = torch.autograd.grad(sum(second), leaves, allow_unused=True)
        out("second order", [g if g is not None else "None" for g in again])


def draws(out: Recorder, d: Any, sample_shape: tuple, support: Callable | None = None) -> None:
    """A sample's shape, dtype and whether it requires grad; `support` checks its values."""
    s = d.sample(sample_shape)
    out("sample", (tuple(s.shape), str(s.dtype).split(".")[-1], s.requires_grad))
    if support is not None:
        out("in support", bool(support(s)))


def check(snippet: Callable, **kw: Any) -> None:
    assert_same(functools.partial(snippet, **kw))


# ------------------------------------------------------------------------------------ Normal
NORMAL_CASES = [  # loc shape, scale shape, value shape (None: a number)
    ((), (), ()),
    (None, None, (3,)),
    ((3,), None, (2, 3)),
    ((2, 1), (3,), (4, 1, 1)),
    (None, (2,), (2,)),
]


def snip_normal(torch, out, case, dtype):
    loc_shape, scale_shape, value_shape = case
    loc = leaf(torch, loc_shape, dtype, 0)
    scale = leaf(torch, scale_shape, dtype, 1, 0.3, 2.0)
    x = values(torch, value_shape, dtype, 2, -3.0, 3.0).requires_grad_()
    d = torch.distributions.Normal(loc, scale)
    shapes(out, d)
    moments(out, d)
    lp, h, c = d.log_prob(x), d.entropy(), d.cdf(x)
    out("log_prob", lp)
    out("entropy", h)
    out("cdf", c)
    out("perplexity", d.perplexity())
    gradients(torch, out, lp.sum() + h.sum() + c.sum(), [loc, scale, x])
    draws(out, d, (5,))
    r = d.rsample((4, 2))
    out(
        "rsample",
        (tuple(r.shape), r.requires_grad == any(isinstance(p, torch.Tensor) for p in (loc, scale))),
    )
    if isinstance(loc, torch.Tensor):  # d(sum of draws)/d loc counts the draws per element
        out("rsample grad loc", torch.autograd.grad(r.sum(), loc)[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", NORMAL_CASES, ids=str)
def test_normal(case, dtype):
    check(snip_normal, case=case, dtype=dtype)


# ----------------------------------------------------------------------------------- Uniform
def snip_uniform(torch, out, case, dtype):
    low_shape, high_shape, value_shape = case
    low = leaf(torch, low_shape, dtype, 0, -2.0, -0.5)
    high = leaf(torch, high_shape, dtype, 1, 0.5, 2.0)
    x = values(torch, value_shape, dtype, 2, -2.5, 2.5)  # some outside: log_prob -inf there
    d = torch.distributions.Uniform(low, high, validate_args=False)
    shapes(out, d)
    moments(out, d)
    lp, h, c = d.log_prob(x), d.entropy(), d.cdf(x)
    out("log_prob", lp)
    out("entropy", h)
    out("cdf", c)
    out("icdf", d.icdf(torch.full_like(x, 0.25)))
    finite = torch.where(torch.isinf(lp), torch.zeros_like(lp), lp)
    gradients(torch, out, finite.sum() + h.sum() + c.sum(), [low, high])
    draws(out, d, (3,))
    r = d.rsample((6,))
    out("rsample in [low, high)", bool(((r >= d.low) & (r < d.high)).all()))
    params = [x for x in (low, high) if isinstance(x, torch.Tensor)]
    if params:
        out("rsample grads", [tuple(g.shape) for g in torch.autograd.grad(r.sum(), params)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", NORMAL_CASES, ids=str)
def test_uniform(case, dtype):
    check(snip_uniform, case=case, dtype=dtype)


# --------------------------------------------------------------------------------- Bernoulli
BERNOULLI_CASES = [  # parameter shape (None: a number), value shape, edges (0 and 1)
    (None, (3,), False),
    ((), (), False),
    ((4,), (2, 4), True),
    ((2, 3), (3,), True),
]


def snip_bernoulli(torch, out, case, by, dtype):
    shape, value_shape, edges = case
    if by == "probs":
        p = leaf(torch, shape, dtype, 0, 0.05, 0.95)
        if edges:
            with torch.no_grad():
                p.view(-1)[:3] = torch.tensor([0.0, 1.0, 0.5])
    else:
        p = leaf(torch, shape, dtype, 0, -4.0, 4.0)
        if edges:
            with torch.no_grad():
                p.view(-1)[:2] = torch.tensor([0.0, 50.0])
    d = torch.distributions.Bernoulli(**{by: p})
    shapes(out, d)
    x = (values(torch, value_shape, dtype, 3, 0.0, 1.0) > 0.5).to(getattr(torch, dtype))
    lp, h = d.log_prob(x), d.entropy()
    out("log_prob", lp)
    out("entropy", h)
    moments(out, d, ("mean", "mode", "variance", "stddev", "probs", "logits"))
    shapes(out, d)  # the derived parameter now shows in the repr
    out("param_shape", tuple(d.param_shape))
    out("support", (d.enumerate_support(), d.enumerate_support(expand=False)))
    gradients(torch, out, lp.sum() + h.sum(), [p])
    draws(out, d, (2,), lambda s: ((s == 0) | (s == 1)).all())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("case", BERNOULLI_CASES, ids=str)
def test_bernoulli(case, by, dtype):
    check(snip_bernoulli, case=case, by=by, dtype=dtype)


# ------------------------------------------------------------------------------- Categorical
CATEGORICAL_CASES = [  # parameter shape, value shape, edges (probs 0 / logits -inf)
    ((5,), (), False),
    ((5,), (3, 1), True),
    ((2, 4), (2,), True),
    ((3, 2, 4), (5, 1, 2), False),
]


def categorical_parameter(torch, by, shape, dtype, edges):
    if by == "probs":
        p = values(torch, shape, dtype, 0, 0.1, 2.0)  # unnormalized: Categorical divides
        if edges:
            p[..., 0] = 0.0
    else:
        p = values(torch, shape, dtype, 0, -3.0, 3.0)
        if edges:
            p[..., 0] = -float("inf")
    return p.requires_grad_()


def snip_categorical(torch, out, case, by, dtype):
    shape, value_shape, edges = case
    p = categorical_parameter(torch, by, shape, dtype, edges)
    d = torch.distributions.Categorical(**{by: p})
    shapes(out, d)
    n = shape[-1]
    x = torch.tensor(np.random.default_rng(4).integers(0, n, value_shape))
    lp, h = d.log_prob(x), d.entropy()
    out("log_prob", lp)
    out("log_prob of a float value", d.log_prob(x.to(getattr(torch, dtype))))
    out("entropy", h)
    moments(out, d, ("mean", "mode", "variance", "probs", "logits"))
    shapes(out, d)
    out("param_shape", tuple(d.param_shape))
    out("support", (repr(d.support), d.enumerate_support(), d.enumerate_support(False)))
    finite = torch.where(torch.isinf(lp), torch.zeros_like(lp), lp)
    gradients(torch, out, finite.sum() + h.sum(), [p])
    draws(out, d, (7,), lambda s: ((s >= 0) & (s < n)).all())
    draws(out, d, ())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("case", CATEGORICAL_CASES, ids=str)
def test_categorical(case, by, dtype):
    check(snip_categorical, case=case, by=by, dtype=dtype)


# ------------------------------------------------------------------------------- Multinomial
MULTINOMIAL_CASES = [  # total_count, parameter shape, edges
    (1, (3,), False),
    (10, (4,), True),
    (6, (2, 3), True),
    (4, (3, 1, 5), False),
]


def snip_multinomial(torch, out, case, by, dtype):
    total, shape, edges = case
    p = categorical_parameter(torch, by, shape, dtype, edges)
    d = torch.distributions.Multinomial(total, **{by: p})
    shapes(out, d)
    rng = np.random.default_rng(5)
    probs = np.full(shape[-1], 1.0 / (shape[-1] - edges))
    probs[0] = 1 - probs[1:].sum() if not edges else 0.0  # no counts where probs are 0
    counts = rng.multinomial(total, probs, size=shape[:-1])
    x = torch.tensor(counts, dtype=getattr(torch, dtype))
    lp, h = d.log_prob(x), d.entropy()
    out("log_prob", lp)
    out("entropy", h)
    moments(out, d, ("mean", "variance", "stddev", "probs", "logits"))
    out("support", (repr(d.support), d.support.upper_bound, tuple(d.param_shape)))
    gradients(torch, out, lp.sum() + h.sum(), [p])
    draws(out, d, (3,), lambda s: (s >= 0).all() & (s.sum(-1) == total).all())
    e = d.expand((2, *d.batch_shape))
    shapes(out, e)
    out("expanded log_prob", e.log_prob(x))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("by", ["probs", "logits"])
@pytest.mark.parametrize("case", MULTINOMIAL_CASES, ids=str)
def test_multinomial(case, by, dtype):
    check(snip_multinomial, case=case, by=by, dtype=dtype)


def snip_d2l_counts(torch, out):
    fair_probs = torch.ones(6) / 6
    counts = torch.distributions.multinomial.Multinomial(1000, fair_probs).sample()
    out("counts", (tuple(counts.shape), counts.dtype, counts.sum(), bool((counts >= 0).all())))
    out("ten rows", torch.distributions.Multinomial(10, fair_probs).sample((500,)).sum(1))


def test_d2l_counts():
    check(snip_d2l_counts)


# ------------------------------------------------------------------------------------ expand
def snip_expand(torch, out):
    D = torch.distributions
    loc = torch.tensor([0.5, -1.0], requires_grad=True)
    made = [
        D.Normal(loc, 2.0),
        D.Uniform(torch.zeros(2), 3.0),
        D.Bernoulli(probs=torch.tensor([0.2, 0.7])),
        D.Bernoulli(logits=torch.tensor([0.2, -0.7])),
        D.Categorical(probs=torch.tensor([[0.2, 0.8], [0.5, 0.5]])),
        D.Categorical(logits=torch.tensor([0.2, 0.8, -1.0])),
    ]
    for d in made:
        e = d.expand((3, 2) if d.batch_shape == (2,) else (3, *d.batch_shape))
        shapes(out, e)
        out("validates", e._validate_args)
        sample = e.sample()
        out("sample shape", tuple(sample.shape))
        out("log_prob", e.log_prob(torch.zeros_like(sample)))
        out("entropy", e.entropy())
    scored = made[0].expand((4, 2)).log_prob(torch.ones(4, 2)).sum()
    out("grad through expand", torch.autograd.grad(scored, loc))
    error(out, "bad expand", lambda: made[0].expand((3,)))


def test_expand():
    check(snip_expand)


# ---------------------------------------------------------------------------- kl_divergence
def snip_kl(torch, out, dtype):
    D = torch.distributions
    kl = D.kl_divergence
    a = leaf(torch, (3,), dtype, 0)
    b = leaf(torch, (3,), dtype, 1, 0.2, 2.0)
    c = leaf(torch, (2, 1), dtype, 2)
    pairs = [
        (D.Normal(a, b), D.Normal(c, 1.5)),
        (D.Uniform(a - 3, a + 3), D.Uniform(torch.zeros(3) - 2, b + 1)),
        (D.Uniform(a - 1, a + 1), D.Uniform(a - 3, b + 3)),
        (D.Uniform(a - 1, b + 1), D.Normal(c, b)),
        (D.Normal(a, b), D.Uniform(-1.0, 1.0)),
    ]
    p = torch.tensor([0.0, 0.3, 1.0, 0.5], dtype=getattr(torch, dtype), requires_grad=True)
    q = torch.tensor([0.2, 0.0, 1.0, 1.0], dtype=getattr(torch, dtype), requires_grad=True)
    pairs.append((D.Bernoulli(p), D.Bernoulli(q)))
    pairs.append((D.Bernoulli(logits=a), D.Bernoulli(logits=b)))
    cp = torch.tensor(
        [[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]], dtype=getattr(torch, dtype), requires_grad=True
    )
    cq = torch.tensor(
        [[0.3, 0.0, 0.7], [0.1, 0.1, 0.8]], dtype=getattr(torch, dtype), requires_grad=True
    )
    pairs.append((D.Categorical(cp), D.Categorical(cq)))
    pairs.append((D.Categorical(logits=cp), D.Categorical(logits=cq[:1])))
    total = 0
    for first, second in pairs:
        k = kl(first, second)
        out("kl", k)
        total = total + torch.where(torch.isinf(k), torch.zeros_like(k), k).sum()
    gradients(torch, out, total, [a, b, c, p, q, cp, cq])
    error(out, "no formula", lambda: kl(D.Multinomial(2, torch.ones(2)), D.Normal(0.0, 1.0)))
    # the masks are written into the result as it is: a pair that only broadcasts raises
    error(out, "broadcast pair", lambda: kl(D.Bernoulli(logits=a), D.Bernoulli(logits=c)))


@pytest.mark.parametrize("dtype", DTYPES)
def test_kl_divergence(dtype):
    check(snip_kl, dtype=dtype)


# ------------------------------------------------------------------ validation, reprs, errors
def snip_errors(torch, out):
    D, C = torch.distributions, torch.distributions.constraints
    t = torch.tensor
    cases = {
        "scale < 0": lambda: D.Normal(0.0, -1.0),
        "scale 0 in a vector": lambda: D.Normal(t([0.0, 1.0]), t([1.0, 0.0])),
        "loc nan": lambda: D.Normal(float("nan"), 1.0),
        "low > high": lambda: D.Uniform(1.0, 0.0),
        "low > high in a vector": lambda: D.Uniform(t([0.0, 2.0]), 1.0),
        "probs > 1": lambda: D.Bernoulli(1.5),
        "neither": lambda: D.Bernoulli(),
        "both": lambda: D.Bernoulli(0.5, logits=0.0),
        "categorical both": lambda: D.Categorical(t([0.5, 0.5]), t([0.0, 0.0])),
        "negative probs": lambda: D.Categorical(t([-1.0, 2.0])),
        "nan logits": lambda: D.Categorical(logits=t([0.0, float("nan")])),
        "0-d probs": lambda: D.Categorical(t(1.0)),
        "0-d logits": lambda: D.Categorical(logits=t(1.0)),
        "tensor total_count": lambda: D.Multinomial(t(3), t([1.0, 1.0])),
        "float total_count": lambda: D.Multinomial(3.0, t([1.0, 1.0])),
        "multinomial neither": lambda: D.Multinomial(3),
        "value not a tensor": lambda: D.Normal(0.0, 1.0).log_prob(1.0),
        "value not broadcastable": lambda: D.Normal(t([0.0, 0.0, 0.0]), 1.0).log_prob(
            t([0.0, 0.0])
        ),
        "category out of range": lambda: D.Categorical(t([1.0, 1.0, 1.0])).log_prob(t(3)),
        "category batch mismatch": lambda: D.Categorical(t([[1.0, 1.0, 1.0]] * 2)).log_prob(
            t([0, 0, 0])
        ),
        "not boolean": lambda: D.Bernoulli(0.3).log_prob(t(0.5)),
        "event size": lambda: D.Multinomial(3, t([1.0, 1.0, 1.0])).log_prob(t([1.0, 1.0])),
        "too many counts": lambda: D.Multinomial(3, t([1.0, 1.0])).log_prob(t([3.0, 1.0])),
        "outside uniform": lambda: D.Uniform(0.0, 1.0).log_prob(t(2.0)),
        "outside uniform cdf": lambda: D.Uniform(t([0.0, 0.0]), 1.0).cdf(t([0.5, 1.5])),
        "dependent check": lambda: C.dependent.check(t(1.0)),
        "independent too few dims": lambda: C.independent(C.real, 2).check(t([1.0])),
        "no mode": lambda: D.Multinomial(3, t([1.0, 1.0])).mode,
        "default validation not a bool": lambda: D.Distribution.set_default_validate_args("yes"),
    }
    for label, fn in cases.items():
        error(out, label, fn)
    off = {
        "scale < 0": D.Normal(0.0, -1.0, validate_args=False).log_prob(t(0.5)),
        "outside uniform": D.Uniform(0.0, 1.0, validate_args=False).log_prob(
            t([2.0, 0.5, 1.0, 0.0])
        ),
        "out of range": D.Categorical(t([1.0, 3.0]), validate_args=False).probs,
        "not boolean": D.Bernoulli(0.3, validate_args=False).log_prob(t(0.5)),
    }
    out("without validation", list(off.values()))
    D.Distribution.set_default_validate_args(False)
    try:
        out("validation off by default", D.Normal(0.0, -1.0).log_prob(t(0.5)))
        out("but on when asked", D.Normal(0.0, 1.0, validate_args=True)._validate_args)
        error(out, "asked", lambda: D.Normal(0.0, -1.0, validate_args=True))
    finally:
        D.Distribution.set_default_validate_args(True)
    error(out, "back on", lambda: D.Normal(0.0, -1.0))


def test_errors():
    check(snip_errors)


def snip_reprs(torch, out):
    D, C = torch.distributions, torch.distributions.constraints
    t = torch.tensor
    c = D.Categorical(probs=t([1.0, 2.0, 1.0]))
    shown = [
        D.Normal(0.0, 1.0),
        D.Normal(torch.zeros(2), 1.0),
        D.Normal(torch.zeros(1), 1.0),
        D.Normal(torch.zeros(2, 3, dtype=torch.float64), 1.0),
        D.Uniform(0.0, 1.0),
        D.Bernoulli(0.3),
        D.Bernoulli(logits=torch.zeros(2, 3)),
        c,
        D.Multinomial(10, t([1.0, 1.0])),
    ]
    out("before", [repr(d) for d in shown])
    out("logits read", c.logits)
    out("after reading logits", repr(c))
    out(
        "constraints",
        [
            repr(x)
            for x in (
                C.real,
                C.positive,
                C.simplex,
                C.boolean,
                C.unit_interval,
                C.nonnegative_integer,
                C.independent(C.real, 1),
                C.integer_interval(0, 4),
                C.greater_than(0.5),
                C.less_than(t([1.0, 2.0])),
                C.interval(-1.0, 1.0),
                C.dependent,
                C.multinomial(3),
                D.Uniform(torch.zeros(2), 1.0).support,
                D.Multinomial(3, t([1.0, 1.0])).support,
                D.Categorical(t([1.0, 1.0])).support,
                D.Normal.arg_constraints,
                D.Bernoulli.arg_constraints,
                D.Categorical.arg_constraints,
                D.Uniform(0.0, 1.0).arg_constraints,
            )
        ],
    )
    out(
        "flags",
        [
            (
                type(d).__name__,
                d.has_rsample,
                d.has_enumerate_support,
                d.support.is_discrete,
                d.support.event_dim,
            )
            for d in shown
        ],
    )
    out(
        "dtypes",
        [(d.mean.dtype if not isinstance(d, D.Multinomial) else d.probs.dtype) for d in shown],
    )
    checked = [
        C.boolean.check(t([0.0, 1.0, 0.5])),
        C.nonnegative_integer.check(t([0.0, 1.5, -1.0])),
    ]
    out(
        "checks",
        [
            *checked,
            C.simplex.check(t([[0.2, 0.8], [0.5, 0.6]])),
            C.real.check(t([float("nan"), 1.0])),
        ],
    )


def test_reprs():
    check(snip_reprs)


def snip_no_grad_params(torch, out):
    """Derived parameters are recorded even under no_grad (they are read lazily)."""
    D = torch.distributions
    p = torch.tensor([0.2, 0.3, 0.5], requires_grad=True)
    d = D.Categorical(p)
    with torch.no_grad():
        logits = d.logits
        draws_ = d.sample((2,))
    out("logits", (logits, logits.requires_grad, draws_.requires_grad))
    b = D.Bernoulli(logits=torch.tensor([0.0, 1.0], requires_grad=True))
    with torch.no_grad():
        out("probs", (b.probs, b.probs.requires_grad))
    n = D.Normal(torch.tensor([0.0], requires_grad=True), 1.0)
    out("sample under grad", n.sample().requires_grad)
    with torch.no_grad():
        out("rsample under no_grad", n.rsample().requires_grad)


def test_no_grad_params():
    check(snip_no_grad_params)


def snip_subclass(torch, out):
    """A distribution written by the user: the base class's shapes, sampling and warnings."""
    D = torch.distributions

    class Coin(D.Distribution):
        def __init__(self, p):
            self.p = p
            super().__init__(p.shape)

        def rsample(self, sample_shape=()):
            return self.p.expand(self._extended_shape(sample_shape)) * 1.0

        def log_prob(self, value):
            self._validate_sample(value)
            return value * self.p.log()

    p = torch.tensor([0.25, 0.5], requires_grad=True)
    with out.warns("no arg_constraints"):
        coin = Coin(p)
    out("shapes", (tuple(coin.batch_shape), tuple(coin.event_shape)))
    error(out, "repr without arg_constraints", lambda: repr(coin))
    out("sample", coin.sample((3,)))
    out("rsample", coin.rsample((3,)).requires_grad)
    with out.warns("no support"):
        out("log_prob", coin.log_prob(torch.ones(2)))
    for name in ("mean", "mode", "variance", "stddev", "support"):
        error(out, name, lambda name=name: getattr(coin, name))
    error(out, "entropy", coin.entropy)
    error(out, "enumerate_support", coin.enumerate_support)
    error(out, "expand", lambda: coin.expand((3, 2)))
    error(out, "cdf", lambda: coin.cdf(p))
    with out.warns("sample_n"):
        out("sample_n", coin.sample_n(2))
    out("extended shape", tuple(coin._extended_shape((4,))))

    class Wide(D.Normal):
        """A fixed scale: its own __init__, so it needs its own expand."""

        def __init__(self, loc):
            super().__init__(loc, 2.0)

    class Wider(Wide):
        def expand(self, batch_shape, _instance=None):
            return super().expand(batch_shape, _instance=Wider.__new__(Wider))

    error(out, "subclass without expand", lambda: Wide(torch.tensor([1.0])).expand((2,)))
    wider = Wider(torch.tensor([1.0])).expand((3, 1))
    out("subclass with expand", (type(wider).__name__, tuple(wider.batch_shape), wider.scale))


def test_subclass():
    check(snip_subclass)


# ------------------------------------------------- statistics of minigrad's own draws (no torch)
def test_sample_statistics_match_the_moments():
    D = minigrad.distributions
    minigrad.manual_seed(0)
    n = 20000
    made = [
        D.Normal(minigrad.tensor([0.0, 3.0]), minigrad.tensor([1.0, 0.5])),
        D.Uniform(minigrad.tensor([-1.0, 2.0]), minigrad.tensor([1.0, 5.0])),
        D.Bernoulli(minigrad.tensor([0.1, 0.7])),
        D.Multinomial(5, minigrad.tensor([0.2, 0.3, 0.5])),
    ]
    for d in made:
        s = d.sample((n,)).numpy().astype(np.float64)
        np.testing.assert_allclose(s.mean(0), d.mean.numpy(), atol=0.05)
        np.testing.assert_allclose(s.var(0), d.variance.numpy(), atol=0.05, rtol=0.05)
    probs = np.array([0.1, 0.0, 0.6, 0.3])
    s = D.Categorical(minigrad.tensor(probs)).sample((n,)).numpy()
    np.testing.assert_allclose(np.bincount(s, minlength=4) / n, probs, atol=0.01)


def test_seeded_draws_repeat():
    D = minigrad.distributions

    def draw():
        minigrad.manual_seed(7)
        return [
            d.sample((3,)).numpy()
            for d in (
                D.Normal(0.0, 1.0),
                D.Uniform(0.0, 1.0),
                D.Bernoulli(0.5),
                D.Multinomial(4, minigrad.ones(3)),
            )
        ]

    for a, b in zip(draw(), draw(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_exposed_like_pytorch():
    import minigrad.distributions.categorical as categorical
    import minigrad.distributions.multinomial as multinomial

    assert minigrad.distributions.multinomial.Multinomial is multinomial.Multinomial
    assert minigrad.distributions.categorical.Categorical is categorical.Categorical
    assert minigrad.distributions.kl.kl_divergence is minigrad.distributions.kl_divergence
    assert isinstance(
        minigrad.distributions.normal.Normal(0.0, 1.0), minigrad.distributions.Distribution
    )
