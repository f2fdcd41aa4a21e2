"""The production sampler and the ``production_sample`` asset (one partition per UTC day).

Contract: every flagged trace (here: real chat-only traces without an ``invoke_agent`` root,
which are incomplete) is sampled whatever the rate; unflagged traces are sampled at the rate,
deterministically for a given day; the asset samples the day's partition of the production
trace store and records the counts.
"""

import dagster as dg

from eval_pipeline.defs.dataset_assets import production_sample
from eval_pipeline.defs.resources import EvalHomeResource
from eval_pipeline.evaluation.dataset_stage import PRODUCTION_BUILD, sample_production_day
from eval_pipeline.home import current_home
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.conftest import DATA_DIR

DAY = "2026-11-30"
AGENTS = DATA_DIR / "otel" / "openai_agents__otel_contrib_instrumentation"
CHAT = DATA_DIR / "otel" / "openai_chat__otel_contrib_openai_v2"


def load_day() -> None:
    store = TraceStore(current_home().ensure().store)
    for path in [*sorted(AGENTS.glob("*.otlp.json")), CHAT / "test_chat_completion_404.otlp.json"]:
        report = ingest(
            [OtlpRequest(path.read_bytes(), "application/json", str(path))],
            store=store,
            build=PRODUCTION_BUILD,
            day=DAY,
        )
        assert report.ok, report.errors


def test_flagged_traces_are_always_sampled_and_the_rest_at_the_rate() -> None:
    load_day()
    home = current_home()
    none = sample_production_day(home, DAY, rate=0.0)
    every = sample_production_day(home, DAY, rate=1.0)
    assert none["flagged"] >= 1 and none["sampled"] == none["flagged"]
    assert every["sampled"] == every["traces"] == none["traces"]
    again = sample_production_day(home, DAY, rate=0.5)
    assert again == sample_production_day(home, DAY, rate=0.5)  # deterministic per day


def test_the_asset_samples_its_day_partition() -> None:
    load_day()
    result = dg.materialize(
        [production_sample], partition_key=DAY, resources={"eval_home": EvalHomeResource()}
    )
    meta = result.asset_materializations_for_node("production_sample")[0].metadata
    assert meta["day"].value == DAY and meta["traces"].value >= 9
    assert meta["sampled"].value >= meta["flagged"].value >= 1
