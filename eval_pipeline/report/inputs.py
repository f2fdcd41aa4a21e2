"""Everything one report shows, read from the home: the gate's JSON, scores, traces, calibration.

The gate report (``<home>/store/gates/<build>.json``) says what was decided; the score store gives
the distributions and, per trace, the scores with the span ids they were given on; the trace store
gives the span tree of every evidence trace, and the build's judge calls (``report.judge_calls``:
their cost, and the judge traces the shown scores name). The judge's calibration is read by the
caller (the calibration stage sits above this package) and passed in. What the home lacks (a trace
ingested elsewhere, a build with no stored scores) is shown as missing, never guessed.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from eval_pipeline.compare.comparison import Comparison, compare_frames, with_details
from eval_pipeline.compare.history import HistoryPoint
from eval_pipeline.home import Home
from eval_pipeline.report.judge_calls import judge_calls_of
from eval_pipeline.report.stored import load_gate_report
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.judge_cost import JudgeCost
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.runs.assemble import assemble_run
from eval_pipeline.traces.runs.render import run_tree
from eval_pipeline.traces.store.trace_store import TraceStore

SCORE_FIELDS = (
    "metric_id",
    "value",
    "status",
    "reason",
    "span_ids",
    "item_id",
    "run_index",
    "judge_calls",
)
"""What a trace page shows of each score row."""


@dataclass(frozen=True)
class ReportInputs:
    """The data of one report (``gather_inputs`` reads it; the HTML renders only this)."""

    build: str
    report: dict[str, Any]
    candidate: pd.DataFrame
    baseline: pd.DataFrame | None
    calibration: dict[str, Any] | None = None
    judged_metrics: tuple[str, ...] = ()
    traces: dict[str, dict[str, Any]] = field(default_factory=dict)
    scores_by_trace: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    comparison: Comparison | None = None
    history: dict[str, list[HistoryPoint]] = field(default_factory=dict)
    judge_cost: JudgeCost | None = None
    judge_traces: dict[str, list[Span]] = field(default_factory=dict)

    @property
    def evidence_trace_ids(self) -> list[str]:
        """Every trace id the report shows (the comparison's, else the evidence's), each once."""
        if self.comparison is not None:
            return list(dict.fromkeys(t for _, t in self.comparison.traces()))
        seen: dict[str, None] = {}
        for m in self.report["metrics"]:
            for item in m.get("evidence", []):
                seen.update(dict.fromkeys(item["trace_ids"]))
        return list(seen)


def scores_of_traces(
    frame: pd.DataFrame, trace_ids: Sequence[str]
) -> dict[str, list[dict[str, Any]]]:
    """Per trace id, its score rows (metric, value, status, reason, span ids, item, run)."""
    out: dict[str, list[dict[str, Any]]] = {t: [] for t in trace_ids}
    if frame.empty or not trace_ids:
        return out
    rows = frame[frame["trace_id"].isin(list(trace_ids))]
    for record in rows[["trace_id", *SCORE_FIELDS]].to_dict("records"):
        value = record["value"]
        record["value"] = None if pd.isna(value) else float(value)
        record["span_ids"] = list(record["span_ids"] or [])
        record["judge_calls"] = list(record["judge_calls"] or [])
        out[str(record.pop("trace_id"))].append(record)
    return out


def report_comparison(
    home: Home, build: str, candidate: pd.DataFrame, baseline: pd.DataFrame | None, name: str | None
) -> Comparison | None:
    """What changed against the baseline, when both builds have scores (None otherwise)."""
    from eval_pipeline.report.changes_section import LIMIT, SHOWN

    if baseline is None or baseline.empty or candidate.empty or name is None:
        return None
    comparison = compare_frames(
        candidate, baseline, names=(build, name), directions=(*SHOWN, "unchanged", "unpaired"),
        limit=LIMIT,
    )  # fmt: skip
    kept = tuple(m.top(LIMIT, SHOWN) for m in comparison.metrics)
    shown = Comparison(comparison.candidate, comparison.baseline, kept, filters=comparison.filters)
    return with_details(home, shown)


def trace_documents(home: Home, build: str, trace_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The ``traces show`` document of each trace the home holds (the build's copy first)."""
    store = TraceStore(home.store)
    documents = {}
    for trace_id in trace_ids:
        found = store.find_trace(trace_id, build=build) or store.find_trace(trace_id)
        if found is not None:
            shown, spans = found
            documents[trace_id] = run_tree(assemble_run(trace_id.lower(), spans), shown)
    return documents


def gather_inputs(
    home: Home,
    build: str,
    *,
    calibration: dict[str, Any] | None = None,
    judged_metrics: tuple[str, ...] = (),
    with_traces: bool = True,
    history: dict[str, list[HistoryPoint]] | None = None,
) -> ReportInputs:
    """Read the report of ``build`` from ``home`` (``with_traces`` False: plots only).

    ``history`` is the suite's metrics over its builds (``report.suite_history``), read by
    the caller that knows the build's suite.

    Raises:
        GateReportNotFoundError: the build was never gated in this home.
    """
    report = load_gate_report(home, build)
    store = ScoreStore(home.store)
    baseline_build = report.get("baseline")
    baseline = store.read_frame(baseline_build) if baseline_build else None
    candidate = store.read_frame(build)
    comparison = (
        report_comparison(home, build, candidate, baseline, baseline_build) if with_traces else None
    )
    shell = ReportInputs(build, report, candidate, baseline, comparison=comparison)
    trace_ids = shell.evidence_trace_ids if with_traces else []
    traces = trace_documents(home, build, trace_ids)
    scores = scores_of_traces(candidate, trace_ids)
    if comparison is not None and baseline is not None and baseline_build:
        theirs = [t for b, t in comparison.traces() if b == baseline_build]
        traces.update(trace_documents(home, baseline_build, theirs))
        for trace_id, rows in scores_of_traces(baseline, theirs).items():
            scores[trace_id] = scores.get(trace_id, []) + rows
    refs = [ref for rows in scores.values() for row in rows for ref in row["judge_calls"]]
    cost, judge_traces = judge_calls_of(TraceStore(home.store), build, refs)
    return ReportInputs(
        build,
        report,
        candidate,
        baseline,
        judge_cost=cost,
        judge_traces=judge_traces,
        calibration=calibration,
        judged_metrics=judged_metrics,
        traces=traces,
        scores_by_trace=scores,
        comparison=comparison,
        history=history or {},
    )
