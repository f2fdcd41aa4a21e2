"""Common part of the DeepEval and RAGAS adapters: identity, the judge LLM, error handling."""

from typing import Any, ClassVar

from eval_pipeline.judges.protocol import Judge
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.model import AgentRun


class LibraryAdapter(ScorerBase):
    """A library metric behind the Scorer protocol.

    A metric that needs an LLM declares ``needs_judge``: its LLM is built over ``judge`` (the
    project's Judge) when that judge is an OpenAI-compatible endpoint (``llm_bridge``), or is
    ``llm``, a ready library LLM (a ``DeepEvalBaseLLM`` or RAGAS ``InstructorBaseRagasLLM``, as
    the parity tests' canned LLMs). Without either it is unscored with the reason. A judge-free
    metric ignores both. A new library metric instance is created for every score (libraries
    keep results on the instance).
    """

    needs_judge: ClassVar[bool] = True

    def __init__(
        self, judge: Judge | None = None, *, llm: Any = None, threshold: float = 0.5
    ) -> None:
        if judge is not None and llm is not None:
            raise ValueError("give a judge or a ready library llm, not both")
        self._judge = judge
        self._llm = llm
        self._threshold = threshold

    @property
    def arguments(self) -> dict[str, Any]:
        """The threshold when not the default (the judge or LLM is supplied when rebuilding)."""
        return {"threshold": self._threshold} if self._threshold != 0.5 else {}

    def make_llm(self, base_url: str, model: str, api_key: str) -> Any:
        """Build the library LLM over an endpoint (implemented per library)."""
        raise NotImplementedError

    def resolve_llm(self) -> Any:
        """The LLM to use, or a string saying why there is none."""
        from eval_pipeline.scoring.adapters.llm_bridge import endpoint_of

        if self._llm is not None:
            return self._llm
        endpoint = endpoint_of(self._judge)
        if endpoint is None:
            backend = self._judge.backend if self._judge is not None else "none"
            return (
                f"{self.library} metric needs a generative judge; the configured judge "
                f"({backend}) is not an OpenAI-compatible endpoint"
            )
        return self.make_llm(*endpoint)

    def judge_identity(self) -> tuple[str | None, str | None]:
        """(fingerprint digest, backend) recorded on scores."""
        if not self.needs_judge:
            return None, None
        if self._llm is not None and self._judge is None:
            name = getattr(self._llm, "get_model_name", lambda: type(self._llm).__name__)()
            return None, f"{self.library}:{name}"
        if self._judge is None:
            return None, None
        return self._judge.fingerprint.digest, self._judge.backend

    def finish(self, run: AgentRun, value: Any, reason: str) -> Score:
        """A scored row from the library's number, or error when it is not a number in [0, 1]."""
        fingerprint, backend = self.judge_identity()
        try:
            number = float(value)
        except (TypeError, ValueError):
            return self.errored(
                run,
                f"{self.library} returned no number ({value!r})",
                judge_fingerprint=fingerprint,
                judge_backend=backend,
            )
        if number != number or not -1e-9 <= number <= 1 + 1e-9:
            return self.errored(
                run,
                f"{self.library} returned {number!r}, outside [0, 1]",
                judge_fingerprint=fingerprint,
                judge_backend=backend,
            )
        return self.scored(
            run,
            number,
            reason=reason or "",
            judge_fingerprint=fingerprint,
            judge_backend=backend,
            span_ids=[c.span_id for c in run.tool_calls]
            or ([run.root_span_id] if run.root_span_id else []),
        )
