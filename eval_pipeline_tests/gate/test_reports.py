"""Report renderers (``gate/reports.py``): what CI and release managers read.

JUnit has one testcase per metric and budget and fails only blocking checks; JSON is strict
(no NaN) with the contract keys; the text report says whether an inconclusive result blocks;
Markdown has a section only where there is something to show.
"""

import json
import math
import xml.etree.ElementTree as ET
from dataclasses import replace

from eval_pipeline.evaluation.gate_config import gate_tier
from eval_pipeline.gate import (
    RENDERERS,
    Budgets,
    GateConfig,
    GateReport,
    MetricRule,
    evaluate_gate,
    render_json,
    render_junit,
    render_markdown,
    render_text,
)

from .builders import frame, score_rows

CONFIG = GateConfig(
    metrics=(MetricRule("faithfulness", 0.5, 0.05), MetricRule("task_completion", 0.5, 0.05)),
    budgets=Budgets(p95_latency_s=12.0),
    tier=gate_tier("medium"),
    n_resamples=500,
)


def _inconclusive_report(tier: str) -> GateReport:
    values = [0.8, 0.9, 0.7]
    cand = frame(
        score_rows("faithfulness", values, latency_s=1.0),
        score_rows("task_completion", values, latency_s=1.0),
    )
    return evaluate_gate(replace(CONFIG, tier=gate_tier(tier)), cand, cand)


def test_junit_fails_only_blocking_checks() -> None:
    lenient = ET.fromstring(render_junit(_inconclusive_report("low")))
    cases = list(lenient.iter("testcase"))
    assert [c.get("name") for c in cases] == ["faithfulness", "task_completion", "p95_latency_s"]
    assert all(c.find("failure") is None for c in cases)
    assert "inconclusive" in (cases[0].findtext("system-out") or "")
    strict = ET.fromstring(render_junit(_inconclusive_report("high")))
    assert strict.get("failures") == "2"


def test_json_is_strict_json_without_nan() -> None:
    text = render_json(_inconclusive_report("low"))
    data = json.loads(text, parse_constant=lambda c: math.nan)
    assert "NaN" not in text
    assert data["verdict"] == "inconclusive" and data["blocking"] is False
    assert set(data) >= {"verdict", "metrics", "budgets"}


def test_text_says_whether_inconclusive_blocks() -> None:
    assert "passes with warnings under tier low" in render_text(_inconclusive_report("low"))
    assert "blocks under tier high" in render_text(_inconclusive_report("high"))


def test_markdown_has_a_section_only_where_there_is_something_to_show() -> None:
    markdown = render_markdown(_inconclusive_report("high"))
    assert markdown.startswith("## Release gate: INCONCLUSIVE (blocks under tier high)\n")
    assert "### Budgets" in markdown and "| `p95_latency_s` | pass |" in markdown
    assert "### Evidence (worst items)" in markdown and "`trace-faithfulness-0-0`" in markdown
    assert "### Slices that collapsed" not in markdown


def test_every_format_leads_with_the_same_verdict() -> None:
    report = _inconclusive_report("high")
    assert sorted(RENDERERS) == ["json", "junit", "markdown", "text"]
    rendered = {name: render(report) for name, render in RENDERERS.items()}
    assert "INCONCLUSIVE (blocks under tier high)" in rendered["text"].splitlines()[0]
    assert "INCONCLUSIVE (blocks under tier high)" in rendered["markdown"].splitlines()[0]
    assert json.loads(rendered["json"])["blocking"] is True
    assert ET.fromstring(rendered["junit"]).get("failures") == "2"


def test_the_tier_is_named_once() -> None:
    for tier in ("low", "high"):
        report = _inconclusive_report(tier)
        assert render_text(report).count(f"tier {tier}") == 1, render_text(report)
        header = render_markdown(report).split("### ")[0]
        assert header.count(tier) == 1, header
    passing = evaluate_gate(CONFIG, *(2 * [_many_items()]))
    assert render_text(passing).splitlines()[0] == "gate: PASS (tier medium)"


def _many_items() -> object:
    values = [0.8, 0.9, 0.7, 0.85] * 10
    return frame(
        score_rows("faithfulness", values, latency_s=1.0),
        score_rows("task_completion", values, latency_s=1.0),
    )


def test_no_interval_is_never_printed_as_nan() -> None:
    one = frame(
        score_rows("faithfulness", [0.8], latency_s=1.0),
        score_rows("task_completion", [0.8], latency_s=1.0),
    )
    report = evaluate_gate(CONFIG, one, one)
    for render in RENDERERS.values():
        assert "nan" not in render(report).lower()
    assert "no interval" in report.budgets[0].reason


def test_a_one_item_suite_claims_no_power() -> None:
    one = frame(
        score_rows("faithfulness", [0.8], latency_s=1.0),
        score_rows("task_completion", [0.8], latency_s=1.0),
    )
    decision = evaluate_gate(CONFIG, one, one).metric("faithfulness")
    assert decision.verdict == "inconclusive" and "too few" in decision.reason
    assert decision.power is not None and not decision.power.margin_detectable
    assert "caught" not in decision.power.note and "too few items" in decision.power.note


def _failing_report() -> GateReport:
    def rows(metric: str, value: float) -> list[dict[str, object]]:
        return score_rows(metric, [value] * 30, runs_per_item=6, latency_s=1.0)

    base = frame(rows("faithfulness", 0.9), rows("task_completion", 0.9))
    worse = frame(rows("faithfulness", 0.2), rows("task_completion", 0.9))
    worse["trace_id"] = [f"{k:032x}" for k in range(len(worse))]
    return evaluate_gate(CONFIG, worse, base)


def test_text_names_both_builds_and_the_failing_metrics_on_its_first_line() -> None:
    text = render_text(_failing_report(), candidate="cand-7", baseline="base-3")
    first = text.splitlines()[0]
    assert first.startswith("gate: FAIL (tier medium)")
    assert "candidate cand-7 vs baseline base-3" in first and "failing: faithfulness" in first
    assert "task_completion" not in first
    assert render_text(_failing_report()).splitlines()[0].startswith("gate: FAIL")


def test_text_never_splits_a_trace_id_and_keeps_lines_short() -> None:
    report = _failing_report()
    text = render_text(report, candidate="c", baseline="b")
    failing = [m for m in report.metrics if m.verdict != "pass"]
    evidence_ids = {t for m in failing for e in m.evidence for t in e.trace_ids}
    assert len(evidence_ids) >= 6
    words = set(text.replace(",", " ").split())
    assert evidence_ids <= words
    assert max(len(line) for line in text.splitlines() if "trace" in line) <= 140
