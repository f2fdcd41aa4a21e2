"""``eval-pipeline demo --loop``: the production feedback loop on a fresh home, end to end.

Contract: live sample-agent traffic goes through the real ``serve``; its tool errors are stored
as alerts by the real-time plane; the thumbs-down posted to ``/v1/feedback`` opens a review and
the trace is sampled with its inclusion probability recorded; the reviewer's defect becomes a
new version of ``regression/support-live`` holding the trace's case; and the candidate is gated
on a suite pinning that version with no metric missing evidence for the case.
"""

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.cli.demo_live import TYPOS
from eval_pipeline.cli.demo_loop import REGRESSION
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.evaluation.stages import decide_gate, load_stage
from eval_pipeline.home import current_home
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.feedback.store import FeedbackStore
from eval_pipeline.realtime.online.sample import sample_path
from eval_pipeline.realtime.online.sampler import THUMBS_DOWN, hash_uniform
from eval_pipeline.suites.config import load_suite
from eval_pipeline.suites.risk import load_risk_policy

STEPS = (
    "serve:",
    "traffic:",
    "alerts:",
    "feedback:",
    "sample:",
    "scores:",
    "review:",
    "label:",
    "gate:",
)


def test_the_loop_flags_samples_reviews_triages_and_gates_on_the_new_version() -> None:
    outcome = CliRunner().invoke(cli, ["demo", "--loop"])
    assert outcome.exit_code == 0, outcome.output
    lines = outcome.stdout.splitlines()
    assert [line.split(" ", 1)[0] for line in lines] == list(STEPS), outcome.stdout
    home = current_home()
    traces = lines[1].rsplit(": ", 1)[1].split()
    thumbs_down, mistyped = traces[0], traces[-len(TYPOS) :]

    alerts = AlertStore(home.state_url).list_alerts(build="production")
    assert {a.trace_id for a in alerts if a.detector.startswith("tool_error@")} == set(mistyped)

    day = lines[4].split("production_sample/", 1)[1].split(":", 1)[0]
    body = json.loads(sample_path(home, day).read_text())
    sampled = {entry["trace_id"]: entry for entry in body["sampled"]}
    tier = load_risk_policy().tier(body["tier"])
    assert body["traces"] == len(traces)
    assert THUMBS_DOWN in sampled[thumbs_down]["reasons"]
    assert sampled[thumbs_down]["probability"] == tier.thumbs_down_sampling_rate
    assert hash_uniform(thumbs_down) < sampled[thumbs_down]["probability"]
    for trace_id in mistyped:
        assert "tool_error" in sampled[trace_id]["reasons"]
        assert sampled[trace_id]["probability"] == tier.inclusion_rate_for_flag("tool_error")

    item = FeedbackStore(home.state_url).review(thumbs_down)
    assert item is not None and item.status == "labelled" and item.verdict == "defect"
    assert item.reviewer == "demo-reviewer" and item.negative_feedback == 1

    store = default_dataset_store()
    (version,) = store.versions(REGRESSION)
    dataset = store.load(REGRESSION, version)
    (case,) = dataset.items
    assert case.item_id == f"trace-{thumbs_down}"
    assert [call.name for call in case.expected_tool_calls][-1] == "return_delivered_order_items"
    assert case.reference_answer and case.input_messages[0]["content"].startswith("Hi, I'm Ava")

    suite_file = Path(lines[-1].rsplit("suite ", 1)[1])
    suite = load_suite(suite_file)
    assert [d.ref for d in suite.datasets] == [f"{REGRESSION}@{version}"]
    assert yaml.safe_load(suite_file.read_text())["datasets"] == [
        {"name": REGRESSION, "version": version}
    ]
    assert f"on {REGRESSION}@{version}: " in lines[-1] and "0 missing over 8 metrics" in lines[-1]
    # The gate is seeded: re-deciding from the stored scores is the loop's own report.
    report = decide_gate(load_stage(home, "loop-support-candidate-improved")).report
    assert len(report.metrics) == 8 and all(m.missing.total == 0 for m in report.metrics)
    paired = [m.n_paired_items for m in report.metrics if m.n_paired_items]
    assert paired and set(paired) == {1}
    assert {e.item_id for m in report.metrics for e in m.evidence} == {case.item_id}
