"""`eval-pipeline serve` checks its settings before it binds a port.

Contract: a policy file that cannot be read, an address off loopback without a token, a bad
token file and a stream URL that is not ``nats://`` are input errors naming the option and the
file (exit 2), not a traceback; nothing is served.
"""

from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli


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
