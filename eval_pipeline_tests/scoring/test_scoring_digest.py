"""The deterministic suite's rows are unchanged by how they are computed, field for field.

The digests were recorded from the code before any work on scoring speed, on the
corpus of ``scoring_corpus`` (the benchmark's runs, tau2 variants, AgentDojo injection cases,
real OpenAI Agents traces; default and non-default scorer arguments). Every field of every row
counts: values, statuses, reasons, evidence (its key order too), span ids, slices and scorer
arguments. Scoring the same pairs again (the identity memos then answer) gives the same rows.
"""

import pytest

from eval_pipeline.scoring.registry import score_run
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.scorers.trace_completeness import TraceCompleteness
from eval_pipeline_tests.scoring.scoring_corpus import bench_pairs, corpora, digest, row_text

RECORDED = {
    "bench": (3600, "a5ed29a71112d07724e8114aae2bce9ca1d5db9c357451ceb0e5e30f8f39550c"),
    "bench-custom": (360, "827e04e1c7e022614fffdc8ba240c41f1bc9a2d0d613a1fef6b30678b705d788"),
    "tau2-variants": (1560, "3dd41f3acf27b3bf9d54fba63fbf600a7ba9815df0dfd3dd83a1677866f809b9"),
    "agentdojo": (6290, "11c961b89bbedbbd058f7407acac2dedd65c8991b218d5ab8768cc714744a1b9"),
    "real-traces": (80, "c272684e6b088a8f32500df38e550c5c8a578620aa7e49a46eae56d2ddee4e63"),
}
CORPORA = list(corpora())


@pytest.mark.parametrize(("name", "pairs", "scorers"), CORPORA, ids=[c[0] for c in CORPORA])
def test_rows_match_the_recorded_digest(name: str, pairs: list, scorers: list) -> None:  # type: ignore[type-arg]
    first = [r for run, item in pairs for r in score_run(run, item, scorers, build="digest")]
    again = [r for run, item in pairs for r in score_run(run, item, scorers, build="digest")]
    assert [row_text(r) for r in again] == [row_text(r) for r in first]
    assert (len(first), digest(first)) == RECORDED[name]


def test_the_corpus_covers_every_metric_and_status() -> None:
    seen = {
        (r.metric_id, r.status)
        for _, pairs, scorers in CORPORA
        for run, item in pairs
        for r in score_run(run, item, scorers)
    }
    metrics = {m for m, _ in seen}
    assert len(metrics) == 10
    assert {"scored", "not_applicable", "unscored"} <= {s for _, s in seen}


def test_a_scored_verdicts_row_is_the_constructors_row_field_for_field() -> None:
    scorer = TraceCompleteness()
    run, _ = bench_pairs(1)[0]
    for value, kept in ((0.25, 0.25), (1.5, 1.0), (-0.0, 0.0), (float("nan"), 0.0), (1, 1.0)):
        verdict = scorer.scored(value, reason="r", span_ids=["a", "b", "a"], evidence={"k": 1})
        row = verdict.row(scorer.id, scorer.version, run.trace_id)
        built = Score(
            scorer.id,
            kept,
            "scored",
            scorer.id,
            scorer.version,
            reason="r",
            trace_id=run.trace_id,
            span_ids=("a", "b"),
            evidence={"k": 1},
        )
        assert row_text(row) == row_text(built)
        assert type(row.value) is float
