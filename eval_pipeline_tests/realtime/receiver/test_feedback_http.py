"""``POST /v1/feedback`` over a real socket: stored, pseudonymous, refused naming the field.

Contract: a rating of a trace is acknowledged (202) after it is stored in the state database;
a thumbs-down opens the trace's review item, which ``review list`` shows with whether the trace
is stored (feedback may come before its trace: accepted and kept). User and session ids are
stored as keyed tokens, never raw. Bad input is a 400 whose message names the field (unknown
rating, malformed trace id, a body that is not JSON); the receiver's bearer tokens apply as on
``/v1/traces`` (401 without one); a protobuf body is a 415. Through the real ``serve``
command, a thumbs-down on a live trace reaches the review queue, and a ``defect`` label turns it
into a regression case whose failing call must not recur.
"""

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from sqlalchemy import select

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.home import current_home
from eval_pipeline.realtime.feedback.store import FEEDBACK, FeedbackStore
from eval_pipeline.realtime.receiver.auth import Scope
from eval_pipeline_tests.realtime.receiver.receivers import running_receiver, traces_request, url
from eval_pipeline_tests.realtime.receiver.serve_process import start_serve

TOKEN = "prod-" + "f" * 20
STORED = f"{1:032x}"  # agent_trace(0)'s trace id
EARLY = "ab" * 16


def _post(
    receiver_url: str, body: object, token: str | None = TOKEN, **headers: str
) -> httpx.Response:
    sent = {"content-type": "application/json", **headers}
    if token is not None:
        sent["authorization"] = f"Bearer {token}"
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    return httpx.post(receiver_url, content=content, headers=sent, timeout=10)


def test_feedback_is_stored_with_pseudonymous_ids_and_routes_a_thumbs_down() -> None:
    with running_receiver(tokens={TOKEN: Scope.PRODUCTION}) as receiver:
        traces = httpx.post(
            url(receiver),
            content=traces_request(0, 1),
            headers={"content-type": "application/x-protobuf", "authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        assert traces.status_code == 200
        feedback = url(receiver, "/v1/feedback")
        down = _post(
            feedback,
            {
                "trace_id": STORED.upper(),
                "rating": "down",
                "note": "refunded the wrong order",
                "user_id": "ana.silva@example.com",
                "session_id": "sess-991",
            },
        )
        assert down.status_code == 202, down.text
        assert down.json() == {"trace_id": STORED, "rating": "down", "review_opened": True}
        assert _post(feedback, {"trace_id": STORED, "rating": 0.9}).json()["review_opened"] is False
        early = _post(feedback, {"trace_id": EARLY, "rating": 0})
        assert early.status_code == 202 and early.json()["review_opened"] is True
    store = FeedbackStore(current_home().state_url)
    assert store.thumbs_down_trace_ids() == {STORED, EARLY}
    with store.engine.connect() as connection:
        rows = [dict(r._mapping) for r in connection.execute(select(FEEDBACK))]
    stored_text = json.dumps(rows)
    assert "ana.silva" not in stored_text and "sess-991" not in stored_text
    assert rows[0]["user_token"].startswith("[USER:")
    assert rows[0]["session_token"].startswith("[SESSION:")
    listed = CliRunner().invoke(cli, ["review", "list", "--format", "json"])
    assert listed.exit_code == 0, listed.output
    by_trace = {r["trace_id"]: r for r in json.loads(listed.output)}
    assert by_trace[STORED]["trace_stored"] is True
    assert by_trace[STORED]["feedback_notes"] == ["refunded the wrong order"]
    assert by_trace[EARLY]["trace_stored"] is False


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"trace_id": STORED, "rating": "meh"}, "rating: 'meh'"),
        ({"trace_id": STORED, "rating": 2}, "rating: 2 is outside the scale"),
        ({"trace_id": "not-a-trace", "rating": "up"}, "trace_id: 'not-a-trace'"),
        ({"rating": "up"}, "trace_id: required"),
        ({"trace_id": STORED, "rating": "up", "stars": 5}, "stars: unknown field"),
        ({"trace_id": STORED, "rating": "up", "note": 7}, "note: expected a string"),
        (b"{not json", "body: not JSON"),
        (b"[1, 2]", "body: expected a JSON object"),
    ],
)
def test_bad_feedback_is_a_400_naming_the_field(body: object, field: str) -> None:
    with running_receiver() as receiver:
        refused = _post(url(receiver, "/v1/feedback"), body, token=None)
    assert refused.status_code == 400
    assert field in refused.json()["message"]
    assert FeedbackStore(current_home().state_url).thumbs_down_trace_ids() == set()


