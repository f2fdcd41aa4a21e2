"""``demo --loop``: the production feedback loop of issue 19, end to end on the current home.

Production-like traffic of the sample agent goes through the real ``serve`` process, the
real-time plane stores alerts and a user's thumbs-down arrives (``demo_live``); then Dagster
materialises the day's ``production_sample`` (inclusion probabilities), ``production_scores``
and ``online_scores``; the reviewer labels the trace a defect into ``regression/<name>`` (a new
dataset version); the next candidate is gated on a suite pinning that version. Each step says
what it did in one line. It lives in ``cli`` because the reviewer's step is the ``review
label`` command's own code (``cli.triage.triage_trace``), which ``defs`` may not import.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eval_pipeline.cli.demo_live import post_thumbs_down, send_traffic, start_serve, wait_for_alerts
from eval_pipeline.home import Home

REGRESSION = "regression/support-live"
LOOP_PREFIX = "loop-"
"""The loop's builds (``loop-support-baseline``...): the normal demo's are on another suite."""
EXPECTED_CALLS = [  # the reviewer's reference for Ava's request (the order's delivered items)
    {"name": "get_order_details", "arguments": {"order_id": "#W8668939"}},
    {"name": "transfer_to_agent"},
    {"name": "confirm_action"},
    {
        "name": "return_delivered_order_items",
        "arguments": {
            "order_id": "#W8668939",
            "item_ids": ["7717598293", "7199146548", "5996159312", "1120917161"],
            "payment_method_id": "credit_card_5683823",
        },
    },
]
REFERENCE_ANSWER = (
    "The items of order #W8668939 are returned; the refund goes to the original payment method."
)


@dataclass
class LoopResult:
    """What the loop made, for the caller's summary and the tests."""

    day: str
    traces: list[str] = field(default_factory=list)
    flagged: dict[str, list[str]] = field(default_factory=dict)
    thumbs_down: str = ""
    sample: dict[str, Any] = field(default_factory=dict)
    materialised: dict[str, dict[str, Any]] = field(default_factory=dict)
    dataset: str = ""
    suite_path: Path | None = None
    gate: Any = None


def materialise_day(home: Home, day: str) -> dict[str, dict[str, Any]]:
    """``production_sample`` -> ``production_scores`` -> ``online_scores`` through Dagster.

    On the home's persistent instance (``eval-pipeline ui`` shows the partition); returns each
    asset's materialisation metadata values.
    """
    import dagster as dg

    from eval_pipeline.defs.launch import local_instance, quiet_run_config
    from eval_pipeline.defs.online_assets import online_scores, production_sample, production_scores
    from eval_pipeline.defs.resources import EvalHomeResource

    assets = [production_sample, production_scores, online_scores]
    with local_instance(home) as instance:
        result = dg.materialize(
            assets,
            partition_key=day,
            instance=instance,
            resources={"eval_home": EvalHomeResource()},
            run_config={"loggers": quiet_run_config()["loggers"]},
        )
    return {
        asset.key.to_user_string(): {
            key: value.value
            for event in result.asset_materializations_for_node(asset.op.name)
            for key, value in event.metadata.items()
        }
        for asset in assets
    }


def write_suite(home: Home, work: Path, version: str) -> Path:
    """The support-agent suite with the new regression version as its only dataset."""
    import yaml

    from eval_pipeline.suites.locate import locate_suite

    suite = yaml.safe_load(Path(locate_suite("support-agent")).read_text())
    suite["suite"] = "support-agent-regression"
    suite["datasets"] = [{"name": REGRESSION, "version": version}]
    path = work / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def gate_candidate(home: Home, suite_path: Path) -> Any:
    """Run and score the baseline and the improved candidate on the suite, gate the candidate.

    Both are registered on the suite with the baseline pinned, as ``builds register`` would.
    """
    from dataclasses import replace

    from eval_pipeline.defects.story import evaluate_build, register_story, sample_agent_builds
    from eval_pipeline.evaluation.stage import open_stage

    baseline, candidate = (
        replace(b, build=LOOP_PREFIX + b.build) for b in sample_agent_builds()[:2]
    )
    register_story(home, (baseline, candidate), suite_path)
    evaluate_build(open_stage(home, baseline.build), gate=False)
    return evaluate_build(open_stage(home, candidate.build)).outcome


