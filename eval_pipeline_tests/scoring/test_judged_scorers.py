"""Judge-based scorers go through the Judge protocol with the versioned rubrics.

Each scorer renders its rubric (task, fields, prompt, schema, rubric id/version) from the run,
records the judge's fingerprint digest and backend on the score, turns a ``JudgeError`` into an
``error`` row and a missing input into ``unscored`` (the judge is then not called). The spread
of repeated judge scores is measured: zero for a deterministic judge, positive for a noisy one,
and stored as JSON.
"""

import json

import pytest

from eval_pipeline.judges.rubrics import load_rubric
from eval_pipeline.scoring.registry import build_scorer, select_metric_ids
from eval_pipeline.scoring.spread import judge_spread, save_spread
from eval_pipeline_tests.scoring.builders import call, expect, make_item, make_run
from eval_pipeline_tests.scoring.judges_for_tests import FailingJudge, NoisyJudge, OverlapJudge

ITEM = make_item(
    "q",
    input_messages=({"role": "user", "content": "Where is order W1?"},),
    expected_tool_calls=(expect("get_order"),),  # the answer needs a lookup to be faithful to
)
RUN = make_run(
    [call("get_order", {"id": "W1"}, result={"status": "shipped", "eta": "Friday"})],
    answer="Order W1 has shipped and arrives Friday.",
    retrieved=("Policy: ...",),
    plan="First look up order W1 with get_order, then tell the user.",
)


@pytest.mark.parametrize("metric", select_metric_ids(needs_judge=True))
def test_request_is_rendered_from_the_rubric(metric: str) -> None:
    judge = OverlapJudge()
    score = build_scorer(metric, judge=judge).score(RUN, ITEM)
    assert score.status == "scored", score.reason
    request = judge.requests[0]
    rubric = load_rubric(metric)
    assert request.task == metric and request.rubric_version == rubric.version
    assert request.schema == rubric.schema and request.prompt == rubric.render(request.fields)
    assert score.judge_fingerprint == judge.fingerprint.digest
    assert score.judge_backend == "test-overlap"
    assert score.evidence["rubric"] == rubric.ref


def test_faithfulness_evidence_is_tool_results_and_retrieval() -> None:
    judge = OverlapJudge()
    build_scorer("faithfulness", judge=judge).score(RUN, ITEM)
    contexts = judge.requests[0].fields["contexts"]
    assert contexts[0] == "Policy: ..." and "shipped" in contexts[1]


@pytest.mark.parametrize(
    "metric, run, why",
    [
        ("faithfulness", make_run([], answer="It shipped."), "no retrieved context"),
        ("faithfulness", make_run([call("get_order")], answer=None), "no final answer"),
        ("answer_relevancy", make_run([], answer=""), "no final answer"),
        ("plan_quality", make_run([], answer="x"), "no plan"),
        ("plan_adherence", make_run([], answer="x"), "no plan"),
    ],
)
def test_missing_inputs_are_unscored_without_calling_the_judge(metric, run, why) -> None:  # type: ignore[no-untyped-def]
    judge = OverlapJudge()
    score = build_scorer(metric, judge=judge).score(run, ITEM)
    assert score.status == "unscored" and why in score.reason and score.value is None
    assert judge.requests == []
    assert score.judge_fingerprint == judge.fingerprint.digest


def test_judge_error_becomes_error_row() -> None:
    score = build_scorer("faithfulness", judge=FailingJudge()).score(RUN, ITEM)
    assert score.status == "error" and "503" in score.reason and score.value is None


def test_spread_is_measured_and_stored(tmp_path) -> None:  # type: ignore[no-untyped-def]
    cases = [
        (RUN, ITEM),
        (make_run([call("get_order", result="pending")], answer="Your order is pending."), ITEM),
    ]
    steady = judge_spread(build_scorer("faithfulness", judge=OverlapJudge()), cases, repeats=4)
    assert steady.mean_stdev == 0.0 and steady.flip_rate == 0.0
    noisy = judge_spread(build_scorer("faithfulness", judge=NoisyJudge()), cases, repeats=6)
    assert noisy.mean_stdev > 0.0 and noisy.max_range > 0.0
    assert all(len(i.values) == 6 for i in noisy.items)
    path = save_spread(tmp_path, noisy)
    assert json.loads(path.read_text())["mean_stdev"] == noisy.mean_stdev


def test_offline_judge_cannot_judge_is_unscored_not_error() -> None:
    from eval_pipeline.judges.offline.judge import OfflineJudge

    judge = OfflineJudge()
    no_reference = build_scorer("task_completion", judge=judge).score(RUN, ITEM)
    assert no_reference.status == "unscored" and "cannot judge" in no_reference.reason
    with_reference = make_item(
        "q2", input_messages=ITEM.input_messages, reference_answer="Order W1 has shipped."
    )
    scored = build_scorer("task_completion", judge=judge).score(RUN, with_reference)
    assert scored.status == "scored" and scored.judge_backend == judge.backend
