"""The plane's alerts on fixed traces are what they were before its speed work, field for field.

Contract: a fixed set of traces (the ``bench serve`` load with failed tool calls and
incomplete runs, plus runs that trip every configured detector: a guardrail, a forbidden tool,
a policy pattern, a canary, a forbidden call, a slow step, a failed run, a loop, a long run,
an unsupported claim), published to the embedded stream and drained by one detector worker,
gives exactly the alerts the code before the speed work gave: their digest was recorded with
that code (id, detector, severity, trace, spans, reason, evidence, build; the detection time
left out), so the same detectors fire on the same spans with the same words.
"""

import hashlib
import json
from pathlib import Path

from benchmarks.serve import FAILED_TOOL_SHARE, payloads
from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.alerts.trace_buffer import TraceBuffer
from eval_pipeline.realtime.alerts.worker import DetectorWorker
from eval_pipeline.realtime.detectors.config import DetectorConfig
from eval_pipeline.realtime.detectors.registry import default_detectors
from eval_pipeline.realtime.receiver.auth import Grant, Scope
from eval_pipeline.realtime.receiver.writer import WriterSpec
from eval_pipeline.realtime.stream import open_stream
from eval_pipeline.traces.ingest.ingest import OtlpRequest
from eval_pipeline.traces.model import Message, Operation, StatusCode
from eval_pipeline.traces.store.span_table import span_row
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows
from eval_pipeline_tests.traces.builders import make_span

RECORDED = "fe17c666ec47d7cd6093e958d6a3d094c949aba1e4d354841d5d8c8a55c2faef"
SECOND = 1_000_000_000
T0 = 1_790_000_000_000_000_000
CONFIG = DetectorConfig.model_validate(
    {
        "policy": {"patterns": ["pass(word)?\\s*[:=]"], "forbidden_tools": ["delete_*", "wire"]},
        "injection": {
            "canaries": ["CANARY-7f3"],
            "forbidden_calls": [{"name": "send_email", "arguments": {"to": "evil@x.io"}}],
        },
        "trajectory": {"max_tool_calls": 5, "max_repeats": 2},
        "budgets": {"max_span_s": 30.0, "max_run_s": 100.0},
        "quiet_period_s": 0.0,
    }
)


def _tripping_rows() -> list:
    """Runs that trip each configured detector once or more."""
    rows = []
    spans = []
    for number, (name, fields) in enumerate(
        [
            ("input_guardrail", {"attributes": {"guardrail.triggered": True}}),
            ("execute_tool delete_user", {"tool_name": "delete_user"}),
            ("execute_tool wire", {"tool_name": "Wire", "tool_arguments": {"x": "CANARY-7f3"}}),
            (
                "execute_tool send_email",
                {"tool_name": "send_email", "tool_arguments": {"to": "evil@x.io"}},
            ),
            (
                "execute_tool lookup",
                {"tool_name": "lookup", "tool_arguments": {"q": 1}, "end": T0 + 40 * SECOND},
            ),
            ("execute_tool lookup", {"tool_name": "lookup", "tool_arguments": {"q": 1}}),
            (
                "execute_tool lookup",
                {
                    "tool_name": "lookup",
                    "tool_arguments": {"q": 1},
                    "status_code": StatusCode.ERROR,
                    "status_message": "boom",
                },
            ),
        ],
        start=2,
    ):
        operation = Operation.EXECUTE_TOOL if name.startswith("execute_tool") else Operation.CHAT
        spans.append(
            make_span(
                f"{number:x}",
                "1",
                trace_id="d1" * 16,
                operation=operation,
                name=name,
                start=T0 + number,
                **fields,
            )
        )
    spans.append(
        make_span(
            "f0",
            "1",
            trace_id="d1" * 16,
            operation=Operation.CHAT,
            name="chat m",
            model="gpt-4o-mini",
            input_tokens=10,
            output_tokens=5,
            start=T0 + 50,
            output_messages=(
                Message(
                    "assistant",
                    ({"type": "text", "content": "I have refunded your order. password: hunter2"},),
                ),
            ),
        )
    )
    spans.insert(
        0,
        make_span(
            "1",
            trace_id="d1" * 16,
            operation=Operation.INVOKE_AGENT,
            name="invoke_agent support",
            agent_name="support",
            start=T0,
            end=T0 + 200 * SECOND,
            status_code=StatusCode.ERROR,
            status_message="gave up",
        ),
    )
    rows += [span_row(span) for span in spans]
    rows += agent_trace_rows("e2" * 16, tool_error=True, tools=("a", "b", "c"))
    rows += agent_trace_rows("e3" * 16, answer="I have cancelled the order.", tools=("lookup",))
    return rows


def alert_fields(home: Path) -> list[list]:
    """The alerts one worker raises on the fixed traces in ``home``, sorted."""
    state = Home(home).ensure()
    writer = WriterSpec(state.root, None).open()
    for body in payloads(60, 3, FAILED_TOOL_SHARE * 10):
        writer.write(OtlpRequest(body, "application/x-protobuf", "t"), Grant(Scope.PRODUCTION))
    stream = open_stream(state, None)
    rows = _tripping_rows()
    stream.publish_rows(rows, builds=["prod"] * len(rows), day="2026-12-01")
    store = AlertStore(state.state_url)
    worker = DetectorWorker(
        stream,
        store,
        TraceBuffer(state.state_url, "realtime-detectors"),
        default_detectors(CONFIG),
        quiet_period_s=0.0,
        judge_lag_s=0.0,
    )
    idle = 0
    while idle < 3:
        idle = idle + 1 if worker.step(0.05) == 0 else 0
    worker.stop()
    alerts = [
        [
            a.alert_id,
            a.detector,
            a.severity,
            a.trace_id,
            list(a.span_ids),
            a.reason,
            a.evidence,
            a.build,
        ]
        for a in store.list_alerts()
    ]
    return sorted(alerts, key=lambda fields: json.dumps(fields, sort_keys=True, default=str))


def digest(alerts: list[list]) -> str:
    return hashlib.sha256(json.dumps(alerts, sort_keys=True, default=str).encode()).hexdigest()


def test_the_fixed_traces_raise_the_recorded_alerts(isolated_home: Path) -> None:
    alerts = alert_fields(isolated_home)
    detectors = {fields[1] for fields in alerts}

    assert len(detectors) == 10, detectors  # the fixed traces trip every detector configured
    assert digest(alerts) == RECORDED, json.dumps(alerts, indent=1, default=str)[:3000]
