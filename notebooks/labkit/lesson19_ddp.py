"""Lesson 19, part 1: data parallelism in one process, gradients averaged bucket by bucket from
post-accumulate hooks while backward still runs.

The lesson's ranks are model replicas in one process; they meet only in `all_reduce`, the
simulated collective: handed one list of gradient tensors per rank, it averages them across the
ranks in place. The learner's `Reducer(replicas, cap, all_reduce)` groups the parameters into
buckets (reverse registration order, a bucket closes once it holds `cap` elements, as DDP's
`bucket_cap_mb` does), counts arrivals from post-accumulate hooks, and calls `all_reduce` on a
bucket the moment its last gradient is written on the last rank; `no_sync()` skips all of it.

`check_reducer` builds an unseen model, replica count and bucket size per call and passes its
own `all_reduce`, which notes each call against the engine's records (listened to, not kept):
inside which backward pass, after which gradient write, with which tensors. Each cheat shows
there: a call outside any pass (after backward returned, in `no_sync`'s exit), ranks averaged
without the collective (reading each other's `.grad`), one call per parameter or one for the
whole model instead of the buckets, a bucket reduced late (after gradients of other buckets
were written), gradients copied in instead of each rank's own, a backward or forward run inside
the hooks, and reductions during `no_sync`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

import minigrad as mg
from minigrad.core.observe import LISTENERS

from .feedback import Verdict, verdict
from .hints import register
from .language import say

register(
    "19",
    REDUCER := "the bucketed reducer",
    "Build the buckets with `lesson19.buckets_of(list(replicas[0].parameters()), cap)` (lists "
    "of parameter indices) and keep, for each index, the bucket it belongs to, and a count of "
    "arrivals per bucket.",
    "Register `p.register_post_accumulate_grad_hook(...)` on every parameter of every replica; "
    "the hook counts one arrival for its bucket. When the count reaches `len(bucket) * K`, call "
    "`all_reduce` with one list per rank (the bucket's `p.grad` tensors on that rank) and reset "
    "the count.",
    "`no_sync` is a `@contextmanager` that sets a flag to False, yields, and sets it back to "
    "True; the hook returns at once while the flag is False (the gradients simply accumulate).",
    zh_title="分桶归约器",
    zh=(
        "用 `lesson19.buckets_of(list(replicas[0].parameters()), cap)` 建桶（每个桶是一串参数"
        "序号），为每个序号记下它属于哪个桶，再为每个桶准备一个到达计数。",
        "给每个副本的每个参数注册 `p.register_post_accumulate_grad_hook(...)`；钩子为它所在的"
        "桶记一次到达。计数达到 `len(bucket) * K` 时调用 `all_reduce`，每个副本传一个列表"
        "（这个桶在该副本上的各个 `p.grad`），然后把计数清零。",
        "`no_sync` 是一个 `@contextmanager`：把一个标志设成 False，yield，再设回 True；标志为 "
        "False 时钩子立刻返回（梯度只是照常累加）。",
    ),
)


def all_reduce(grads_by_rank: list[list[mg.Tensor]]) -> None:
    """The simulated collective: `grads_by_rank[r]` is rank r's list of gradients (the same
    shapes on every rank); each tensor is replaced, in place, by its average over the ranks."""
    with mg.no_grad():
        for same in zip(*grads_by_rank, strict=True):
            mean = sum(g.detach().clone() for g in same) / len(same)
            for g in same:
                g.copy_(mean)


def buckets_of(params: list[Any], cap: int) -> list[list[int]]:
    """DDP's rule, by parameter index: reverse order, a bucket closes at `cap` elements."""
    buckets, current, size = [], [], 0
    for i in reversed(range(len(params))):
        current.append(i)
        size += params[i].numel()
        if size >= cap:
            buckets.append(current)
            current, size = [], 0
    if current:
        buckets.append(current)
    return buckets


# --- the check's problem: an unseen model, K replicas, micro-batches --------------------


