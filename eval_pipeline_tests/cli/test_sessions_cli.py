"""``sessions list`` / ``sessions show`` on conversations ingested through the real ``ingest``.

The data is OTLP/JSON written by the OpenTelemetry SDK (``data/conversations``): one trace per
turn, the turns of a conversation sharing ``gen_ai.conversation.id``; one conversation ends by
its end marker, the other by the idle timeout.
"""

import json

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.package_data import package_path
from eval_pipeline_tests.conftest import DATA_DIR

CONVERSATIONS = DATA_DIR / "conversations" / "support_conversations.otlp.json"
SHIPPED = package_path("eval_pipeline.suites", "shipped", "support-agent.yaml")
OPENINFERENCE = DATA_DIR / "otel" / "synthetic" / "openinference_support_session.otlp.json"


def _invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _ingest(path=CONVERSATIONS, build="support"):
    result = _invoke("ingest", path, "--build", build, "--redaction-policy", "keep-tools")
    assert result.exit_code == 0, result.output


def _list(*args):
    result = _invoke("sessions", "list", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_list_shows_each_conversation_with_turns_tokens_and_end():
    _ingest()
    rows = _list()
    assert [r["session_id"] for r in rows] == ["conv-return-7", "conv-cancel-9"]
    done, cancel = rows
    assert (done["build"], done["turns"], done["tool_calls"], done["errors"]) == (
        "support",
        3,
        2,
        0,
    )
    assert (done["input_tokens"], done["output_tokens"]) == (680, 102)
    assert (done["ended"], done["end_reason"], done["end_detail"]) == (True, "marker", "resolved")
    assert done["start_time"] == "2026-12-01T10:00:00.000Z"
    assert done["duration_s"] == 42.5
    assert (cancel["turns"], cancel["tool_calls"], cancel["errors"]) == (4, 1, 1)
    assert (cancel["input_tokens"], cancel["output_tokens"]) == (640, 96)
    assert (cancel["ended"], cancel["end_reason"]) == (True, "idle")
    assert cancel["ended_at"] == "2026-12-01T11:31:02.500Z"  # last activity + 30 min
    still_open = _list("--idle-timeout-s", 10**10)
    assert [(r["ended"], r["end_reason"]) for r in still_open] == [
        (True, "marker"),
        (False, None),
    ]
    later = _list("--since", "2026-12-01T10:30:00Z")
    assert [r["session_id"] for r in later] == ["conv-cancel-9"]
    assert _list("--build", "support") == rows
    text = _invoke("sessions", "list")
    assert text.exit_code == 0
    assert "conv-return-7" in text.output and "marker" in text.output
    assert "2 session(s)" in text.output


def test_show_prints_turns_answers_tool_calls_and_errors():
    _ingest()
    result = _invoke("sessions", "show", "conv-cancel-9", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    turns = document["turn_list"]
    assert [t["turn"] for t in turns] == [1, 2, 3, 4]
    assert turns[0]["user_input"] == "Can you cancel order #W5918442?"
    assert turns[0]["answer"] == "Sorry, something went wrong. Could you give me your order number?"
    (call,) = turns[0]["tool_calls"]
    assert (call["name"], call["arguments"], call["error"]) == (
        "get_order_details",
        {"order_id": "#W5918442"},
        "order not found",
    )
    assert turns[0]["errors"] == ["execute_tool get_order_details: order not found"]
    assert turns[3]["answer"] == "Let me transfer you to a human agent."
    assert document["stored_under"] == ["support"]
    text = _invoke("sessions", "show", "conv-return-7")
    assert text.exit_code == 0
    lines = text.output.splitlines()
    assert lines[0].startswith("session conv-return-7  build=support")
    assert "ended: marker (resolved)" in lines[0]
    assert "  tool return_delivered_order_items args: " in text.output
    assert "  agent: You're welcome, goodbye!" in text.output
    first_user = next(line for line in lines if line.startswith("  user: "))
    assert "[EMAIL:" in first_user and "jane.doe@example.com" not in text.output  # redacted


def test_unknown_session_or_build_exits_2_naming_it():
    _ingest()
    missing = _invoke("sessions", "show", "conv-nope")
    assert missing.exit_code == 2
    assert "error: session conv-nope: not in the trace store" in missing.output
    wrong_build = _invoke("sessions", "show", "conv-return-7", "--build", "other")
    assert wrong_build.exit_code == 2 and "--build other" in wrong_build.output
    assert _invoke("sessions", "list", "--build", "other").exit_code == 2
    assert _invoke("sessions", "list", "--since", "yesterday").exit_code == 2


def test_openinference_session_id_makes_a_session():
    _ingest(OPENINFERENCE, "oi")
    (row,) = _list("--build", "oi")
    assert (row["session_id"], row["turns"]) == ("sess-42", 2)


def test_the_suite_sets_the_idle_timeout_unless_the_option_does(tmp_path):
    _ingest()
    suite = tmp_path / "suite.yaml"
    suite.write_text(SHIPPED.read_text() + "sessions: {idle_timeout_s: 10000000000}\n")
    rows = _list("--suite", suite)
    assert [r["end_reason"] for r in rows] == ["marker", None]
    assert [r["end_reason"] for r in _list("--suite", suite, "--idle-timeout-s", 60)] == [
        "marker",
        "idle",
    ]
    shown = _invoke("sessions", "show", "conv-cancel-9", "--suite", suite, "--format", "json")
    assert json.loads(shown.output)["ended"] is False
    missing = _invoke("sessions", "list", "--suite", tmp_path / "nope.yaml")
    assert missing.exit_code == 2 and "nope.yaml" in missing.output


def test_a_session_in_two_builds_is_shown_once_naming_both():
    _ingest(build="a")
    _ingest(build="b")
    document = json.loads(_invoke("sessions", "show", "conv-return-7", "--format", "json").output)
    assert (document["build"], document["stored_under"]) == ("a", ["a", "b"])
    text = _invoke("sessions", "show", "conv-return-7")
    assert "stored under 2 builds: a, b; --build B shows one" in text.output
    only_b = json.loads(
        _invoke("sessions", "show", "conv-return-7", "--build", "b", "--format", "json").output
    )
    assert only_b["build"] == "b" and only_b["stored_under"] == ["b"]
    assert len(_list()) == 4
