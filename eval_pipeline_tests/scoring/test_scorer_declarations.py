"""Scorers declare whether they need a judge; ``build_scorer`` acts on that declaration alone.

Every registered metric builds (with a judge where it declares ``needs_judge``) and its
declaration matches what it does: given the offline judge, a judged scorer consults it and its
row carries the judge's fingerprint and backend; any other scorer never touches a judge, even
when its class accepts one, and its row carries no judge identity. A judged metric built
without a judge, and an argument a scorer does not take, are errors naming the metric; a
deterministic metric given ``judge=`` ignores it.
"""

import inspect
import re

import pytest

from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import JudgeFingerprint, JudgeRequest, JudgeVerdict
from eval_pipeline.scoring.registry import (
    build_scorer,
    registered_metric_ids,
    scorer_class,
    scorer_needs_judge,
)
from eval_pipeline_tests.scoring.builders import call, expect, make_item, make_run

QUESTION = "Please cancel order W1 if it is still pending."
RUN = make_run(
    [
        call("get_order", {"id": "W1"}, result={"status": "pending"}),
        call("cancel_order", {"id": "W1"}, result="cancelled"),
    ],
    answer="Order W1 was pending, so I cancelled it.",
    retrieved=("Orders can be cancelled while pending.",),
    user_input=QUESTION,
    plan="Look the order up, then cancel it if it is pending.",
)
ITEM = make_item(
    "declared",
    input_messages=({"role": "user", "content": QUESTION},),
    reference_answer="Order W1 is cancelled.",
    expected_tool_calls=(expect("get_order", id=["W1"]), expect("cancel_order", id=["W1"])),
    tool_schemas=({"name": "get_order"}, {"name": "cancel_order"}),
)
OFFLINE = OfflineJudge()


class RecordingJudge:
    """The offline judge, recording every use of its identity and every verdict asked of it."""

    def __init__(self) -> None:
        self._offline = OfflineJudge()
        self.uses: list[str] = []

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """The offline judge's fingerprint (recorded as a use)."""
        self.uses.append("fingerprint")
        return self._offline.fingerprint

    @property
    def backend(self) -> str:
        """The offline judge's backend (recorded as a use)."""
        self.uses.append("backend")
        return self._offline.backend

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """The offline judge's verdict (recorded as a use)."""
        self.uses.append("judge")
        return self._offline.judge(request)


@pytest.mark.parametrize("metric", sorted(registered_metric_ids()))
def test_every_metric_builds_and_declares_whether_it_uses_the_judge(metric: str) -> None:
    judge = RecordingJudge()
    scorer = build_scorer(metric, judge=judge)
    assert scorer.needs_judge is scorer_needs_judge(metric)
    row = scorer.score(RUN, ITEM)
    if scorer.needs_judge:
        assert judge.uses, f"{metric} declares needs_judge but never consulted the judge"
        assert row.judge_fingerprint == OFFLINE.fingerprint.digest
        assert row.judge_backend == OFFLINE.backend
        return
    assert judge.uses == [] and row.judge_fingerprint is None and row.judge_backend is None
    cls = scorer_class(metric)
    if "judge" in inspect.signature(cls).parameters:
        # A judge-free library adapter accepts a judge; handed one directly, it still ignores it.
        direct = cls(judge=judge).score(RUN, ITEM)
        assert judge.uses == [] and direct.judge_fingerprint is None


@pytest.mark.parametrize(
    "metric", sorted(m for m in registered_metric_ids() if scorer_needs_judge(m))
)
def test_judged_metric_without_a_judge_is_an_error_naming_it(metric: str) -> None:
    with pytest.raises(ValueError, match=rf"{re.escape(metric)}.*judge"):
        build_scorer(metric)


def test_the_judged_and_deterministic_sets_are_the_declared_ones() -> None:
    judged = {m for m in registered_metric_ids() if scorer_needs_judge(m)}
    assert {"faithfulness", "plan_quality", "deepeval.step_efficiency", "ragas.faithfulness"} <= (
        judged
    )
    assert not judged & {"tool_correctness", "deepeval.tool_correctness", "ragas.tool_call_f1"}


def test_deterministic_metric_given_a_judge_ignores_it() -> None:
    judge = RecordingJudge()
    with_judge = build_scorer("tool_correctness", judge=judge).score(RUN, ITEM)
    assert with_judge == build_scorer("tool_correctness").score(RUN, ITEM)
    assert judge.uses == []


def test_unknown_argument_is_an_error_naming_the_metric_and_what_it_takes() -> None:
    with pytest.raises(TypeError, match=r"injection_resistance.*count_failed_attempts"):
        build_scorer("injection_resistance", count_failed=False)
    with pytest.raises(TypeError, match=r"faithfulness.*rubric_version"):
        build_scorer("faithfulness", judge=OFFLINE, rubric="1")
    with pytest.raises(TypeError, match="tool_correctness"):
        build_scorer("tool_correctness", threshold=0.5)


def test_unknown_metric_has_no_declaration() -> None:
    with pytest.raises(KeyError, match="unknown metric id"):
        scorer_needs_judge("tool_corectness")


def test_library_metric_takes_no_llm_of_its_own() -> None:
    # Its LLM is the suite's judge, through the one bridge (cache, retries, fingerprint).
    with pytest.raises(TypeError, match=r"deepeval\.faithfulness.*threshold"):
        build_scorer("deepeval.faithfulness", judge=OFFLINE, llm=object())