class _Problem:
    """Drawn per call: widths, depth, replicas, micro-batch size, and a cap that makes at least
    two buckets, one of them holding several parameters."""

    def __init__(self, gen: np.random.Generator) -> None:
        self.seed = int(gen.integers(1, 10_000))
        self.widths = [int(w) for w in gen.integers(3, 9, size=int(gen.integers(4, 6)))]
        self.k = int(gen.integers(2, 5))
        self.rows = int(gen.integers(3, 7))
        self.gen = gen
        params = list(self.model().parameters())
        sizes = [p.numel() for p in params]
        while True:
            self.cap = int(gen.integers(min(sizes) + 1, sum(sizes) // 2 + 2))
            found = buckets_of(params, self.cap)
            if len(found) >= 2 and max(map(len, found)) >= 2:
                self.buckets = found
                break

    def model(self) -> mg.nn.Module:
        mg.manual_seed(self.seed)
        layers: list[Any] = []
        for a, b in zip(self.widths, self.widths[1:], strict=False):
            layers += [mg.nn.Linear(a, b), mg.nn.Tanh()]
        return mg.nn.Sequential(*layers[:-1])

    def batches(self) -> list[tuple[mg.Tensor, mg.Tensor]]:
        """One micro-batch per rank."""
        return [
            (
                mg.tensor(self.gen.normal(size=(self.rows, self.widths[0])).astype(np.float32)),
                mg.tensor(self.gen.normal(size=(self.rows, self.widths[-1])).astype(np.float32)),
            )
            for _ in range(self.k)
        ]


def _loss(model: Any, batch: tuple[mg.Tensor, mg.Tensor]) -> mg.Tensor:
    x, y = batch
    return mg.nn.functional.mse_loss(model(x), y)


def _large_batch(problem: _Problem, steps: list[list[tuple]]) -> list[np.ndarray]:
    """Single process: the gradient of the mean loss over every rank's micro-batch, summed over
    the micro-steps (accumulation): what every replica must hold at the end."""
    model = problem.model()
    for batches in steps:
        x = mg.cat([b[0] for b in batches])
        y = mg.cat([b[1] for b in batches])
        _loss(model, (x, y)).backward()
    return [p.grad.numpy().copy() for p in model.parameters()]


class _Log:
    """The engine's gradient writes and the collective's calls, in one sequence."""

    def __init__(self, replicas: list[Any]) -> None:
        self.index = {
            id(p): (r, i) for r, m in enumerate(replicas) for i, p in enumerate(m.parameters())
        }
        self.params = [list(m.parameters()) for m in replicas]
        self.events: list[tuple] = []  # ("write", rank, i) | ("reduce", call) | ("nested",)
        self.calls: list[dict[str, Any]] = []
        self.depth = 0
        self.forward_in_pass = 0
        self.local: dict[tuple[int, int], np.ndarray] = {}  # what each write left in .grad

    def listen(self, record: dict[str, Any]) -> None:
        kind = record["kind"]
        if kind == "backward_start":
            self.depth += 1
            if self.depth > 1:
                self.events.append(("nested",))
        elif kind == "backward_end":
            self.depth = max(0, self.depth - 1)
        elif kind == "node_created" and self.depth:
            self.forward_in_pass += 1
        elif kind == "accumulate":
            where = self.index.get(id(record["variable"]))
            if where is not None:
                self.events.append(("write", *where))
                self.local[where] = np.array(record["after"], dtype=np.float64, copy=True)

    def all_reduce(self, grads_by_rank: Any) -> None:
        """The check's collective: notes the call, then averages as the lesson's does."""
        call = {"inside": self.depth > 0, "who": [], "values_ok": True, "shape_ok": True}
        try:
            for r, grads in enumerate(grads_by_rank):
                who = []
                for g in grads:
                    found = [
                        i
                        for i, p in enumerate(self.params[r])
                        if p.grad is not None and p.grad is g
                    ]
                    who.append(found[0] if found else None)
                    local = self.local.get((r, found[0])) if found else None
                    if local is None or not np.allclose(g.numpy(), local, rtol=1e-6, atol=1e-9):
                        call["values_ok"] = False
                call["who"].append(who)
        except TypeError:
            call["shape_ok"] = False
        self.calls.append(call)
        self.events.append(("reduce", len(self.calls) - 1))
        aligned = call["shape_ok"] and all(who == call["who"][0] for who in call["who"])
        if aligned and None not in call["who"][0]:
            all_reduce(grads_by_rank)


@contextmanager
def _listening(log: _Log) -> Iterator[None]:
    LISTENERS.append(log.listen)
    try:
        yield
    finally:
        LISTENERS.remove(log.listen)


def _run(replicas: list[Any], batches: list[tuple], sync: bool, reducer: Any) -> None:
    """One micro-step: every rank's forward and backward in turn, under `no_sync` or not."""
    if not sync:
        with reducer.no_sync():
            _run(replicas, batches, True, reducer)
        return
    for model, batch in zip(replicas, batches, strict=True):
        _loss(model, batch).backward()


# --- what is wrong, in words ---------------------------------------------------------------


def _names(buckets: list[list[int]], names: list[str]) -> str:
    return "; ".join("[" + ", ".join(names[i] for i in b) + "]" for b in buckets)


def _phase(phase: str) -> str:
    return {
        "sync": say("in a synchronised step: ", "在同步的一步里："),
        "again": say("in the second step (after zero_grad): ", "在第二步（zero_grad 之后）："),
        "no_sync": say(
            "in the step after two no_sync micro-steps: ", "在两个 no_sync 微步之后的那一步："
        ),
    }[phase]


def _outside() -> str:
    return say(
        "all_reduce was called while no backward pass was running (after backward() returned, "
        "or on leaving no_sync): call it from the post-accumulate hooks, so that communication "
        "overlaps the rest of backward.",
        "all_reduce 被调用时并没有反向传播在运行（backward() 已经返回，或者在离开 no_sync 时）："
        "请在累积后钩子里调用它，让通信和反向传播的剩余部分重叠进行。",
    )


def _judge(log: _Log, problem: _Problem, names: list[str], phase: str, first: int) -> str | None:
    """What is wrong with the events from `first` on (one synchronised step), or None."""
    events = log.events[first:]
    calls = [log.calls[e[1]] for e in events if e[0] == "reduce"]
    pre = _phase(phase)
    if any(e[0] == "nested" for e in events) or log.forward_in_pass:
        return pre + say(
            "your hooks ran a forward or a backward pass of their own: a rank's gradient is the "
            "one its backward wrote; nothing is recomputed or copied in.",
            "你的钩子自己跑了一次前向或反向传播：每个副本的梯度就是它自己的 backward 写下的那个，"
            "不重算，也不从别处拷进来。",
        )
    if any(not c["inside"] for c in calls):
        return pre + _outside()
    if not calls:
        return pre + say(
            "all_reduce was never called, so each replica kept its own gradient (or the ranks "
            "met another way, such as reading each other's .grad, which separate processes "
            "cannot do). Reduce each bucket through all_reduce.",
            "all_reduce 一次都没有被调用，所以每个副本保留的是自己的梯度（或者副本之间用了别的办法"
            "互通，比如读别的副本的 .grad，而分开的进程做不到这一点）。请通过 all_reduce 归约"
            "每个桶。",
        )
    if any(not c["shape_ok"] or len(c["who"]) != problem.k for c in calls):
        return pre + say(
            f"all_reduce takes one list of gradients per rank ({problem.k} lists here).",
            f"all_reduce 接收的是每个副本一个梯度列表（这里应有 {problem.k} 个列表）。",
        )
    if any(None in w for c in calls for w in c["who"]) or any(not c["values_ok"] for c in calls):
        return pre + say(
            "all_reduce was handed tensors that are not the ranks' own gradients as backward "
            "wrote them: pass each bucket's `p.grad` tensors, nothing copied or computed "
            "elsewhere.",
            "交给 all_reduce 的张量不是各副本的 backward 写下的梯度：请传入每个桶的 `p.grad`，"
            "不要拷贝别处算出的梯度。",
        )
    got = [c["who"][0] for c in calls]
    want = problem.buckets
    if any(c["who"][r] != c["who"][0] for c in calls for r in range(problem.k)):
        return pre + say(
            "the ranks' lists in one all_reduce call are not the same parameters in the same "
            "order: the collective averages position by position.",
            "同一次 all_reduce 调用里，各副本的列表不是按同样顺序排列的同一组参数：集合通信是按"
            "位置逐个求平均的。",
        )
    if sorted(map(sorted, got)) != sorted(map(sorted, want)):
        return pre + say(
            f"all_reduce got {len(got)} call(s) with {_names(got, names)}, but the buckets for "
            f"cap={problem.cap} are {_names(want, names)}. "
            + (
                "One call per parameter ignores the buckets: collect a bucket's gradients and "
                "reduce them together."
                if all(len(g) == 1 for g in got)
                else "Build buckets in reverse parameter order and close one at `cap` elements."
            ),
            f"all_reduce 被调用了 {len(got)} 次，参数分别是 {_names(got, names)}，但 "
            f"cap={problem.cap} 时的桶应该是 {_names(want, names)}。"
            + (
                "每个参数调用一次就忽略了桶：把一个桶的梯度凑齐，再一起归约。"
                if all(len(g) == 1 for g in got)
                else "按参数的逆序建桶，桶里的元素达到 `cap` 个就封上。"
            ),
        )
    late = _late_buckets(events, problem, log.calls, names)
    if late:
        return pre + late
    return None


def _late_buckets(
    events: list[tuple], problem: _Problem, calls: list[dict], names: list[str]
) -> str | None:
    """A bucket must be reduced right after its last gradient is written on the last rank:
    counted in gradient writes between the two, from the engine's records."""
    bucket_of = {i: b for b, members in enumerate(problem.buckets) for i in members}
    sorted_buckets = [sorted(m) for m in problem.buckets]
    remaining = {b: len(m) * problem.k for b, m in enumerate(problem.buckets)}
    complete_at: dict[int, int] = {}
    late: list[tuple[int, int]] = []
    writes = 0
    for e in events:
        if e[0] == "write":
            writes += 1
            b = bucket_of[e[2]]
            remaining[b] -= 1
            if remaining[b] == 0:
                complete_at[b] = writes
        elif e[0] == "reduce":
            b = sorted_buckets.index(sorted(calls[e[1]]["who"][0]))
            if b not in complete_at:
                return say(
                    "a bucket was reduced before every rank had written its gradients: count "
                    f"arrivals up to len(bucket) × {problem.k} ranks before calling all_reduce.",
                    "有个桶在所有副本都写完梯度之前就被归约了：先数到 len(bucket) × "
                    f"{problem.k} 个副本次到达，再调用 all_reduce。",
                )
            if writes > complete_at[b]:
                late.append((b, writes - complete_at[b]))
    if not late:
        return None
    b, n = late[0]
    members = ", ".join(names[i] for i in problem.buckets[b])
    at_the_end = len(late) == len(problem.buckets) - 1
    return say(
        f"bucket [{members}] was reduced late: {n} more gradient(s) were written after it was "
        "complete. "
        + (
            "Waiting for the whole backward removes the overlap that buckets are for: "
            if at_the_end
            else ""
        )
        + "reduce each bucket as soon as its last gradient arrives.",
        f"桶 [{members}] 归约得太晚了：它凑齐之后又写入了 {n} 个梯度。"
        + ("等整个反向传播结束再归约，就失去了分桶要带来的重叠：" if at_the_end else "")
        + "每个桶的最后一个梯度一到就归约。",
    )


# --- the check ------------------------------------------------------------------------------


def _grads_match(replicas: list[Any], want: list[np.ndarray]) -> bool:
    return all(
        p.grad is not None and np.allclose(p.grad.numpy(), w, rtol=1e-4, atol=1e-6)
        for m in replicas
        for p, w in zip(m.parameters(), want, strict=True)
    )


def _wrong_result(replicas: list[Any], want: list[np.ndarray], phase: str) -> str:
    own = all(
        p.grad is not None and not np.allclose(p.grad.numpy(), w, rtol=1e-4, atol=1e-6)
        for m in replicas[:1]
        for p, w in zip(m.parameters(), want, strict=True)
    )
    return _phase(phase) + say(
        "after the step the replicas' gradients are not the large-batch gradient (the average "
        "over ranks of each rank's own)"
        + (": some were changed after all_reduce averaged them." if not own else "."),
        "这一步之后，各副本的梯度不是大批量的梯度（各副本自己的梯度在副本间的平均）"
        + ("：有些梯度在 all_reduce 求完平均之后又被改动了。" if not own else "。"),
    )


def _step(
    v: Verdict,
    problem: _Problem,
    replicas: list[Any],
    reducer: Any,
    log: _Log,
    names: list[str],
    phase: str,
) -> bool:
    """One training step (with two no_sync micro-steps first in the "no_sync" phase), judged."""
    micro = [problem.batches() for _ in range(3 if phase == "no_sync" else 1)]
    for m in replicas:
        for p in m.parameters():
            p.grad = None
    log.forward_in_pass = 0
    first = len(log.events)
    try:
        with _listening(log):
            if phase == "no_sync":
                for batches in micro[:2]:
                    _run(replicas, batches, False, reducer)
                during = [log.calls[e[1]] for e in log.events[first:] if e[0] == "reduce"]
                if any(not c["inside"] for c in during):
                    return v.require(False, _outside())
                if not v.require(
                    not during,
                    say(
                        "all_reduce ran inside no_sync: the accumulation micro-steps must not "
                        "communicate (that is the saving no_sync exists for).",
                        "all_reduce 在 no_sync 里面运行了：梯度累积的微步不应该通信（no_sync "
                        "省下的正是这部分）。",
                    ),
                ):
                    return False
                first = len(log.events)
            _run(replicas, micro[-1], True, reducer)
    except Exception as err:  # the learner's hooks or no_sync
        return v.require(
            False,
            _phase(phase)
            + say(
                f"your reducer raised {type(err).__name__}: {err}",
                f"你的归约器抛出了 {type(err).__name__}：{err}",
            ),
        )
    problem_words = _judge(log, problem, names, phase, first)
    if problem_words is not None:
        return v.require(False, problem_words)
    want = _large_batch(problem, micro)
    return v.require(_grads_match(replicas, want), _wrong_result(replicas, want, phase))


def check_reducer(reducer_class: Any, *, gen: np.random.Generator | None = None) -> bool:
    """`reducer_class(replicas, cap, all_reduce)` on an unseen model: every bucket reduced once,
    from inside backward, as soon as it is complete; the large-batch gradient on every rank;
    nothing reduced under `no_sync()`."""
    v = verdict(REDUCER)
    if not v.answered(reducer_class, "Reducer"):
        return v.done("")
    problem = _Problem(gen if gen is not None else np.random.default_rng())
    replicas = [problem.model() for _ in range(problem.k)]
    names = [n for n, _ in replicas[0].named_parameters()]
    log = _Log(replicas)
    try:
        with _listening(log):
            reducer = reducer_class(replicas, problem.cap, log.all_reduce)
    except Exception as err:  # the learner's constructor
        v.require(
            False,
            say(
                f"Reducer(replicas, cap, all_reduce) raised {type(err).__name__}: {err}",
                f"Reducer(replicas, cap, all_reduce) 抛出了 {type(err).__name__}：{err}",
            ),
        )
        return v.done("")
    if log.calls:
        v.require(
            False,
            say(
                "all_reduce was called while the reducer was being built: there are no "
                "gradients yet; reduce from the hooks, during backward.",
                "归约器还在构建时就调用了 all_reduce：这时还没有梯度；请在反向传播期间从钩子里"
                "归约。",
            ),
        )
        return v.done("")
    if not callable(getattr(reducer, "no_sync", None)):
        v.require(
            False,
            say(
                "the reducer has no `no_sync()` method (a context manager).",
                "归约器没有 `no_sync()` 方法（一个上下文管理器）。",
            ),
        )
        return v.done("")
    for phase in ("sync", "again", "no_sync"):
        if not _step(v, problem, replicas, reducer, log, names, phase):
            return v.done("")
    return v.done(
        say(
            "every bucket reduced exactly once per step, from inside backward, the moment its "
            "last gradient arrived; every replica holds the large-batch gradient; no_sync "
            "skipped the communication and the next step averaged the accumulated sums.",
            "每一步里每个桶都恰好归约一次，就在反向传播当中、它的最后一个梯度到达的那一刻；每个"
            "副本都得到了大批量的梯度；no_sync 跳过了通信，下一步对累积的总和求了平均。",
        )
    )
