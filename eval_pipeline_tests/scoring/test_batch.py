"""Scoring a build: judge-based scorers get the whole build in one batch, with unchanged rows.

``score_build`` hands every scorable run to a judge-based scorer at once, so the judge cache
looks them up in one query and the offline judge embeds all their texts together. The rows are
exactly those of scoring run by run. A judge that breaks on one run in a way the scorer does not
expect costs only that run: it gets an ``error`` row naming the exception, the others are scored.
"""

from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.offline.embedder import MiniLMEmbedder
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import JudgeRequest, JudgeVerdict
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.registry import build_scorer, score_run
from eval_pipeline_tests.scoring.builders import call, expect, make_item, make_run
from eval_pipeline_tests.scoring.judges_for_tests import OverlapJudge

ITEMS = [
    make_item(
        f"q{n}",
        input_messages=({"role": "user", "content": f"Where is order W{n}?"},),
        reference_answer=f"Order W{n} has shipped.",
        expected_tool_calls=(expect("get_order", id=[f"W{n}"]),),
    )
    for n in range(3)
]
METRICS = ("faithfulness", "task_completion", "tool_correctness", "answer_relevancy")


def _runs() -> list:  # type: ignore[type-arg]
    return [
        make_run(
            [call("get_order", {"id": f"W{n}"}, result={"status": status, "eta": "Friday"})],
            answer=f"Order W{n} has {status} and arrives Friday.",
            trace_id=f"{n:032x}",
            item_id=f"q{n}",
            run_index=index,
        )
        for n in range(3)
        for index, status in enumerate(("shipped", "stalled"))
    ]


def _scorers(judge: object) -> list:  # type: ignore[type-arg]
    return [
        build_scorer(m, judge=judge) if m != "tool_correctness" else build_scorer(m)
        for m in METRICS
    ]


def test_rows_equal_run_by_run_with_one_model_call_per_judged_metric(tmp_path) -> None:  # type: ignore[no-untyped-def]
    runs = _runs()
    one_by_one = OfflineJudge(embedder=MiniLMEmbedder())
    expected = [
        row
        for run in runs
        for row in score_run(
            run, ITEMS[int(str(run.eval_context.item_id)[1:])], _scorers(one_by_one), build="b"
        )
    ]
    batched = OfflineJudge(embedder=MiniLMEmbedder())
    judge = CachedJudge(batched, f"sqlite:///{tmp_path}/state.db")
    result = score_build("b", runs, ITEMS, _scorers(judge), runs_per_item=2)
    assert result.scores == expected
    assert {r.status for r in result.scores} == {"scored"}
    # At most one model call per judged metric (fewer when a metric's texts are all embedded
    # already: task completion embeds the question and answer that answer relevancy reuses).
    assert batched.embedder.model_calls <= 3 < one_by_one.embedder.model_calls
    assert judge.stats.calls == 3 * 6  # three judged metrics, six runs, one batch each


class _BrokenOnStalled(OverlapJudge):
    """Raises a bug-like error (not a ``JudgeError``) on answers that mention "stalled"."""

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Score, or break."""
        if "stalled" in str(request.fields.get("answer")):
            raise KeyError("verdict")
        return super().judge(request)


def test_an_unexpected_judge_failure_costs_only_its_run() -> None:
    result = score_build(
        "b",
        _runs(),
        ITEMS,
        [build_scorer("faithfulness", judge=_BrokenOnStalled())],
        runs_per_item=2,
    )
    by_run = {(r.item_id, r.run_index): r for r in result.scores}
    assert len(by_run) == 6
    for (_, index), row in by_run.items():
        if index == 1:
            assert row.status == "error" and row.reason == "KeyError: 'verdict'"
        else:
            assert row.status == "scored"
