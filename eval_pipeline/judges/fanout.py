"""Asking a judge about many requests at once: concurrently, answers in input order.

``judge_each`` is the one way the project asks a judge about a batch (judged metrics,
calibration, the cache's misses). A judge with its own batch method (the cache, the offline
judge) gets the batch; any other judge is asked by up to ``concurrency_of(judge)`` threads, its
``JudgeLimits.max_concurrency`` (one for a judge that declares no limits: nothing says it is
safe to call from several threads). The judge's own ``RequestGate`` still bounds what reaches
its endpoint, so several batches at once (the metrics of a build) share its limit.

Answers come back in the order of the requests, whatever order they completed in, and a
request's exception is its answer, so one bad input does not stop the others. ``on_answer`` is
called, from the worker that got it, with each answer's position as soon as it is known (the
cache stores answers in batches as they arrive); a batch judge's answers are reported when its
batch returns.
"""

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, runtime_checkable

from eval_pipeline.judges.limits import JudgeLimits
from eval_pipeline.judges.protocol import Judge, JudgeRequest, JudgeVerdict

Answer = JudgeVerdict | Exception
OnAnswer = Callable[[int, Answer], None]


@runtime_checkable
class BatchJudge(Protocol):
    """A judge that answers a batch at once (the cache, the offline judge)."""

    def judge_many(self, requests: Sequence[JudgeRequest]) -> list[Answer]:
        """Verdicts in order, or the exception a request raised in its place."""
        ...


@runtime_checkable
class LimitedJudge(Protocol):
    """A judge that declares how hard it may be asked (the HTTP judge, the cache over it)."""

    @property
    def limits(self) -> JudgeLimits | None:
        """Its limits (None: it declares none)."""
        ...


def concurrency_of(judge: object) -> int:
    """Requests ``judge`` may have in flight: its ``max_concurrency``, else 1."""
    limits = judge.limits if isinstance(judge, LimitedJudge) else None
    return limits.max_concurrency if limits is not None else 1


def judge_each(
    judge: Judge, requests: Sequence[JudgeRequest], on_answer: OnAnswer | None = None
) -> list[Answer]:
    """Ask ``judge`` about every request (see the module docstring)."""
    if isinstance(judge, BatchJudge):
        answers = judge.judge_many(requests)
        for position, answer in enumerate(answers):
            if on_answer is not None:
                on_answer(position, answer)
        return answers

    def one(position: int) -> Answer:
        answer: Answer
        try:
            answer = judge.judge(requests[position])
        except Exception as exc:
            answer = exc
        if on_answer is not None:
            on_answer(position, answer)
        return answer

    workers = min(concurrency_of(judge), len(requests))
    if workers <= 1:
        return [one(n) for n in range(len(requests))]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge") as pool:
        return list(pool.map(one, range(len(requests))))
