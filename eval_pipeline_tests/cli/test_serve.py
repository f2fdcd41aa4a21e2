"""`eval-pipeline serve` checks its redaction policy before it binds a port.

Contract: a policy file that cannot be read is an input error naming the option and the file
(exit 2), not a traceback; nothing is served.
"""

from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli


def test_an_unreadable_policy_is_an_input_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-policy.yaml"
    result = CliRunner().invoke(cli, ["serve", "--redaction-policy", str(missing)])
    assert result.exit_code == 2
    assert f"--redaction-policy: {missing}: cannot read the policy" in result.output
