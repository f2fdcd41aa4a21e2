"""A real home for the report's browser test: two builds of a suite with a calibrated judge.

The mini graph environment (``defs.graph_env``) with a ``judge:`` block and ``faithfulness``
added to its suite, so the gate report holds a judge metric, the judge's stored calibration, and
evidence traces with their spans and scores. ``base`` is pinned; ``liar`` claims refunds it
never issued and fails ``hallucinated_actions``. Both are evaluated through the asset graph on
a persistent instance, so the Dagster webserver can show them too.
"""

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from eval_pipeline.defs.launch import evaluate_build, local_instance
from eval_pipeline.home import Home
from eval_pipeline_tests.conftest import REPO_ROOT
from eval_pipeline_tests.defs.graph_env import SUITE, make_graph_env
from eval_pipeline_tests.defs.test_ui_browser import free_port, wait_for

JUDGE = """judge:
  model: offline-minilm
  rubric_version: "1"
  calibration_set: human-labels/agent-faithfulness-v1
"""
FAITHFULNESS = "  - id: faithfulness\n    threshold: 0.5\n    max_regression: 0.1\n"


def judged_suite() -> str:
    """The mini suite with a judge and a judge-based metric."""
    return SUITE.replace("metrics:\n", f"{JUDGE}metrics:\n{FAITHFULNESS}")


def evaluate_judged_builds(tmp_path: Path) -> Home:
    """Publish, write the suite, register and evaluate ``base`` and ``liar``; the home."""
    env = make_graph_env(tmp_path, n_items=6)
    (tmp_path / "suites" / "mini.yaml").write_text(judged_suite())
    env.register("base", "baseline")
    env.registry.pin_baseline("mini", "base")
    env.register("liar", "defect-claims-unissued-refunds")
    defs = env.definitions()
    with local_instance(env.home) as instance:
        evaluate_build(defs, instance, "base")
        evaluate_build(defs, instance, "liar")
    return env.home


@contextmanager
def dagster_webserver(home: Home) -> Iterator[str]:
    """The Dagster webserver on a free loopback port over ``home``'s instance; its base URL."""
    port = free_port()
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "dagster-webserver"),
            *("-h", "127.0.0.1", "-p", str(port), "-m", "eval_pipeline.definitions"),
        ],
        env={**os.environ, "DAGSTER_HOME": str(home.dagster)},
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/server_info")
        yield base
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
