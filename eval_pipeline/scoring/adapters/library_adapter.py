"""Common part of the DeepEval and RAGAS adapters: identity, the judge LLM, batches, errors.

An adapter ``prepare``s each run: a verdict at once when the metric cannot run (a missing
input, no generative judge) or needs no judge, else a coroutine that runs the library's async
API (DeepEval's ``a_measure``, RAGAS's ``ascore``) and turns its result or its exception into
the run's verdict. ``score_many`` runs a build's coroutines concurrently, up to the judge's
``max_concurrency`` (``concurrent_cases``), with the judge cache's writes batched; ``verdict``
is a batch of one, so a run scores the same alone and in a batch. Each run's verdict names the
judge calls its metric's prompts were answered by (``judges.call_refs.collecting`` around the
run's coroutine: the bridge's worker threads carry its context).
"""

from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext
from typing import Any, ClassVar

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.call_refs import collecting
from eval_pipeline.judges.completion import CompletingJudge, completing_judge
from eval_pipeline.judges.fanout import concurrency_of
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.scoring.adapters.concurrent_cases import run_concurrently
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun

Prepared = Verdict | Callable[[], Awaitable[Verdict]]


class LibraryAdapter(ScorerBase):
    """A library metric behind the Scorer protocol.

    A metric that needs an LLM declares ``needs_judge`` and is built with the suite's judge:
    its library LLM answers through that judge (``llm_bridge``: cache, retries, fingerprint),
    and it is unscored with the reason when the judge is not generative (the offline default).
    A judge-free metric ignores the judge. A new library metric instance is created for every
    score (libraries keep results on the instance).
    """

    needs_judge: ClassVar[bool] = True

    def __init__(self, judge: Judge | None = None, *, threshold: float = 0.5) -> None:
        self._judge = judge
        self._threshold = threshold

    @property
    def arguments(self) -> dict[str, Any]:
        """The threshold when not the default (the judge is supplied when rebuilding)."""
        return {"threshold": self._threshold} if self._threshold != 0.5 else {}

    def prepare(self, run: AgentRun, item: DatasetItem) -> Prepared:
        """The run's verdict, or the coroutine that computes it (implemented per library)."""
        raise NotImplementedError

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Score one run: a batch of one."""
        return self.verdicts([(run, item)])[0]

    def score_many(self, pairs: Sequence[tuple[AgentRun, DatasetItem]]) -> list[Score]:
        """Score runs concurrently (see the module docstring): the rows ``score`` gives."""
        return [
            verdict.row(self.id, self.version, run.trace_id)
            for verdict, (run, _) in zip(self.verdicts(pairs), pairs, strict=True)
        ]

    def verdicts(self, pairs: Sequence[tuple[AgentRun, DatasetItem]]) -> list[Verdict]:
        """The verdicts on runs, in order, the library coroutines run concurrently."""
        prepared = [self.prepare(run, item) for run, item in pairs]
        waiting = [(n, job) for n, job in enumerate(prepared) if not isinstance(job, Verdict)]
        writes = (
            self._judge.batched_writes() if isinstance(self._judge, CachedJudge) else nullcontext()
        )
        with writes:
            done = run_concurrently(
                [_naming_calls(job) for _, job in waiting], concurrency_of(self._judge)
            )
        verdicts = {n: verdict for (n, _), verdict in zip(waiting, done, strict=True)}
        return [v if isinstance(v, Verdict) else verdicts[n] for n, v in enumerate(prepared)]

    def make_llm(self, judge: CompletingJudge) -> Any:
        """Build the library LLM over the judge (implemented per library)."""
        raise NotImplementedError

    def resolve_llm(self) -> Any:
        """The library LLM over the suite's judge, or a string saying why there is none."""
        judge = completing_judge(self._judge)
        if judge is None:
            backend = self._judge.backend if self._judge is not None else "none"
            return (
                f"{self.library} metric needs a generative judge; the configured judge "
                f"({backend}) cannot answer the library's prompts"
            )
        return self.make_llm(judge)

    def judge_identity(self) -> tuple[str | None, str | None]:
        """(fingerprint digest, backend) recorded on scores."""
        if not self.needs_judge or self._judge is None:
            return None, None
        return self._judge.fingerprint.digest, self._judge.backend

    def finish(self, run: AgentRun, value: Any, reason: str) -> Verdict:
        """A scored verdict from the library's number; error when it is not a number in [0, 1]."""
        fingerprint, backend = self.judge_identity()
        try:
            number = float(value)
        except (TypeError, ValueError):
            return self.errored(
                f"{self.library} returned no number ({value!r})",
                judge_fingerprint=fingerprint,
                judge_backend=backend,
            )
        if number != number or not -1e-9 <= number <= 1 + 1e-9:
            return self.errored(
                f"{self.library} returned {number!r}, outside [0, 1]",
                judge_fingerprint=fingerprint,
                judge_backend=backend,
            )
        return self.scored(
            number,
            reason=reason or "",
            judge_fingerprint=fingerprint,
            judge_backend=backend,
            span_ids=[c.span_id for c in run.tool_calls]
            or ([run.root_span_id] if run.root_span_id else []),
        )


def _naming_calls(job: Callable[[], Awaitable[Verdict]]) -> Callable[[], Awaitable[Verdict]]:
    """``job``, its verdict naming the judge calls made (or answered from the cache) meanwhile."""

    async def named() -> Verdict:
        with collecting() as calls:
            verdict = await job()
        # Sorted: a metric may ask two prompts at once (DeepEval), noted in completion order.
        return verdict._replace(judge_calls=tuple(sorted(set(calls)))) if calls else verdict

    return named
