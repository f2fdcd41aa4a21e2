"""The report's trace pages (``report/trace_view.py``) over a real ingested trace and real scores.

Contract: each evidence trace has a page hidden until its address is targeted, listing every
score of the run as stored (metric, value, status, reason, span ids linking to the span) and
the span tree with one element per stored span, each score shown as a badge on the span it was
given on (scores naming no span on the top span); a trace not in the store says so, its scores
still listed; with a template, spans also link out.
"""

import json
import re

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.report.inputs import gather_inputs
from eval_pipeline.report.stored import gate_report_path
from eval_pipeline.report.trace_links import TraceLinks
from eval_pipeline.report.trace_view import STYLE, trace_page
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.report.gate_reports import real_gate_report
from eval_pipeline_tests.traces.builders import AGENTS

TRACE_FILE = AGENTS / "test_agent_with_function_tool_spans.otlp.json"


def _ingest() -> tuple[str, list[str], str]:
    """Ingest the file as build ``cand``: its trace id, its span ids and a tool span's id."""
    result = CliRunner().invoke(cli, ["ingest", str(TRACE_FILE), "--build", "cand"])
    assert result.exit_code == 0, result.output
    spans = TraceStore(current_home().store).read_spans("cand")
    tool = next(s for s in spans if s.tool_name)
    return spans[0].trace_id, [s.span_id for s in spans], tool.span_id


def _score(metric: str, value: float, trace: str, spans: tuple[str, ...]) -> Score:
    return Score(
        metric,
        value,
        "scored",
        metric,
        1,
        reason=f"{metric} because",
        trace_id=trace,
        span_ids=spans,
        item_id="item000",
        run_index=0,
    )


def test_the_trace_page_shows_the_span_tree_with_the_scores_on_their_spans() -> None:
    trace_id, span_ids, tool_span = _ingest()
    report = real_gate_report()
    report["metrics"][0]["evidence"][0]["trace_ids"] = [trace_id, "absent-trace"]
    home = current_home()
    target = gate_report_path(home, "cand")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({**report, "baseline": None}))
    scores = [
        _score("tool_correctness", 0.25, trace_id, (tool_span,)),
        _score("task_completion", 1.0, trace_id, ()),
        _score("faithfulness", 0.5, "absent-trace", ()),
    ]
    ScoreStore(home.store).write("cand", scores)
    inputs = gather_inputs(home, "cand")
    assert set(inputs.traces) == {trace_id}  # the other one is not in the store

    page = trace_page(inputs, trace_id, TraceLinks())
    assert page.startswith(f'<section class="trace-page" id="trace-{trace_id}">')
    assert ".trace-page:target,.trace-page:has(:target){display:block}" in STYLE
    shown = re.findall(r'<li class="span" id="span-[^-]+-([0-9a-f]+)">', page)
    assert sorted(shown) == sorted(span_ids)
    on_tool = page.split(f'id="span-{trace_id}-{tool_span}">')[1].split("</li>")[0]
    assert "tool_correctness=0.2500" in on_tool and "task_completion" not in on_tool
    top = page.split('<ul class="spans tree">')[1].split("<ul")[0]
    assert "task_completion=1.0000" in top  # no span named: on the top span
    assert f'href="#span-{trace_id}-{tool_span}"' in page  # the score's span id links to it

    missing = trace_page(inputs, "absent-trace", TraceLinks())
    assert "not in this home's trace store" in missing and "faithfulness because" in missing
    jaeger = TraceLinks("http://localhost:16686/trace/{trace_id}?uiFind={span_id}")
    out = trace_page(inputs, trace_id, jaeger)
    assert f"http://localhost:16686/trace/{trace_id}?uiFind={tool_span}" in out
