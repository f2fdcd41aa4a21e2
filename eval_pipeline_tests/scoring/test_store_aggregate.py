"""Score store and aggregates.

The store round-trips every field, is idempotent by (build, item, run, metric) so rescoring
replaces rather than duplicates, keeps builds apart, and exposes a long frame with slice
columns and per-run latency/cost. pass^k follows the C(c,k)/C(n,k) estimator per item,
averaged over items, and is reported only for binary metrics.
"""

from math import comb

from eval_pipeline.scoring.aggregate import pass_hat_k, summarise
from eval_pipeline.scoring.score import SCORE_COLUMNS, Score
from eval_pipeline.scoring.store import ScoreStore


def _score(
    item: str, run: int, metric: str, value: float | None, status: str = "scored", **extra: object
) -> Score:
    return Score(
        metric_id=metric,
        value=value,
        status=status,
        scorer_id=metric,
        scorer_version=1,
        item_id=item,
        run_index=run,
        trace_id=f"t-{item}-{run}",
        span_ids=("aa", "bb"),
        slices={"intent": "refund", "language": "en"},
        evidence={"k": [1, 2]},
        **extra,
    )  # type: ignore[arg-type]


def test_round_trip_and_idempotence(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = ScoreStore(tmp_path)
    rows = [
        _score("i1", 0, "tool_correctness", 1.0),
        _score("i1", 1, "tool_correctness", 0.0),
        _score(
            "i1",
            0,
            "faithfulness",
            None,
            "unscored",
            reason="no context",
            judge_fingerprint="abc",
            judge_backend="offline-minilm",
        ),
    ]
    assert store.write("b1", rows) == 3
    assert store.write("b1", rows) == 3
    back = store.read("b1")
    assert len(back) == 3
    assert {(s.item_id, s.run_index, s.metric_id): s for s in back}[
        ("i1", 0, "faithfulness")
    ] == rows[2].with_context(build="b1", item_id="i1", run_index=0, slices=rows[2].slices)
    store.write("b1", [_score("i1", 1, "tool_correctness", 0.5)])
    values = {(s.run_index, s.metric_id): s.value for s in store.read("b1")}
    assert values[(1, "tool_correctness")] == 0.5 and len(values) == 3
    assert store.read("other") == [] and store.builds() == ["b1"]


def test_frame_has_contract_columns_slices_and_run_metrics(tmp_path) -> None:  # type: ignore[no-untyped-def]
    store = ScoreStore(tmp_path)
    store.write(
        "b/2", [_score("i1", 0, "task_success", 1.0)], run_metrics={("i1", 0): {"latency_s": 2.5}}
    )
    frame = store.read_frame("b/2")
    assert list(frame.columns[: len(SCORE_COLUMNS)]) == list(SCORE_COLUMNS)
    assert frame.loc[0, "intent"] == "refund" and frame.loc[0, "latency_s"] == 2.5
    assert "cost_usd" not in frame.columns
    assert frame.loc[0, "span_ids"] == ["aa", "bb"]


def test_pass_hat_k_estimator() -> None:
    counts = [(4, 4), (4, 2), (3, 0)]
    expected_2 = (1 + comb(2, 2) / comb(4, 2) + 0) / 3
    assert pass_hat_k(counts, 2) == expected_2
    assert pass_hat_k(counts, 4) == (1 + 0) / 2
    assert pass_hat_k(counts, 5) is None


def test_summary_counts_missing_and_skips_pass_k_for_graded_metrics() -> None:
    rows = [_score("i1", r, "task_success", v) for r, v in enumerate([1.0, 1.0, 0.0])]
    rows += [_score("i2", r, "task_success", 1.0) for r in range(3)]
    rows += [_score("i1", 0, "tool_call_f1", 0.5), _score("i2", 0, "tool_call_f1", None, "error")]
    summary = summarise(rows)
    success = summary["task_success"]
    assert success.n == 6 and success.mean == 5 / 6
    assert success.pass_k[1] == (2 / 3 + 1) / 2
    assert success.pass_k[3] == (0 + 1) / 2
    f1 = summary["tool_call_f1"].to_json()
    assert f1 == {
        "mean": 0.5,
        "n": 1,
        "unscored": 0,
        "errors": 1,
        "items": 2,
        "not_applicable": 0,
        "pass^k": {},
    }
