"""Online scores of the production sample, beside the deployed build's offline scores.

Contract: a sampled production trace is scored by the production suite's scorers exactly as
offline (the deployed build's own traces, replayed as traffic, get the rows they got offline);
the online estimate of a metric is the Hajek mean of the sample weighted by the recorded
inclusion probabilities (not the sample's plain mean), the offline one the deployed (pinned)
build's mean; a rerun scores only traces not scored yet.
"""

from pathlib import Path

import numpy as np
import pytest

from eval_pipeline.realtime.online.estimates import hajek
from eval_pipeline.realtime.online.sample import load_sample, sample_production_day
from eval_pipeline.realtime.online.scores import ALL, online_scores
from eval_pipeline.realtime.online.scoring import production_build, score_production_day
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.decode.errors import DecodeResult
from eval_pipeline.traces.ingest.ingest import ingest
from eval_pipeline.traces.redact.policy import load_policy
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.online.production_traffic import (
    DEPLOYED,
    SUITE_NAME,
    production_home,
)

DAY = "2026-11-29"


def test_a_sampled_trace_gets_the_rows_it_got_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prod = production_home(tmp_path, monkeypatch, n_items=5)
    store = TraceStore(prod.home.store)
    report = ingest(
        [DecodeResult(spans=store.read_spans(DEPLOYED))],
        store=store,
        build=PRODUCTION,
        day=DAY,
        policy=load_policy("keep-tools"),
    )
    assert report.ok, report.errors
    sample_production_day(prod.home, DAY, thumbs_down=(), suite=SUITE_NAME, rate=1.0)
    summary = score_production_day(prod.home, DAY, SUITE_NAME)
    assert summary["scored_now"] == summary["matched_dataset_items"] == 10
    scores = ScoreStore(prod.home.store)
    offline = scores.read_frame(DEPLOYED)
    online = scores.read_frame(production_build(DAY))
    key = ["trace_id", "metric_id", "status", "value", "intent", "scorer_version", "dataset"]
    left = offline[key].sort_values(["trace_id", "metric_id"]).reset_index(drop=True)
    right = online[key].sort_values(["trace_id", "metric_id"]).reset_index(drop=True)
    assert len(left) == 40 and left.equals(right)
    assert (online["item_id"] == online["trace_id"]).all()  # each trace is its own item
    again = score_production_day(prod.home, DAY, SUITE_NAME)
    assert again["scored_now"] == 0 and again["scored_before"] == 10


def test_the_online_estimate_is_weighted_by_inverse_inclusion_probability(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prod = production_home(tmp_path, monkeypatch, n_items=8)
    prod.traffic(DAY, "defect-renamed-argument", copies=5)
    prod.record_alerts()
    sample_production_day(prod.home, DAY, thumbs_down=(), suite=SUITE_NAME, rate=0.3)
    score_production_day(prod.home, DAY, SUITE_NAME)
    result = online_scores(prod.home, DAY, SUITE_NAME)
    assert result.deployed_build == DEPLOYED
    probability = {s.trace_id: s.probability for s in load_sample(prod.home, DAY)}
    assert len(set(probability.values())) > 1  # flags raised some traces above the base rate
    rows = ScoreStore(prod.home.store).read_frame(production_build(DAY))
    offline = ScoreStore(prod.home.store).read_frame(DEPLOYED)
    for comparison in (c for c in result.comparisons if c.slice == ALL):
        mine = rows[
            (rows["metric_id"] == comparison.metric_id) & (rows["status"] == ScoreStatus.SCORED)
        ]
        y = mine["value"].to_numpy(float)
        w = 1 / mine["item_id"].map(probability).to_numpy(float)
        assert comparison.online.mean == pytest.approx(float((w * y).sum() / w.sum()))
        assert comparison.online.n == len(mine)
        theirs = offline[
            (offline["metric_id"] == comparison.metric_id)
            & (offline["status"] == ScoreStatus.SCORED)
        ]
        assert comparison.offline.mean == pytest.approx(float(theirs["value"].mean()))
    argument = next(
        c for c in result.comparisons if c.metric_id == "argument_correctness" and c.slice == ALL
    )
    sampled = rows[
        (rows["metric_id"] == "argument_correctness") & (rows["status"] == ScoreStatus.SCORED)
    ]
    plain = float(sampled["value"].mean())
    weighted = hajek(
        sampled["value"].to_numpy(float), sampled["item_id"].map(probability).to_numpy(float)
    )
    assert argument.online == weighted and not np.isclose(plain, weighted.mean)
    shares = result.online_mix["intent"]
    assert sum(e.mean or 0.0 for e in shares.values()) == pytest.approx(1.0)
