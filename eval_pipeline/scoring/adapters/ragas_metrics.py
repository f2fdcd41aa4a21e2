"""RAGAS metrics (new ``ragas.metrics.collections`` API) behind the Scorer protocol.

Ids ``ragas.<metric>``. ``ToolCallAccuracy`` and ``ToolCallF1`` need no judge; agent goal
accuracy (with the item's reference answer when it has one, else without) and faithfulness
need an LLM (see ``LibraryAdapter``). The run is fed as RAGAS messages
(``adapters.conversion``); each score builds a new metric; a judged one awaits
``metric.ascore(...)``, many runs at once, a judge-free one calls ``metric.score(...)``.
"""

from typing import Any, ClassVar

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.completion import CompletingJudge
from eval_pipeline.scoring.adapters.conversion import ragas_messages, ragas_reference_calls
from eval_pipeline.scoring.adapters.library_adapter import LibraryAdapter, Prepared
from eval_pipeline.scoring.error_reason import error_reason
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.run_text import evidence_of, question_of
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class RagasAdapter(LibraryAdapter):
    """One RAGAS collections metric.

    Range [0, 1], higher is better, as RAGAS computes it. Unscored when an input is missing or
    no LLM is available for a judge-needing metric; an exception inside RAGAS is an ``error``.
    """

    library = "ragas"
    metric_class: ClassVar[str] = ""

    def make_llm(self, judge: CompletingJudge) -> Any:
        """A RAGAS LLM answering through the suite's judge."""
        from eval_pipeline.scoring.adapters.llm_bridge import ragas_judge_llm

        return ragas_judge_llm(judge, self.metric_id)

    def inputs(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """The metric's ``score`` keyword arguments, or why they cannot be built."""
        raise NotImplementedError

    def metric_name(self, item: DatasetItem) -> str:
        """The RAGAS class to use for this item."""
        return self.metric_class

    def prepare(self, run: AgentRun, item: DatasetItem) -> Prepared:
        """The verdict now (missing input, no LLM, judge-free), else RAGAS's coroutine."""
        fingerprint, backend = self.judge_identity()
        fields = self.inputs(run, item)
        if isinstance(fields, str):
            return self.unscored(fields, judge_fingerprint=fingerprint, judge_backend=backend)
        import ragas.metrics.collections as collections

        name = self.metric_name(item)
        if not self.needs_judge:
            try:
                result = getattr(collections, name)().score(**fields)
            except Exception as exc:
                return self._failed(name, exc)
            return self.finish(run, result.value, str(getattr(result, "reason", "") or ""))
        llm = self.resolve_llm()
        if isinstance(llm, str):
            return self.unscored(llm, judge_fingerprint=fingerprint, judge_backend=backend)

        async def scored() -> Verdict:
            try:
                result = await getattr(collections, name)(llm=llm).ascore(**fields)
            except Exception as exc:
                return self._failed(name, exc)
            return self.finish(run, result.value, str(getattr(result, "reason", "") or ""))

        return scored

    def _failed(self, name: str, exc: Exception) -> Verdict:
        fingerprint, backend = self.judge_identity()
        return self.errored(
            f"ragas {name}: {error_reason(exc)}",
            judge_fingerprint=fingerprint,
            judge_backend=backend,
        )


class _ToolCallMetric(RagasAdapter):
    needs_judge = False
    run_fields = frozenset({"tool_calls", "final_answer", "user_input"})
    item_fields = frozenset({"expected_tool_calls", "input_messages"})

    def inputs(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Messages and reference calls."""
        if not item.expected_tool_calls:
            return "item has no expected tool calls"
        return {
            "user_input": ragas_messages(run, item),
            "reference_tool_calls": ragas_reference_calls(item),
        }


class RagasToolCallAccuracy(_ToolCallMetric):
    """``ragas.tool_call_accuracy``: RAGAS ToolCallAccuracy (strict order; no judge).

    Unscored when the item has no expected tool calls. Reads: run ``tool_calls``; item
    ``expected_tool_calls``.
    """

    metric_id = "ragas.tool_call_accuracy"
    layer = Layer.TOOL_USE
    metric_class = "ToolCallAccuracy"


class RagasToolCallF1(_ToolCallMetric):
    """``ragas.tool_call_f1``: RAGAS ToolCallF1 (exact name + arguments; no judge).

    Unscored when the item has no expected tool calls. Reads: run ``tool_calls``; item
    ``expected_tool_calls``.
    """

    metric_id = "ragas.tool_call_f1"
    layer = Layer.TOOL_USE
    metric_class = "ToolCallF1"


class RagasAgentGoalAccuracy(RagasAdapter):
    """``ragas.agent_goal_accuracy``: did the agent reach the user's goal?

    With the item's reference answer when it has one, else RAGAS's reference-free variant.
    Unscored without a final answer or an LLM. Reads: run ``tool_calls``, ``final_answer``,
    ``user_input``; item ``reference_answer``.
    """

    metric_id = "ragas.agent_goal_accuracy"
    layer = Layer.TASK
    run_fields = frozenset({"tool_calls", "final_answer", "user_input"})
    item_fields = frozenset({"reference_answer", "input_messages"})

    def metric_name(self, item: DatasetItem) -> str:
        """With or without reference."""
        return (
            "AgentGoalAccuracyWithReference"
            if item.reference_answer
            else "AgentGoalAccuracyWithoutReference"
        )

    def inputs(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Messages (and the reference)."""
        if not (run.final_answer or "").strip():
            return "run has no final answer"
        fields: dict[str, Any] = {"user_input": ragas_messages(run, item)}
        if item.reference_answer:
            fields["reference"] = item.reference_answer
        return fields


class RagasFaithfulness(RagasAdapter):
    """``ragas.faithfulness``: RAGAS Faithfulness over tool results + retrieved passages.

    Unscored without a final answer, evidence or an LLM. Reads: run ``final_answer``,
    ``retrieved``, ``tool_calls``, ``user_input``.
    """

    metric_id = "ragas.faithfulness"
    layer = Layer.FINAL_ANSWER
    metric_class = "Faithfulness"
    run_fields = frozenset({"final_answer", "retrieved", "tool_calls", "user_input"})
    item_fields = frozenset({"input_messages"})

    def inputs(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Question, answer, contexts."""
        if not (run.final_answer or "").strip():
            return "run has no final answer"
        contexts = evidence_of(run)
        if not contexts:
            return "run has no retrieved context or tool result"
        return {
            "user_input": question_of(run, item),
            "response": run.final_answer,
            "retrieved_contexts": contexts,
        }
