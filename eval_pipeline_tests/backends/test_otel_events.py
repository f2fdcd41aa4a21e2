"""Scores out as ``gen_ai.evaluation.result`` log events over OTLP, and back in as scores.

Contract: ``export scores --otlp-endpoint`` sends one event per score row, over HTTP and over
gRPC, to the product's own receiver (its logs endpoint, ``EvaluationEventHandler`` as its
``on_logs``), each carrying the GenAI evaluation attributes (name, score value only for scored rows,
label, explanation) tied to the scored trace and span, with the evaluator's id and version; what
arrives, decoded with the OTLP protobuf classes, is that; the logs handler (``on_logs``) stores
the events as score rows equal to the exported ones (the round trip). A build with no scores and
a malformed endpoint are bad input (exit 2); an endpoint that is down is exit 3; an event the
handler cannot read is rejected by name (the receiver's 400) and the others are stored.
"""

from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from eval_pipeline.backends.evaluation_event import (
    EVALUATION_NAME,
    EVENT_NAME,
    EXPLANATION,
    SCORE_LABEL,
    SCORE_VALUE,
    SCORER_ID,
    SCORER_VERSION,
)
from eval_pipeline.backends.otel_events_out import requests_for
from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.importers.backends.otel_events import EvaluationEventHandler, EventsRejected
from eval_pipeline.realtime.receiver.auth import Grant
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.backends.scored_build import scored_build
from eval_pipeline_tests.realtime.receiver.receivers import running_receiver, url


