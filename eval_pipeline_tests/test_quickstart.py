"""The README's quickstart works as written, command by command, on a fresh home.

The test reads the fenced ``bash`` block under the README's "Quickstart" heading, so the
documentation and the test cannot drift: each line is one command, run in order by the
installed ``eval-pipeline`` (a console script on PATH) with ``EVAL_PIPELINE_HOME`` in a fresh
temporary folder; ``cd DIR`` changes the folder the next commands run in. Every command must
exit 0; the gate's first line names the candidate and the baseline, and the report is written.
Each command's wall time is printed (``pytest -s``). About a dozen CLI processes: marked slow.
"""

import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"


def quickstart_commands(readme: str) -> list[str]:
    """The lines of the first ``bash`` block under the ``## Quickstart`` heading."""
    section = re.search(r"^## Quickstart\b(.*?)(?=^## )", readme, re.S | re.M)
    assert section is not None, "README has no '## Quickstart' section"
    block = re.search(r"^```bash\n(.*?)^```", section.group(1), re.S | re.M)
    assert block is not None, "the Quickstart section has no ```bash block"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_quickstart_block_is_commands_only() -> None:
    commands = quickstart_commands(README.read_text(encoding="utf-8"))
    assert commands[0].startswith("eval-pipeline init ")
    for command in commands:
        assert command.startswith(("eval-pipeline ", "cd ")), command
        assert not any(c in command for c in ("&&", "|", ";", ">", "#")), command


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_the_readme_quickstart_runs_command_by_command(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "eval-pipeline"
    command.write_text(
        f"#!/bin/sh\nexec {sys.executable} -c 'from eval_pipeline.cli import main; main()' \"$@\"\n"
    )
    command.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
        "EVAL_PIPELINE_HOME": str(tmp_path / "home"),
        "DAGSTER_HOME": str(tmp_path / "home" / "dagster"),
    }
    workdir = tmp_path / "work"
    workdir.mkdir()
    outputs: dict[str, str] = {}
    timings = []
    for line in quickstart_commands(README.read_text(encoding="utf-8")):
        argv = shlex.split(line)
        if argv[0] == "cd":
            workdir = (workdir / argv[1]).resolve()
            continue
        started = time.perf_counter()
        done = subprocess.run(
            argv, cwd=workdir, env=env, capture_output=True, text=True, timeout=600, check=False
        )
        timings.append((line, time.perf_counter() - started))
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        outputs[" ".join(argv[1:3])] = done.stdout
    for line, seconds in timings:
        print(f"{seconds:6.1f} s  {line}")
    gated = outputs["gate --suite"].splitlines()[0]
    assert "candidate v2 vs baseline v1" in gated, gated
    assert (tmp_path / "home" / "reports" / "v2.html").read_text().startswith("<!DOCTYPE html>")
