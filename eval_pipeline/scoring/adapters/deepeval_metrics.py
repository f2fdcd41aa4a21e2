"""DeepEval metrics behind the Scorer protocol, fed from the agent-run model.

Ids ``deepeval.<metric>``. ``ToolCorrectnessMetric`` needs no judge (it still demands a model
object, so it gets one that must never be called); the others need an LLM (see
``LibraryAdapter``). Trace metrics get the run as ``LLMTestCase._trace_dict``. Each score
builds a new metric instance (DeepEval keeps results on it): a judged one runs DeepEval's async
path (``async_mode=True``, ``a_measure``), many runs at once, the judge-free one synchronously.
"""

from typing import Any, ClassVar

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.completion import CompletingJudge
from eval_pipeline.scoring.adapters.conversion import deepeval_test_case
from eval_pipeline.scoring.adapters.library_adapter import LibraryAdapter, Prepared
from eval_pipeline.scoring.error_reason import error_reason
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.run_text import evidence_of
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class DeepEvalAdapter(LibraryAdapter):
    """One DeepEval metric (class ``metric_class`` in ``deepeval.metrics``).

    Range [0, 1], higher is better, as DeepEval computes it. Unscored when an input the metric
    needs is missing (see ``missing``) or no LLM is available for a judge-needing metric; an
    exception inside DeepEval is an ``error`` row.
    """

    library = "deepeval"
    metric_class: ClassVar[str] = ""
    with_trace: ClassVar[bool] = False

    def make_llm(self, judge: CompletingJudge) -> Any:
        """A DeepEval LLM answering through the suite's judge."""
        from eval_pipeline.scoring.adapters.llm_bridge import deepeval_judge_llm

        return deepeval_judge_llm(judge, self.metric_id)

    def missing(self, run: AgentRun, item: DatasetItem) -> str | None:
        """Why the metric cannot run on this input (None when it can)."""
        if self.with_trace and run.root_span_id is None:
            return "run has no root span to build DeepEval's trace from"
        if self.with_trace and not (run.final_answer or "").strip():
            return "run has no final answer"
        return None

    def build_metric(self, llm: Any, *, async_mode: bool) -> Any:
        """A fresh DeepEval metric instance."""
        import deepeval.metrics

        cls = getattr(deepeval.metrics, self.metric_class)
        return cls(model=llm, threshold=self._threshold, async_mode=async_mode, include_reason=True)

    def prepare(self, run: AgentRun, item: DatasetItem) -> Prepared:
        """The verdict now (missing input, no LLM, judge-free), else DeepEval's coroutine."""
        fingerprint, backend = self.judge_identity()
        why = self.missing(run, item)
        if why is not None:
            return self.unscored(why, judge_fingerprint=fingerprint, judge_backend=backend)
        case = deepeval_test_case(run, item, with_trace=self.with_trace)
        if not self.needs_judge:
            from eval_pipeline.scoring.adapters.llm_bridge import deepeval_unused_llm

            try:
                metric = self.build_metric(deepeval_unused_llm(), async_mode=False)
                metric.measure(case, _show_indicator=False)
            except Exception as exc:
                return self._failed(exc)
            return self.finish(run, metric.score, str(metric.reason or ""))
        llm = self.resolve_llm()
        if isinstance(llm, str):
            return self.unscored(llm, judge_fingerprint=fingerprint, judge_backend=backend)

        async def measured() -> Verdict:
            try:
                metric = self.build_metric(llm, async_mode=True)
                await metric.a_measure(case, _show_indicator=False)
            except Exception as exc:
                return self._failed(exc)
            return self.finish(run, metric.score, str(metric.reason or ""))

        return measured

    def _failed(self, exc: Exception) -> Verdict:
        fingerprint, backend = self.judge_identity()
        return self.errored(
            f"deepeval {self.metric_class}: {error_reason(exc)}",
            judge_fingerprint=fingerprint,
            judge_backend=backend,
        )