def _attributes(record: object) -> dict[str, object]:
    out = {}
    for kv in record.attributes:  # type: ignore[attr-defined]
        kind = kv.value.WhichOneof("value")
        out[kv.key] = getattr(kv.value, kind)
    return out


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_scores_go_out_as_evaluation_events_and_come_back_the_same(
    protocol: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = scored_build(tmp_path, monkeypatch)
    exported = ScoreStore(current_home().store).read(build)
    roots = {
        s.trace_id: s.span_id
        for s in TraceStore(current_home().store).read_spans(build)
        if s.parent_span_id is None
    }
    receiver_store = tmp_path / "receiver_store"
    handler = EvaluationEventHandler(receiver_store)
    arrived: list[bytes] = []

    def on_logs(request: ExportLogsServiceRequest, grant: Grant) -> None:
        arrived.append(request.SerializeToString())  # what the receiver decoded, as it came
        handler(request, grant)

    with running_receiver(grpc=True, on_logs=on_logs) as receiver:
        target = url(receiver, "") if protocol == "http" else f"127.0.0.1:{receiver.grpc_port}"
        result = CliRunner().invoke(
            cli,
            [
                "export",
                "scores",
                "--build",
                build,
                "--otlp-endpoint",
                target,
                "--protocol",
                protocol,
                "--format",
                "json",
            ],
        )
        assert result.exit_code == 0, result.output
    records = [
        record
        for body in arrived
        for resource in ExportLogsServiceRequest.FromString(body).resource_logs
        for scope in resource.scope_logs
        for record in scope.log_records
    ]
    assert len(records) == len(exported)
    by_key = {(s.trace_id, s.metric_id): s for s in exported}
    for record in records:
        attributes = _attributes(record)
        assert record.event_name == EVENT_NAME
        score = by_key[(record.trace_id.hex(), attributes[EVALUATION_NAME])]
        parent = score.span_ids[0] if score.span_ids else roots[score.trace_id]
        assert record.span_id.hex() == parent
        assert attributes[SCORE_LABEL] == score.status
        assert attributes.get(SCORE_VALUE) == score.value
        assert attributes.get(EXPLANATION, "") == score.reason
        assert (attributes[SCORER_ID], attributes[SCORER_VERSION]) == (
            score.scorer_id,
            score.scorer_version,
        )
    assert sorted(ScoreStore(receiver_store).read(build), key=repr) == sorted(exported, key=repr)


def test_missing_values_stay_missing_and_a_bad_event_is_rejected_alone(tmp_path: Path) -> None:
    rows = [
        Score(
            "faithfulness",
            None,
            "unscored",
            "faithfulness",
            2,
            reason="no context",
            trace_id="ab" * 16,
            span_ids=("cd" * 8,),
            build="b",
            item_id="i1",
            run_index=0,
        ),
        Score(
            "task_success",
            None,
            "error",
            "imported:tau2",
            1,
            reason="judge timed out",
            trace_id="ab" * 16,
            span_ids=("cd" * 8,),
            build="b",
            item_id="i1",
            run_index=0,
        ),
        Score(
            "handoff_quality",
            None,
            "not_applicable",
            "handoff_quality",
            1,
            reason="no hand-off expected",
            build="b",
            item_id="i1",
            run_index=0,
        ),
    ]
    request = next(iter(requests_for(rows)))
    sent = request.resource_logs[0].scope_logs[0].log_records
    assert all(SCORE_VALUE not in _attributes(r) for r in sent)
    bad = sent.add()
    bad.CopyFrom(sent[0])
    for kv in bad.attributes:
        if kv.key == EVALUATION_NAME:
            kv.value.string_value = ""
    with pytest.raises(EventsRejected) as rejected:
        EvaluationEventHandler(tmp_path)(request)
    assert "1 log record(s) rejected, 3 evaluation event(s) stored" in str(rejected.value)
    assert f"log_records[3]: {EVALUATION_NAME}: is required" in str(rejected.value)
    assert sorted(ScoreStore(tmp_path).read("b"), key=repr) == sorted(rows, key=repr)


def test_bad_input_and_a_down_endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    none = runner.invoke(
        cli, ["export", "scores", "--build", "nope", "--otlp-endpoint", "http://127.0.0.1:9"]
    )
    assert none.exit_code == 2
    assert "--build: no scores stored for build 'nope'" in none.output
    build = scored_build(tmp_path, monkeypatch)
    bad_url = runner.invoke(
        cli, ["export", "scores", "--build", build, "--otlp-endpoint", "ftp://x"]
    )
    assert bad_url.exit_code == 2
    assert "--otlp-endpoint" in bad_url.output
    down = runner.invoke(
        cli, ["export", "scores", "--build", build, "--otlp-endpoint", "http://127.0.0.1:9"]
    )
    assert down.exit_code == 3
    assert "127.0.0.1:9" in down.output
    assert ScoreStore(current_home().store).read(build)


def test_another_tools_events_keep_the_standard_fields_only(tmp_path: Path) -> None:
    request = ExportLogsServiceRequest()
    records = request.resource_logs.add().scope_logs.add().log_records
    for name, value, label in (("relevance", 0.75, "relevant"), ("tone", None, "polite")):
        record = records.add(event_name=EVENT_NAME, trace_id=b"\x01" * 16, span_id=b"\x02" * 8)
        record.attributes.add(key=EVALUATION_NAME).value.string_value = name
        record.attributes.add(key=SCORE_LABEL).value.string_value = label
        if value is not None:
            record.attributes.add(key=SCORE_VALUE).value.double_value = value
    EvaluationEventHandler(tmp_path)(request)
    rows = {s.metric_id: s for s in ScoreStore(tmp_path).read("production")}
    assert (rows["relevance"].status, rows["relevance"].value) == ("scored", 0.75)
    assert rows["relevance"].scorer_id == "imported:otel"
    assert rows["relevance"].evidence == {"label": "relevant"}
    assert rows["relevance"].span_ids == ("02" * 8,)
    assert (rows["tone"].status, rows["tone"].reason) == ("unscored", "label: polite")


def test_the_receiver_refuses_a_bad_event_by_name_and_keeps_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    build = scored_build(tmp_path, monkeypatch)
    exported = ScoreStore(current_home().store).read(build)
    request = next(iter(requests_for(exported)))
    records = request.resource_logs[0].scope_logs[0].log_records
    bad = records.add()
    bad.CopyFrom(records[0])
    for kv in bad.attributes:
        if kv.key == EVALUATION_NAME:
            kv.value.string_value = ""
    received = tmp_path / "receiver_scores"
    with running_receiver(on_logs=EvaluationEventHandler(received)) as receiver:
        reply = httpx.post(
            url(receiver, "/v1/logs"),
            content=request.SerializeToString(),
            headers={"Content-Type": "application/x-protobuf"},
        )
    assert reply.status_code == 400
    assert f"log_records[{len(exported)}]: {EVALUATION_NAME}: is required" in reply.text
    assert len(ScoreStore(received).read(build)) == len(exported)