def test_the_receiver_tokens_apply_and_feedback_is_json() -> None:
    rating = {"trace_id": STORED, "rating": "down"}
    with running_receiver(tokens={TOKEN: Scope.PRODUCTION}) as receiver:
        feedback = url(receiver, "/v1/feedback")
        assert _post(feedback, rating, token=None).status_code == 401
        assert _post(feedback, rating, token="prod-" + "x" * 20).status_code == 401
        protobuf = _post(feedback, rating, **{"content-type": "application/x-protobuf"})
        assert protobuf.status_code == 415 and "application/json" in protobuf.json()["message"]
    assert FeedbackStore(current_home().state_url).thumbs_down_trace_ids() == set()


def test_the_serve_command_takes_feedback_that_review_and_triage_turn_into_a_case(
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{TOKEN} production\n")
    server, port = start_serve(["--no-grpc", "--token-file", str(tokens)], tmp_path / "serve.log")
    auth = {"authorization": f"Bearer {TOKEN}"}
    try:
        stored = httpx.post(
            f"http://127.0.0.1:{port}/v1/traces",
            content=traces_request(0, 1, tool_error=True),
            headers={"content-type": "application/x-protobuf", **auth},
            timeout=30,
        )
        assert stored.status_code == 200, (tmp_path / "serve.log").read_text()
        rated = _post(
            f"http://127.0.0.1:{port}/v1/feedback", {"trace_id": STORED, "rating": "down"}
        )
        assert rated.status_code == 202, (tmp_path / "serve.log").read_text()
    finally:
        server.terminate()
        server.wait(timeout=30)
    runner = CliRunner()
    (item,) = json.loads(runner.invoke(cli, ["review", "list", "--format", "json"]).output)
    assert item["trace_id"] == STORED and item["trace_stored"] is True
    labelled = runner.invoke(
        cli,
        [
            "review",
            "label",
            STORED,
            "--verdict",
            "defect",
            "--reviewer",
            "ana",
            "--note",
            "lookup timed out and the agent gave up",
            "--dataset",
            "regression/live",
            "--input",  # the trace was recorded without message content
            "Where is my order?",
        ],
    )
    assert labelled.exit_code == 0, labelled.output
    case = default_dataset_store().item("regression/live", "v1", f"trace-{STORED}")
    # The default policy stores no tool arguments: the failing call cannot be narrowed to them,
    # and forbidding ``lookup`` outright would forbid every later lookup, so it is skipped.
    assert case.forbidden_calls == ()
    assert [c["tool"] for c in case.provenance["must_not_recur_skipped"]] == ["lookup"]
    assert case.slices["tool"] == "lookup" and case.provenance["build"] == "production"


def test_a_note_is_stored_redacted_by_the_receivers_policy() -> None:
    note = "charged twice, card 4111 1111 1111 1111, write to ana.silva@example.com"
    with running_receiver() as receiver:
        sent = _post(
            url(receiver, "/v1/feedback"), {"trace_id": STORED, "rating": "down", "note": note}
        )
        assert sent.status_code == 202, sent.text
    store = FeedbackStore(current_home().state_url)
    with store.engine.connect() as connection:
        (stored,) = [row.note for row in connection.execute(select(FEEDBACK))]
    assert "4111" not in stored and "ana.silva" not in stored
    assert stored.startswith("charged twice, card [")  # the rest of the text is kept


@pytest.mark.parametrize("field", ["note", "user_id", "session_id"])
def test_a_lone_surrogate_is_a_400_naming_the_field(field: str) -> None:
    body = b'{"trace_id": "%s", "rating": "down", "%s": "a\\ud800b"}' % (
        STORED.encode(),
        field.encode(),
    )
    with running_receiver() as receiver:
        refused = _post(url(receiver, "/v1/feedback"), body, token=None)
    assert refused.status_code == 400, refused.text
    assert f"{field}: " in refused.json()["message"]
    assert FeedbackStore(current_home().state_url).thumbs_down_trace_ids() == set()
