"""Langfuse as a back end, against its published API schema (its server cannot run here).

Contract: a Langfuse trace export (``TraceWithFullDetails``, validated against the committed
schema subset) becomes one run per trace through the one ingest function: tool calls with
arguments, results and errors, model calls with token usage, the final answer, the eval context
from the trace metadata, and its scores as imported rows (a numeric score scored, a categorical
one unscored with its label). A score out of [0, 1] is one error naming file and field (exit 2)
and everything else is stored. Out: every score row is a valid ``CreateScoreRequest`` sent with
Basic auth, the spans go to the OTLP endpoint, and the scores Langfuse would return for them
(its read shape) import back as the same rows.
"""

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.report.stored import load_gate_report
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.backends.scored_build import scored_build

DATA = Path(__file__).resolve().parents[2] / "data" / "langfuse"
SCHEMA = json.loads((DATA / "api_schema.json").read_text())
EXPORT = DATA / "traces_refund_agent.json"


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator({**SCHEMA, "$ref": f"#/$defs/{name}"})


def test_the_fixture_follows_the_published_schema() -> None:
    validator = _validator("TraceWithFullDetails")
    for trace in json.loads(EXPORT.read_text()):
        validator.validate(trace)


def test_a_trace_export_becomes_runs_and_scores() -> None:
    result = CliRunner().invoke(
        cli,
        [
            "import",
            "--from",
            "langfuse",
            str(EXPORT),
            "--build",
            "lf",
            "--redaction-policy",
            "keep-tools",
        ],
    )
    assert result.exit_code == 2, result.output
    assert f"{EXPORT}[1]: payload: field scores[0].value" in result.output
    assert "must be in [0, 1]" in result.output

    runs = {r.eval_context.item_id: r for r in TraceStore(current_home().store).runs("lf")}
    run = runs["refund-broken-mouse"]
    assert run.eval_context.run_index == 1
    assert run.complete, run.completeness_reasons
    assert [(c.name, c.arguments, c.result, c.error) for c in run.tool_calls] == [
        ("issue_refund", {"order_id": "#W1001"}, {"status": "refunded", "amount": 49.99}, None),
        ("send_email", {"template": "refund_issued"}, None, "mail server timeout"),
    ]
    assert [(m.model, m.input_tokens, m.output_tokens) for m in run.model_calls] == [
        ("gpt-4.1-mini", 120, 18),
        ("gpt-4.1-mini", 160, 14),
    ]
    assert run.final_answer == "I have issued a refund of 49.99 for order #W1001."
    assert runs["0a1b2c3d4e5f60718293a4b5c6d7e8f9"].trace_id == "0a1b2c3d4e5f60718293a4b5c6d7e8f9"

    scores = {s.metric_id: s for s in ScoreStore(current_home().store).read("lf")}
    assert set(scores) == {"helpfulness", "tone"}
    assert (scores["helpfulness"].status, scores["helpfulness"].value) == ("scored", 0.9)
    assert scores["helpfulness"].reason == "Resolved in one turn."
    assert (scores["tone"].status, scores["tone"].reason) == ("unscored", "label: polite")
    assert scores["tone"].span_ids != scores["helpfulness"].span_ids  # on the tool observation
    assert scores["helpfulness"].item_id == "refund-broken-mouse"


class _Langfuse(BaseHTTPRequestHandler):
    scores: list[dict[str, Any]]
    traces: list[bytes]
    auth: list[str]

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.auth.append(self.headers.get("Authorization", ""))
        if self.path == "/api/public/scores":
            self.scores.append(json.loads(body))
            payload = json.dumps({"id": self.scores[-1]["id"]}).encode()
        elif self.path == "/api/public/otel/v1/traces":
            self.traces.append(body)
            payload = b""
        else:
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        """``GET /api/public/traces/{id}``: 404 unless the trace was sent over OTLP."""
        trace = self.path.removeprefix("/api/public/traces/")
        held = {
            span.trace_id.hex()
            for body in self.traces
            for resource in ExportTraceServiceRequest.FromString(body).resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        }
        self.send_response(200 if trace in held else 404)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: Any) -> None:
        pass


