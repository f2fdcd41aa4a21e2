"""Common part of the DeepEval and RAGAS adapters: identity, the judge LLM, error handling."""

from typing import Any, ClassVar

from eval_pipeline.judges.completion import CompletingJudge, completing_judge
from eval_pipeline.judges.protocol import Judge
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


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