def run_loop(home: Home, say: Callable[[str], None], webhook: str | None = None) -> LoopResult:
    """The whole loop on ``home``; ``say`` gets one line per step."""
    from eval_pipeline.realtime.online.sample import sample_path

    work = home.root / "demo-loop"
    work.mkdir(parents=True, exist_ok=True)
    result = LoopResult(day=datetime.now(UTC).strftime("%Y-%m-%d"))
    server, port = start_serve(home, work, webhook)
    try:
        say(f"serve: receiver on 127.0.0.1:{port} (production token, detectors on)")
        result.traces = send_traffic(port)
        say(f"traffic: {len(result.traces)} live traces sent as OTLP: {' '.join(result.traces)}")
        result.flagged = wait_for_alerts(home, result.traces)
        flags = ", ".join(f"{t} {'+'.join(sorted(set(d)))}" for t, d in result.flagged.items())
        say(f"alerts: {len(result.flagged)} traces flagged by the real-time plane: {flags}")
        result.thumbs_down = result.traces[0]
        answer = post_thumbs_down(port, result.thumbs_down)
        say(f"feedback: down on {answer['trace_id']}: review opened {answer['review_opened']}")
    finally:
        server.terminate()
        server.wait(timeout=30)
    result.materialised = materialise_day(home, result.day)
    result.sample = json.loads(sample_path(home, result.day).read_text())
    chosen = {e["trace_id"]: e for e in result.sample["sampled"]}
    shown = ", ".join(
        f"{t} p={chosen[t]['probability']:g} ({'+'.join(chosen[t]['reasons'])})"
        for t in result.traces
        if t in chosen
    )
    say(
        f"sample: production_sample/{result.day}: {len(chosen)} of {result.sample['traces']} "
        f"traces sampled: {shown}"
    )
    scores = result.materialised["production_scores"]
    say(
        f"scores: production_scores/{result.day} scored {scores['scored_now']} sampled traces "
        f"as {scores['score_build']} (rows {scores['rows_by_status']}); online_scores materialised"
    )
    review_and_triage(home, result, say)
    result.suite_path = write_suite(home, work, result.dataset.partition("@")[2])
    result.gate = gate_candidate(home, result.suite_path)
    report = result.gate.report
    missing = sum(m.missing.total for m in report.metrics)
    failing = ", ".join(m.metric_id for m in report.metrics if m.verdict == "fail") or "none"
    say(
        f"gate: {result.gate.build} vs {result.gate.baseline} on {result.dataset}: "
        f"{report.verdict.upper()} (failing: {failing}), {missing} missing over "
        f"{len(report.metrics)} metrics; suite {result.suite_path}"
    )
    return result


def review_and_triage(home: Home, result: LoopResult, say: Callable[[str], None]) -> None:
    """The review queue, then the reviewer's defect verdict with references into the dataset."""
    from eval_pipeline.cli.triage import triage_trace
    from eval_pipeline.realtime.feedback.store import FeedbackStore

    store = FeedbackStore(home.state_url)
    queue = store.reviews("open")
    items = ", ".join(f"{i.trace_id} ({i.negative_feedback} thumbs-down)" for i in queue)
    say(f"review: {len(queue)} open: {items}")
    note = "refund sent without naming the card"
    case = triage_trace(  # what `review label --verdict defect --dataset ...` runs first
        result.thumbs_down,
        REGRESSION,
        note,
        expected_calls=json.dumps(EXPECTED_CALLS),
        reference_answer=REFERENCE_ANSWER,
        slices=("intent=return",),
        tool_schemas_from="golden/support-agent-refunds",
    )
    item = store.label(result.thumbs_down, "defect", reviewer="demo-reviewer", note=note)
    result.dataset = f"{case['dataset']}@{case['version']}"
    say(
        f"label: {item.trace_id} {item.verdict} by {item.reviewer}: {result.dataset} "
        f"({case['cases']} case(s), {case['expected_calls']} expected calls)"
    )