@contextmanager
def _langfuse() -> Iterator[tuple[str, type[_Langfuse]]]:
    handler = type("Handler", (_Langfuse,), {"scores": [], "traces": [], "auth": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", handler
    finally:
        server.shutdown()
        server.server_close()


def _as_langfuse_returns(body: dict[str, Any]) -> dict[str, Any]:
    """A created score as the scores API returns it (score-v2.yml's read shape)."""
    out = {**body, "source": "API", "timestamp": "2026-12-01T00:00:00Z"}
    if body["dataType"] == "CATEGORICAL":
        out["stringValue"] = out.pop("value")
    return out


def test_scores_out_in_the_published_shape_and_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = scored_build(tmp_path, monkeypatch)
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-lf-test")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-lf-test")
    with _langfuse() as (url, seen):
        result = CliRunner().invoke(
            cli, ["export", "scores", "--build", build, "--langfuse", url, "--with-traces"]
        )
    assert result.exit_code == 0, result.output
    exported = ScoreStore(current_home().store).read(build)
    assert len(seen.scores) == len(exported)
    create = _validator("CreateScoreRequest")
    for body in seen.scores:
        create.validate(body)
    assert {a for a in seen.auth} == {
        "Basic " + base64.b64encode(b"pk-lf-test:sk-lf-test").decode()
    }
    sent_spans = {
        span.span_id.hex()
        for body in seen.traces
        for resource in ExportTraceServiceRequest.FromString(body).resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    }
    assert sent_spans == {s.span_id for s in TraceStore(current_home().store).read_spans(build)}

    read_back = _validator("Score")
    by_trace: dict[str, list[dict[str, Any]]] = {}
    for body in seen.scores:
        score = _as_langfuse_returns(body)
        read_back.validate(score)
        by_trace.setdefault(body["traceId"], []).append(score)
    traces = [
        {
            "id": trace,
            "timestamp": "2026-12-01T00:00:00Z",
            "htmlPath": "/",
            "totalCost": 0,
            "observations": [],
            "scores": scores,
        }
        for trace, scores in by_trace.items()
    ]
    export_file = tmp_path / "langfuse_export.json"
    export_file.write_text(json.dumps(traces))
    back = CliRunner().invoke(
        cli, ["import", "--from", "langfuse", str(export_file), "--build", "from-langfuse"]
    )
    assert back.exit_code == 0, back.output
    again = ScoreStore(current_home().store).read("from-langfuse")
    key = lambda s: (s.item_id, s.run_index, s.metric_id)  # noqa: E731
    assert sorted(again, key=key) == sorted(
        (replace(s, build="from-langfuse") for s in exported), key=key
    )


def test_gated_scores_carry_labels_and_the_release_verdict_and_need_their_traces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: labels, the release verdict, input/output, and a hint for missing traces.

    Label and floor per score, a release_gate score per trace, input/output on the spans,
    and exit 2 with the hint when Langfuse lacks the traces.
    """
    build = scored_build(tmp_path, monkeypatch)
    monkeypatch.setenv("LANGFUSE_PUBLIC_KEY", "pk-lf-test")
    monkeypatch.setenv("LANGFUSE_SECRET_KEY", "sk-lf-test")
    runner = CliRunner()
    gated = runner.invoke(
        cli, ["gate", "--suite", "backends", "--candidate", build, "--no-baseline"]
    )
    assert gated.exit_code in (0, 1), gated.output
    report = load_gate_report(current_home(), build)
    release = "no-go" if report["blocking"] else "go"
    floors = {m["metric_id"]: m["threshold"] for m in report["metrics"]}
    export = ["export", "scores", "--build", build]
    with _langfuse() as (url, seen):
        orphan = runner.invoke(cli, [*export, "--langfuse", url])
        assert orphan.exit_code == 2, orphan.output
        assert "Langfuse lacks the traces of build" in orphan.output
        assert "add --with-traces" in orphan.output
        assert not seen.scores  # nothing sent on traces Langfuse does not hold
        sent = runner.invoke(cli, [*export, "--langfuse", url, "--with-traces"])
    assert sent.exit_code == 0, sent.output

    create = _validator("CreateScoreRequest")
    for body in seen.scores:
        create.validate(body)
    gates = [b for b in seen.scores if b["name"] == "release_gate"]
    rows = [b for b in seen.scores if b["name"] != "release_gate"]
    runs = {r.trace_id: r for r in TraceStore(current_home().store).runs(build)}
    assert sorted(b["traceId"] for b in gates) == sorted(runs)
    assert {(b["value"], b["dataType"]) for b in gates} == {(release, "CATEGORICAL")}
    for body in rows:
        meta = body["metadata"]
        status = meta["eval_pipeline"]["status"]
        if status == "scored":
            passed = body["value"] >= floors[body["name"]]
            assert meta["label"] == ("pass" if passed else "fail")
            assert meta["gate_release"] == release and meta["floor"] == floors[body["name"]]
        else:
            assert meta["label"] == status
    shown = {
        span.span_id.hex(): {kv.key: kv.value.string_value for kv in span.attributes}
        for body in seen.traces
        for resource in ExportTraceServiceRequest.FromString(body).resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    }
    for run in runs.values():
        root = shown[str(run.root_span_id)]
        assert (root["input.value"], root["output.value"]) == (run.user_input, run.final_answer)

    # Read back from Langfuse's read shape, the release verdict is not a score row.
    traces = [
        {
            "id": trace,
            "timestamp": "2026-12-01T00:00:00Z",
            "htmlPath": "/",
            "totalCost": 0,
            "observations": [],
            "scores": [_as_langfuse_returns(b) for b in seen.scores if b["traceId"] == trace],
        }
        for trace in runs
    ]
    export_file = tmp_path / "langfuse_gated.json"
    export_file.write_text(json.dumps(traces))
    back = runner.invoke(
        cli, ["import", "--from", "langfuse", str(export_file), "--build", "lf-back"]
    )
    assert back.exit_code == 0, back.output
    assert len(ScoreStore(current_home().store).read("lf-back")) == len(rows)
