"""Judge-based scorers: each renders its rubric from the run and asks a ``Judge`` for a verdict.

Rubrics are the judges package's versioned files (``judges/rubrics/<task>@<version>.yaml``);
a scorer builds the rubric's fields from the run and item, renders the request, and turns the
verdict into a score carrying the judge's fingerprint digest and backend. A ``JudgeError``
becomes an ``error`` row; a missing input (no answer, no evidence, no plan) is ``unscored``, and
so is a ``JudgeCannotJudge`` (the judge has no method for this input, e.g. the offline judge
on task completion without an expected outcome), unless the item declares that it lacks the
reference the judge needed by design (``absent_by_design``: a production regression case the
reviewer gave no reference answer): then the metric does not apply (``not_applicable``).

``score_many`` scores many runs with one batch of requests (``judges.fanout.judge_each``): the
judge cache looks them up in one query and the offline judge embeds their texts together, which
is most of the cost of scoring a build. ``score`` is a batch of one. A row names the judge
calls its verdict came from (``JudgeVerdict.calls``, or a failed request's ``JudgeError.calls``).
"""

from collections.abc import Sequence
from typing import Any, ClassVar

from eval_pipeline.datasets.absent_references import absent_by_design
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.judges.errors import JudgeCannotJudge
from eval_pipeline.judges.fanout import judge_each
from eval_pipeline.judges.protocol import Judge, JudgeError, JudgeRequest
from eval_pipeline.judges.rubrics import Rubric, RubricError, load_rubric
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.run_text import evidence_of, plan_of, question_of, tool_calls_of
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun


