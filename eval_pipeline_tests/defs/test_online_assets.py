"""The production assets in Dagster, and the sensor on flagged traces.

Contract: a day's partition of ``production_sample`` -> ``production_scores`` ->
``online_scores`` -> ``drift`` materialises on real traffic of the sample agent; the drift
check passes when the traffic is the datasets' kind of request answered by the deployed
build, and fails, naming the slice dimension, when the traffic's slice mix moved away from
the datasets'; the ``flagged_trace_sensor`` turns new production alerts in the state database
into one scoring run of their day, and asks nothing more until new alerts arrive.
"""

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from eval_pipeline.defs.assemble import build_definitions
from eval_pipeline.defs.online_assets import DRIFT_CHECK, PRODUCTION_ASSETS
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline_tests.realtime.online.production_traffic import (
    DEPLOYED,
    SUITE_NAME,
    production_home,
)

DAY = "2026-11-28"


def materialise(day: str, base_rate: float = 0.5) -> dg.ExecuteInProcessResult:
    config: dict[str, Any] = {
        asset.key.to_user_string(): {"config": {"suite": SUITE_NAME}} for asset in PRODUCTION_ASSETS
    }
    config["production_sample"]["config"]["base_rate"] = base_rate
    return dg.materialize(
        list(PRODUCTION_ASSETS),
        partition_key=day,
        resources={"eval_home": EvalHomeResource()},
        run_config={"ops": config},
    )


def drift_check(result: dg.ExecuteInProcessResult) -> dg.AssetCheckEvaluation:
    (evaluation,) = [e for e in result.get_asset_check_evaluations() if e.check_name == DRIFT_CHECK]
    return evaluation


def test_traffic_like_the_datasets_does_not_drift_and_a_moved_slice_mix_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prod = production_home(tmp_path, monkeypatch, n_items=10)
    prod.traffic(DAY, "baseline", copies=4)
    prod.record_alerts()
    same = materialise(DAY)
    assert same.success
    online = same.asset_materializations_for_node("online_scores")[0].metadata
    assert online["deployed_build"].value == DEPLOYED
    assert online["sampled_traces"].value >= 10  # of 40, each taken with probability >= 0.5
    check = drift_check(same)
    assert check.passed, check.metadata["drifted"].value
    moved = "2026-11-27"
    prod.traffic(moved, "baseline", copies=6, where=lambda item: item.slices["intent"] == "mixed")
    result = materialise(moved)
    check = drift_check(result)
    assert not check.passed
    drifted = check.metadata["drifted"].value
    assert any(line.startswith("slice mix intent: TVD") for line in drifted), drifted
    scores = result.asset_materializations_for_node("production_scores")[0].metadata
    assert scores["unmatched_traces"].value == 0


def test_the_flagged_trace_sensor_requests_the_day_of_new_alerts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    prod = production_home(tmp_path, monkeypatch, n_items=4)
    prod.traffic(today, "defect-renamed-argument", copies=2)
    defs = build_definitions()
    sensor = defs.resolve_sensor_def("flagged_trace_sensor")
    instance = dg.DagsterInstance.ephemeral()

    def tick(cursor: str | None) -> dg.SensorResult:
        context = dg.build_sensor_context(
            instance=instance, cursor=cursor, resources=defs.resources
        )
        result = sensor(context)
        assert isinstance(result, dg.SensorResult)
        return result

    quiet = tick(None)
    assert not quiet.run_requests  # traffic, but nothing flagged yet
    prod.record_alerts()
    first = tick(quiet.cursor)
    assert [r.partition_key for r in first.run_requests or []] == [today]
    assert sensor.job_name == "production_scoring_job"
    assert int((first.run_requests or [])[0].tags["flagged_alerts"]) >= 1
    assert not tick(first.cursor).run_requests  # nothing new
    prod.traffic(today, "defect-claims-unissued-refunds", copies=1, label="later")
    prod.record_alerts()
    later = tick(first.cursor)
    (request,) = later.run_requests or []
    assert request.partition_key == today
    assert request.run_key != (first.run_requests or [])[0].run_key
