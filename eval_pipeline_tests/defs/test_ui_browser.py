"""The Dagster UI in a real browser: the asset graph, a gate check, a no-go build, screenshotted.

Contract (issue 6): after builds are evaluated on a persistent SQLite instance, the Dagster
webserver started on loopback serves the evaluation asset graph and the suite's
``gate_decision/mini`` asset's checks, which headless Chromium (Debian's package, driven over
the DevTools protocol) renders; screenshots are written (to ``docs/screenshots/`` when
``EVAL_PIPELINE_SAVE_SCREENSHOTS=1``).
Issue 32: a no-go build reads as blocked, not as crashed: the Runs list shows each run's
``verdict`` tag (``go``, ``no-go``, ``error``), and the blocking check's Partitions tab shows
the selected build's own result (the no-go build Failed with its reason and
``blocks_release true``, the pinned baseline Passed, the crashed build Execution failed).
"""

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from eval_pipeline.defs.launch import evaluate_build, local_instance
from eval_pipeline.home import current_home
from eval_pipeline_tests.conftest import REPO_ROOT
from eval_pipeline_tests.defs.agents import CRASHING
from eval_pipeline_tests.defs.chromium import CHROMIUM, Chromium
from eval_pipeline_tests.defs.graph_env import make_graph_env

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (make test installs it)"
    ),
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(url: str, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer in {timeout_s} s")


def test_asset_graph_and_gate_check_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(tmp_path / "suites"))
    env = make_graph_env(tmp_path, n_items=6)
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    env.register("liar", "defect-claims-unissued-refunds")
    env.register("crashed", "baseline", runner=f"{CRASHING}&fail_item={env.items[0]}")
    home = current_home()
    defs = env.definitions()
    with local_instance(home) as instance:
        evaluate_build(defs, instance, "crashed")  # first: the checks' latest run is liar's
        evaluate_build(defs, instance, "base")
        evaluate_build(defs, instance, "liar")
    port = free_port()
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "dagster-webserver"),
            "-h",
            "127.0.0.1",
            "-p",
            str(port),
            "-m",
            "eval_pipeline.definitions",
        ],
        env={**os.environ, "DAGSTER_HOME": str(home.dagster)},
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    shots = tmp_path / "screenshots"
    shots.mkdir()
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/server_info")
        with Chromium() as browser:
            browser.goto(
                f"{base}/locations/eval_pipeline.definitions/asset-groups/evaluation",
                wait_for_text="otel-smoke",  # the gate assets are listed by suite name
            )
            graph = browser.screenshot(shots / "asset-graph.png")
            text = browser.goto(
                f"{base}/assets/gate_decision/mini?view=checks",
                wait_for_text="gate_hallucinated_actions",
            )
            detail = browser.click_text("gate_hallucinated_actions", wait_for_text="below floor")
            checks = browser.screenshot(shots / "gate-checks.png")
            runs = browser.goto(f"{base}/runs", wait_for_text="verdict: no-go")
            browser.goto(
                f"{base}/assets/gate_decision/mini?view=checks&checkDetail=gate_hallucinated_actions",
                wait_for_text="This is a blocking asset check",
            )
            statuses = browser.click_text(
                "Partitions", selector="[role=tab]", last=True, wait_for_text="Execution Failed ("
            )
            no_go = browser.click_text(
                "liar", selector="div,span", last=True, wait_for_text="below floor"
            )
            blocked = browser.screenshot(shots / "gate-no-go.png")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    assert "gate_tool_correctness" in text
    assert "fail: mean" in detail and "worst_items" in detail  # the reason and its evidence
    # Runs: each build's verdict on its run, newest first (liar, base, crashed).
    assert [line for line in runs.splitlines() if line.startswith("verdict: ")] == [
        "verdict: no-go",
        "verdict: go",
        "verdict: error",
    ]
    # The check's partitions: one build each passed, failed (no-go) and crashed.
    for status in ("Execution Failed (1)", "Failed (1)", "Passed (1)"):
        assert status in statuses, status
    assert "liar\nFailed\nLatest execution" in no_go  # the selected partition's status
    selected = no_go[no_go.index("Latest execution") :]
    assert "fail: mean" in selected
    assert "blocks_release\ntrue" in selected and "build\nliar" in selected
    assert all(p.stat().st_size > 20_000 for p in (graph, checks, blocked))
    if os.environ.get("EVAL_PIPELINE_SAVE_SCREENSHOTS") == "1":
        target = REPO_ROOT / "docs" / "screenshots"
        target.mkdir(parents=True, exist_ok=True)
        for shot in (graph, checks, blocked):
            shutil.copyfile(shot, target / shot.name)