class JudgedScorer(ScorerBase):
    """Base of the judge-based scorers: fields -> rubric request -> judge -> score.

    Range [0, 1] (the verdict's score), higher is better. Subclasses implement ``fields``,
    returning the rubric fields or a string saying what is missing (-> unscored).
    """

    needs_judge = True
    task: ClassVar[str] = ""

    def __init__(self, judge: Judge, rubric_version: str | None = None) -> None:
        self._judge = judge
        self._rubric_version = rubric_version

    @property
    def arguments(self) -> dict[str, Any]:
        """Construction arguments other than the judge (which is supplied when rebuilding)."""
        return {"rubric_version": self._rubric_version} if self._rubric_version else {}

    def fields(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """The rubric fields for this run, or why they cannot be built."""
        raise NotImplementedError

    def not_applicable_reason(self, run: AgentRun, item: DatasetItem) -> str | None:
        """Why the metric does not apply to this run, before any judging (None: it does).

        Asked in ``verdicts``, so a run is ``not_applicable`` alike alone and in a batch.
        """
        return None

    def rubric(self) -> Rubric:
        """The rubric the judge is asked: the task's, in the scorer's rubric set version.

        Raises:
            RubricError: no rubric for the task at that version.
        """
        return load_rubric(self.task, self._rubric_version)

    def absent_reference(self, item: DatasetItem) -> str | None:
        """Which reference ``item`` lacks by design that the rubric would judge against.

        None (the default) when it lacks none: a judge that cannot judge is then ``unscored``.
        """
        return None

    def spans(self, run: AgentRun) -> list[str]:
        """Span ids the verdict is about (default: the final answer's span)."""
        return [run.final_answer_span_id] if run.final_answer_span_id else []

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """Judge one run (see the module docstring): a batch of one."""
        return self.verdicts([(run, item)])[0]

    def score_many(self, pairs: Sequence[tuple[AgentRun, DatasetItem]]) -> list[Score]:
        """Score runs with one batch of requests to the judge: the rows ``score`` gives.

        Raises:
            Exception: what the judge raised for a run beyond ``JudgeError``/``RubricError``
                (the caller scores run by run then, so it lands on that run's row).
        """
        return [
            verdict.row(self.id, self.version, run.trace_id)
            for verdict, (run, _) in zip(self.verdicts(pairs), pairs, strict=True)
        ]

    def verdicts(self, pairs: Sequence[tuple[AgentRun, DatasetItem]]) -> list[Verdict]:
        """The verdicts on runs, judged in one batch of requests (``score_many``'s)."""
        fingerprint = self._judge.fingerprint.digest
        backend = self._judge.backend
        rows: dict[int, Verdict] = {}
        asked: list[tuple[int, Rubric, JudgeRequest]] = []
        for n, (run, item) in enumerate(pairs):
            inapplicable = self.not_applicable_reason(run, item)
            if inapplicable is not None:
                rows[n] = self.not_applicable(
                    inapplicable, judge_fingerprint=fingerprint, judge_backend=backend
                )
                continue
            fields = self.fields(run, item)
            if isinstance(fields, str):
                rows[n] = self.unscored(
                    fields, judge_fingerprint=fingerprint, judge_backend=backend
                )
                continue
            try:
                rubric = self.rubric()
                asked.append((n, rubric, rubric.request(fields)))
            except RubricError as exc:
                rows[n] = self.errored(
                    f"{type(exc).__name__}: {exc}",
                    judge_fingerprint=fingerprint,
                    judge_backend=backend,
                )
        answers = judge_each(self._judge, [request for _, _, request in asked])
        for (n, rubric, _), answer in zip(asked, answers, strict=True):
            run, item = pairs[n]
            absent = self.absent_reference(item)
            if isinstance(answer, JudgeCannotJudge) and absent is not None:
                rows[n] = self.not_applicable(
                    f"{absent}, and the judge cannot judge without it: {answer}",
                    judge_fingerprint=fingerprint,
                    judge_backend=backend,
                )
            elif isinstance(answer, JudgeCannotJudge):
                rows[n] = self.unscored(
                    f"judge cannot judge this input: {answer}",
                    judge_fingerprint=fingerprint,
                    judge_backend=backend,
                )
            elif isinstance(answer, JudgeError | RubricError):
                rows[n] = self.errored(
                    f"{type(answer).__name__}: {answer}",
                    judge_fingerprint=fingerprint,
                    judge_backend=backend,
                )
            elif isinstance(answer, Exception):
                raise answer
            else:
                answer = rubric.conclude(answer)
                rows[n] = self.scored(
                    answer.score,
                    reason=answer.reason,
                    span_ids=self.spans(run),
                    evidence={"passed": answer.passed, "rubric": rubric.ref, **answer.details},
                    judge_fingerprint=fingerprint,
                    judge_backend=backend,
                )
            calls = getattr(answer, "calls", ())  # a verdict's, or a failed request's
            if calls:
                rows[n] = rows[n]._replace(judge_calls=tuple(calls))
        return [rows[n] for n in range(len(pairs))]


class Faithfulness(JudgedScorer):
    """``faithfulness``: claims in the final answer supported by tool results and retrieval.

    Unscored without a final answer or without any evidence (no retrieved passage, no
    successful tool result) where the item expects a tool call; ``not_applicable`` when the
    run has no evidence and its item expects none (nothing to be faithful to).
    Reads: run ``final_answer``, ``retrieved``, ``tool_calls``, ``user_input``; item
    ``input_messages``, ``expected_tool_calls``, ``alternative_trajectories``.
    """

    metric_id = "faithfulness"
    layer = Layer.FINAL_ANSWER
    not_applicable_when = "the run has no retrieval or tool result and the item expects none"
    task = "faithfulness"
    run_fields = frozenset({"final_answer", "retrieved", "tool_calls", "user_input"})
    item_fields = frozenset({"input_messages", "expected_tool_calls", "alternative_trajectories"})

    def not_applicable_reason(self, run: AgentRun, item: DatasetItem) -> str | None:
        """Not applicable without evidence where none is needed."""
        if not evidence_of(run) and not any(item.trajectories):
            return "no retrieval or tool result, and the item expects none"
        return None

    def fields(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Answer, evidence and question."""
        if not (run.final_answer or "").strip():
            return "run has no final answer"
        contexts = evidence_of(run)
        if not contexts:
            return "run has no retrieved context or tool result to check the answer against"
        return {
            "answer": run.final_answer,
            "contexts": contexts,
            "question": question_of(run, item),
        }


class AnswerRelevancy(JudgedScorer):
    """``answer_relevancy``: does the final answer address the question?

    Unscored without a final answer or a question. Reads: run ``final_answer``,
    ``user_input``; item ``input_messages``.
    """

    metric_id = "answer_relevancy"
    layer = Layer.FINAL_ANSWER
    task = "answer_relevancy"
    run_fields = frozenset({"final_answer", "user_input"})
    item_fields = frozenset({"input_messages"})

    def fields(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Question and answer."""
        question = question_of(run, item)
        if not question:
            return "no user question in the run or the item"
        if not (run.final_answer or "").strip():
            return "run has no final answer"
        return {"question": question, "answer": run.final_answer}


class TaskCompletion(JudgedScorer):
    """``task_completion``: did the agent do what was asked?

    Needs no reference; the item's ``reference_answer`` is passed as the rubric's optional
    ``expected_outcome`` when present. Unscored without a question or a final answer, and when
    the judge cannot judge without a reference answer (the offline judge), unless the item
    declares it has none by design (a production regression case): then not applicable.
    Reads: run ``final_answer``, ``tool_calls``, ``user_input``; item ``input_messages``,
    ``reference_answer``, ``provenance``.
    """

    metric_id = "task_completion"
    layer = Layer.TASK
    not_applicable_when = (
        "the item has no reference answer by design (a regression case) and the judge "
        "cannot judge without one"
    )
    task = "task_completion"
    run_fields = frozenset({"final_answer", "tool_calls", "user_input"})
    item_fields = frozenset({"input_messages", "reference_answer", "provenance"})

    def absent_reference(self, item: DatasetItem) -> str | None:
        """The reference answer, when the item declares it has none by design."""
        if absent_by_design(item, "reference_answer"):
            return "the regression case has no reference answer by design (none given at triage)"
        return None

    def fields(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Question, answer and the calls made."""
        question = question_of(run, item)
        if not question:
            return "no user question in the run or the item"
        if not (run.final_answer or "").strip():
            return "run has no final answer"
        fields: dict[str, Any] = {
            "question": question,
            "answer": run.final_answer,
            "tool_calls": tool_calls_of(run),
        }
        if item.reference_answer:
            fields["expected_outcome"] = item.reference_answer
        return fields


class PlanQuality(JudgedScorer):
    """``plan_quality``: is the agent's plan a sound way to do the task?

    Unscored when the run shows no plan (``plan_of``) or no question. Reads: run ``spans``,
    ``model_calls``, ``user_input``; item ``input_messages``, ``tool_schemas``.
    """

    metric_id = "plan_quality"
    layer = Layer.PLAN
    task = "plan_quality"
    run_fields = frozenset({"spans", "model_calls", "user_input"})
    item_fields = frozenset({"input_messages", "tool_schemas"})

    def fields(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Question, plan and the tools available."""
        plan = plan_of(run)
        question = question_of(run, item)
        if plan is None:
            return "run shows no plan (no plan span, no text before the first tool request)"
        if not question:
            return "no user question in the run or the item"
        tools = [str((s.get("function") or s).get("name")) for s in item.tool_schemas]
        return {"question": question, "plan": plan[0], "available_tools": tools}

    def spans(self, run: AgentRun) -> list[str]:
        """The plan's span."""
        plan = plan_of(run)
        return [plan[1]] if plan else []


class PlanAdherence(PlanQuality):
    """``plan_adherence``: did the executed calls follow the agent's own plan?

    Unscored when the run shows no plan. Reads: run ``spans``, ``model_calls``,
    ``tool_calls``, ``user_input``; item ``input_messages``.
    """

    metric_id = "plan_adherence"
    layer = Layer.PLAN
    task = "plan_adherence"
    run_fields = frozenset({"spans", "model_calls", "tool_calls", "user_input"})
    item_fields = frozenset({"input_messages"})

    def fields(self, run: AgentRun, item: DatasetItem) -> dict[str, Any] | str:
        """Plan, executed calls and question."""
        plan = plan_of(run)
        if plan is None:
            return "run shows no plan (no plan span, no text before the first tool request)"
        return {
            "plan": plan[0],
            "tool_calls": tool_calls_of(run),
            "question": question_of(run, item),
        }
