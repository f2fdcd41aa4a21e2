"""Long commands show progress on a terminal's stderr, and nothing anywhere else.

Contract (``cli/output.py``): ``ingest`` of many files and ``run`` draw a rich progress bar on
stderr when it is a terminal (a real pseudo-terminal here, or ``EVAL_PIPELINE_FORCE_TERMINAL=1``)
counting files or runs to the total; when stderr is a pipe nothing is written to it, and
``--quiet`` silences the bar on a terminal too. stdout holds only the command's output, so
``--format json`` still parses while the bar is drawn.
"""

import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.cli.output import FORCE_TERMINAL_ENV
from eval_pipeline.defects.story import runner_spec, sample_agent_builds
from eval_pipeline_tests.cli.small_suite import small_suite
from eval_pipeline_tests.traces.builders import OTEL

REPO = Path(__file__).resolve().parents[2]
COMMAND = (sys.executable, "-c", "from eval_pipeline.cli import main; main()")


def _trace_files(folder: Path) -> Path:
    """Three OTLP files (a batch worth a bar)."""
    folder.mkdir()
    for source in sorted((OTEL / "synthetic").glob("*.otlp.json"))[:3]:
        shutil.copy(source, folder / source.name)
    return folder


def _on_pty(*args: str) -> tuple[int, str, str]:
    """Run the command with stderr on a pseudo-terminal: (exit code, stdout, what the tty got)."""
    controller, terminal = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "100"}
    env.pop(FORCE_TERMINAL_ENV, None)
    with subprocess.Popen(
        [*COMMAND, *args], stdout=subprocess.PIPE, stderr=terminal, env=env
    ) as process:
        os.close(terminal)
        drawn = b""
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            drawn += chunk
        out = process.stdout.read() if process.stdout else b""
        code = process.wait(timeout=120)
    os.close(controller)
    return code, out.decode(), drawn.decode(errors="replace")


def test_ingest_draws_a_bar_over_the_files_on_a_pseudo_terminal(tmp_path: Path) -> None:
    files = _trace_files(tmp_path / "traces")
    code, out, drawn = _on_pty("ingest", str(files), "--output-format", "json")
    assert code == 0, drawn
    assert "ingest" in drawn and "3/3" in drawn and "\x1b[" in drawn  # drawn, with escapes
    assert json.loads(out)["batches"] == 3  # stdout clean beside the bar

    again = tmp_path / "quiet"
    code, out, drawn = _on_pty("ingest", str(_trace_files(again)), "--quiet")
    assert code == 0 and drawn == "", drawn
    assert "ingested 3 file(s)" in out


def test_nothing_on_stderr_when_it_is_not_a_terminal(tmp_path: Path) -> None:
    files = _trace_files(tmp_path / "traces")
    result = subprocess.run(
        [*COMMAND, "ingest", str(files), "--output-format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert json.loads(result.stdout)["spans_rejected"] == 0


def test_run_counts_its_runs_on_a_forced_terminal(tmp_path: Path, monkeypatch) -> None:
    suite = small_suite(tmp_path, "progress", items=2)
    baseline = sample_agent_builds()[0]
    args = ["run", "--suite", str(suite), "--build", baseline.build]
    args += ["--runner", runner_spec(baseline), "--format", "json"]
    monkeypatch.setenv(FORCE_TERMINAL_ENV, "1")
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert f"run {baseline.build}" in result.stderr and "4/4" in result.stderr
    assert json.loads(result.stdout)["executed_now"] == 4

    resumed = CliRunner().invoke(cli, [*args, "--quiet"])
    assert resumed.exit_code == 0 and resumed.stderr == ""
    assert json.loads(resumed.stdout)["already_stored"] == 4