class DeepEvalToolCorrectness(DeepEvalAdapter):
    """``deepeval.tool_correctness``: DeepEval's ToolCorrectnessMetric (names; no judge).

    Unscored when the item has no expected tool calls. Reads: run ``tool_calls``,
    ``final_answer``; item ``expected_tool_calls``.
    """

    metric_id = "deepeval.tool_correctness"
    layer = Layer.TOOL_USE
    metric_class = "ToolCorrectnessMetric"
    needs_judge = False
    run_fields = frozenset({"tool_calls", "final_answer"})
    item_fields = frozenset({"expected_tool_calls"})

    def missing(self, run: AgentRun, item: DatasetItem) -> str | None:
        """Needs expected tool calls."""
        return None if item.expected_tool_calls else "item has no expected tool calls"


class DeepEvalArgumentCorrectness(DeepEvalAdapter):
    """``deepeval.argument_correctness``: DeepEval's judge-based ArgumentCorrectnessMetric.

    Unscored when the run called no tool or no LLM is available. Reads: run ``tool_calls``,
    ``user_input``, ``final_answer``; item ``input_messages``.
    """

    metric_id = "deepeval.argument_correctness"
    layer = Layer.TOOL_USE
    metric_class = "ArgumentCorrectnessMetric"
    run_fields = frozenset({"tool_calls", "user_input", "final_answer"})
    item_fields = frozenset({"input_messages"})

    def missing(self, run: AgentRun, item: DatasetItem) -> str | None:
        """Needs at least one tool call."""
        return None if run.tool_calls else "run called no tool"


class DeepEvalFaithfulness(DeepEvalAdapter):
    """``deepeval.faithfulness``: DeepEval's FaithfulnessMetric over tool results + retrieval.

    Unscored without a final answer, without evidence, or without an LLM. Reads: run
    ``final_answer``, ``retrieved``, ``tool_calls``, ``user_input``.
    """

    metric_id = "deepeval.faithfulness"
    layer = Layer.FINAL_ANSWER
    metric_class = "FaithfulnessMetric"
    run_fields = frozenset({"final_answer", "retrieved", "tool_calls", "user_input"})

    def missing(self, run: AgentRun, item: DatasetItem) -> str | None:
        """Needs an answer and evidence."""
        if not (run.final_answer or "").strip():
            return "run has no final answer"
        return None if evidence_of(run) else "run has no retrieved context or tool result"


class _TraceMetric(DeepEvalAdapter):
    with_trace = True
    run_fields = frozenset({"spans", "final_answer", "user_input"})
    item_fields = frozenset({"input_messages"})


class DeepEvalTaskCompletion(_TraceMetric):
    """``deepeval.task_completion``: DeepEval's TaskCompletionMetric on the run's trace.

    Unscored without a root span, a final answer or an LLM. Reads: run ``spans``,
    ``final_answer``, ``user_input``.
    """

    metric_id = "deepeval.task_completion"
    layer = Layer.TASK
    metric_class = "TaskCompletionMetric"


class DeepEvalPlanAdherence(_TraceMetric):
    """``deepeval.plan_adherence``: DeepEval's PlanAdherenceMetric on the run's trace.

    Unscored without a root span, a final answer or an LLM. Reads: run ``spans``,
    ``final_answer``, ``user_input``.
    """

    metric_id = "deepeval.plan_adherence"
    layer = Layer.PLAN
    metric_class = "PlanAdherenceMetric"


class DeepEvalPlanQuality(_TraceMetric):
    """``deepeval.plan_quality``: DeepEval's PlanQualityMetric on the run's trace.

    Unscored without a root span, a final answer or an LLM. Reads: run ``spans``,
    ``final_answer``, ``user_input``.
    """

    metric_id = "deepeval.plan_quality"
    layer = Layer.PLAN
    metric_class = "PlanQualityMetric"


class DeepEvalStepEfficiency(_TraceMetric):
    """``deepeval.step_efficiency``: DeepEval's judge-based StepEfficiencyMetric on the trace.

    Unscored without a root span, a final answer or an LLM. Reads: run ``spans``,
    ``final_answer``, ``user_input``.
    """

    metric_id = "deepeval.step_efficiency"
    layer = Layer.TOOL_USE
    metric_class = "StepEfficiencyMetric"
