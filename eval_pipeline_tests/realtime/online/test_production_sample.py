"""The production sampler on real traffic, and the ``production_sample`` asset.

Contract: each trace of a day is sampled with the highest rate of its tier that applies (base,
per flag kind, thumbs-down), recorded with the reasons; inclusion is a function of the trace id
and that probability, so a day's sample is reproducible and a raised probability only adds
traces; flags come from the detectors and from the alerts the real-time plane stored; a flag
kind the policy names that no detector raises is an error naming the file, tier and key.
"""

import json
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import pytest

from eval_pipeline.defs.online_assets import production_sample
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.home import current_home
from eval_pipeline.realtime.feedback.rating import Feedback, parse_rating
from eval_pipeline.realtime.feedback.store import FeedbackStore
from eval_pipeline.realtime.online.sample import (
    production_policy,
    production_runs,
    sample_path,
    sample_production_day,
)
from eval_pipeline.realtime.online.sampler import (
    THUMBS_DOWN,
    SamplingPolicy,
    SamplingPolicyError,
    flags_of,
    hash_uniform,
)
from eval_pipeline.suites.risk import load_risk_policy
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.conftest import DATA_DIR
from eval_pipeline_tests.realtime.online.production_traffic import SUITE_NAME, production_home

DAY = "2026-11-30"
AGENTS = DATA_DIR / "otel" / "openai_agents__otel_contrib_instrumentation"
CHAT = DATA_DIR / "otel" / "openai_chat__otel_contrib_openai_v2"


def load_day() -> None:
    store = TraceStore(current_home().ensure().store)
    for path in [*sorted(AGENTS.glob("*.otlp.json")), CHAT / "test_chat_completion_404.otlp.json"]:
        report = ingest(
            [OtlpRequest(path.read_bytes(), "application/json", str(path))],
            store=store,
            build=PRODUCTION,
            day=DAY,
        )
        assert report.ok, report.errors


def test_each_trace_gets_the_highest_applicable_rate_and_its_reasons(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prod = production_home(tmp_path, monkeypatch, n_items=6)
    prod.traffic(DAY, "defect-renamed-argument", copies=4)
    home = prod.home
    runs = production_runs(home, DAY)
    policy = production_policy(SUITE_NAME, 0.3)
    tier = load_risk_policy().tier("low")
    unflagged = sorted(r.trace_id for r in runs if not flags_of(r))
    rated_down = {unflagged[0]}
    summary = sample_production_day(home, DAY, thumbs_down=rated_down, suite=SUITE_NAME, rate=0.3)
    body = json.loads(sample_path(home, DAY).read_text())
    assert summary["traces"] == body["traces"] == len(runs) >= 24
    assert body["tier"] == "low" and body["policy"]["base_rate"] == 0.3
    for entry in body["sampled"]:
        run = next(r for r in runs if r.trace_id == entry["trace_id"])
        kinds = {f.partition("@")[0] for f in flags_of(run)}
        rates = [0.3, *(tier.inclusion_rate_for_flag(k) for k in kinds)]
        if run.trace_id in rated_down:
            rates.append(tier.thumbs_down_sampling_rate)
            assert THUMBS_DOWN in entry["reasons"]
        assert entry["probability"] == max(rates)
        expected = kinds or (set() if run.trace_id in rated_down else {"base_rate"})
        assert set(entry["reasons"]) - {THUMBS_DOWN} == expected
        assert hash_uniform(run.trace_id) < entry["probability"]
    sampled = {e["trace_id"] for e in body["sampled"]}
    assert unflagged[0] in sampled  # the low tier samples a thumbs-down with certainty
    for run in runs:
        if run.trace_id not in sampled:
            probability, _ = policy.inclusion(flags_of(run), run.trace_id in rated_down)
            assert hash_uniform(run.trace_id) >= probability
    again = sample_production_day(home, DAY, thumbs_down=rated_down, suite=SUITE_NAME, rate=0.3)
    assert again == summary and json.loads(sample_path(home, DAY).read_text()) == body
    more = sample_production_day(home, DAY, thumbs_down=rated_down, suite=SUITE_NAME, rate=0.6)
    wider = {e["trace_id"] for e in json.loads(sample_path(home, DAY).read_text())["sampled"]}
    assert sampled <= wider and more["sampled"] >= summary["sampled"]


def test_alerts_of_the_realtime_plane_raise_the_inclusion_probability(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prod = production_home(tmp_path, monkeypatch, n_items=6)
    prod.traffic(DAY, "baseline", copies=4)
    home = prod.home
    config = tmp_path / "strict.yaml"
    config.write_text("trajectory:\n  max_tool_calls: 2\n")  # the live plane's stricter limit
    from click.testing import CliRunner

    from eval_pipeline.cli import cli

    outcome = CliRunner().invoke(
        cli, ["detect", "--build", PRODUCTION, "--config", str(config), "--record"]
    )
    assert outcome.exit_code == 0, outcome.output
    runs = production_runs(home, DAY)
    alert_only = [r.trace_id for r in runs if "long_trajectory@1" not in flags_of(r)]
    assert alert_only
    sample_production_day(home, DAY, thumbs_down=(), suite=SUITE_NAME, rate=0.0)
    body = json.loads(sample_path(home, DAY).read_text())
    by_trace = {e["trace_id"]: e for e in body["sampled"]}
    long_rate = load_risk_policy().tier("low").inclusion_rate_for_flag("long_trajectory")
    for trace_id in alert_only:
        if trace_id in by_trace:
            assert "long_trajectory" in by_trace[trace_id]["reasons"]
            assert by_trace[trace_id]["probability"] >= long_rate
    taken = [t for t in alert_only if hash_uniform(t) < long_rate]
    assert set(taken) <= set(by_trace)


def test_a_flag_kind_no_detector_raises_is_refused_naming_the_tier() -> None:
    tier = load_risk_policy().tier("medium")
    bad = tier.model_copy(update={"flagged_sampling_rates": {"tool_eror": 1.0}})
    with pytest.raises(
        SamplingPolicyError, match=r"tiers\.medium\.flagged_sampling_rates.*tool_eror"
    ):
        SamplingPolicy.of(bad, source="risk_tiers.yaml")


def test_the_asset_samples_its_day_partition() -> None:
    load_day()
    home = current_home()
    runs = production_runs(home, DAY)
    unflagged = sorted(r.trace_id for r in runs if not flags_of(r))
    moment = datetime(2026, 11, 30, 12, tzinfo=UTC)
    FeedbackStore(home.state_url).record(Feedback(unflagged[0], parse_rating("down"), moment))
    result = dg.materialize(
        [production_sample],
        partition_key=DAY,
        resources={"eval_home": EvalHomeResource()},
    )
    meta = result.asset_materializations_for_node("production_sample")[0].metadata
    assert meta["day"].value == DAY and meta["traces"].value >= 9
    assert meta["suite"].value == "support-agent" and meta["tier"].value == "medium"
    assert meta["sampled"].value >= meta["flagged"].value >= 1
    assert meta["estimated_traffic"].value > 0
    # A thumbs-down in the feedback store raises that trace to the tier's thumbs-down rate.
    sampled = {e["trace_id"]: e for e in json.loads(sample_path(home, DAY).read_text())["sampled"]}
    assert load_risk_policy().tier("medium").thumbs_down_sampling_rate == 1.0
    assert THUMBS_DOWN in sampled[unflagged[0]]["reasons"]
    assert sampled[unflagged[0]]["probability"] == 1.0
