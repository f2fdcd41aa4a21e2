"""`eval-pipeline serve` checks its settings before it binds a port.

Contract: a policy file that cannot be read, an address off loopback without a token (or with
a one-character one), a bad token file, a stream URL that is not ``nats://`` and a webhook with
the detectors off are input errors naming the option and the file (exit 2), not a traceback;
nothing is served. Served, its first line says what the redaction policy drops and how to keep
tool payloads, and the detectors run unless ``--no-detect``.
"""

import time
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline_tests.realtime.receiver.serve_process import start_serve


def test_an_unreadable_policy_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-policy.yaml"
    result = CliRunner().invoke(cli, ["serve", "--redaction-policy", str(missing)])
    assert result.exit_code == 2
    assert f"--redaction-policy: {missing}: cannot read the policy" in result.output


def test_off_loopback_without_a_token_and_bad_settings_are_input_errors(tmp_path: Path) -> None:
    open_off_loopback = CliRunner().invoke(cli, ["serve", "--host", "0.0.0.0"])
    assert open_off_loopback.exit_code == 2
    assert "needs a token" in open_off_loopback.output
    tokens = tmp_path / "tokens"
    tokens.write_text("too-short\n")
    bad_tokens = CliRunner().invoke(cli, ["serve", "--token-file", str(tokens)])
    assert bad_tokens.exit_code == 2 and f"{tokens}:1" in bad_tokens.output
    bad_stream = CliRunner().invoke(cli, ["serve", "--stream", "kafka://x"])
    assert bad_stream.exit_code == 2 and "--stream" in bad_stream.output


def test_a_one_character_token_off_loopback_is_an_input_error() -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--host", "0.0.0.0"], env={"EVAL_PIPELINE_RECEIVER_TOKEN": "x"}
    )
    assert result.exit_code == 2, result.output
    assert "$EVAL_PIPELINE_RECEIVER_TOKEN: a token needs at least 16 characters" in result.output


def test_serve_says_first_what_redaction_drops_and_runs_the_detectors(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    server, _ = start_serve(["--no-grpc"], log)
    try:
        deadline = time.monotonic() + 60
        while "detectors running" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)  # the detectors' process says so once it consumes the stream
    finally:
        server.terminate()
        server.wait(timeout=60)
    lines = log.read_text().splitlines()
    assert lines[0].startswith("redaction policy 'default': drops every tool's arguments"), lines
    assert "--redaction-policy keep-tools" in lines[0]
    assert any("detectors running" in line for line in lines), lines
    kept = CliRunner().invoke(cli, ["serve", "--help"]).output
    assert "keep-tools (keeps tool payloads" in kept and "--no-detect" in kept


def test_a_webhook_without_the_detectors_is_an_input_error() -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--no-detect", "--alert-webhook", "http://127.0.0.1:9/x"]
    )
    assert result.exit_code == 2 and "drop --no-detect" in result.output
