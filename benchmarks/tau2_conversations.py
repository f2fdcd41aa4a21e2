"""Real tau2-bench retail tasks as conversations: the sample agent against the scripted user.

``python -m benchmarks tau2-conversations`` imports the committed tau2 retail tasks as
multi-turn items (``importers.benchmarks.tau2_conversation``: the user scenario played by a
deterministic scripted policy), keeps the tasks the sample agent's tools and database cover
(``covered``), publishes them as a dataset version, and runs them through the one
orchestrator in a fresh home: ``builds register``, ``run`` (the conversation runner drives the
sample agent's multi-turn mode turn by turn), ``score`` (the session metrics: goal completed
against tau2's reference end state, turns to resolution, knowledge retention, repeated user
requests) and ``sessions list``. It prints the figures: tasks, sessions, turns, how sessions
ended, each metric's mean and how many rows were not scored. The agent is not tuned to the
tasks: a task it cannot resolve is a figure.
"""

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from click.testing import CliRunner

REPO = Path(__file__).resolve().parents[1]
TASKS = REPO / "data" / "taubench" / "tau2" / "retail_tasks.json.gz"
TOOLS = REPO / "data" / "taubench" / "v1" / "tools_retail.json.gz"
DATASET = "benchmark/tau2-retail-conversations"
BUILD = "tau2-sample-agent"
RUNNER = "python:eval_pipeline.sample_agent.app:run_item?agent_build=baseline"
METRICS = {  # metric: threshold (the support-conversations suite's; gated by no one here)
    "session.goal_completed": 0.75,
    "session.turns_to_resolution": 0.25,
    "session.knowledge_retention": 0.90,
    "session.repeated_user_requests": 0.10,
}


def covered(item: Any, db: Any, tools: set[str]) -> bool:
    """Whether the sample agent can in principle do ``item``: its tools, its database.

    Every expected call (tau2's import keeps the calls that count: writes and the like) is one
    of the agent's tools (lookups, returns, cancellations), at least one is a write, and every
    order the calls name (any of an argument's alternatives) is in the agent's database subset.
    """
    from eval_pipeline.sample_agent.retail_db import ToolError
    from eval_pipeline.sample_agent.tools import WRITE_TOOLS

    calls = item.expected_tool_calls
    if not calls or any(c.name not in tools for c in calls):
        return False
    if not any(c.name in WRITE_TOOLS for c in calls):
        return False
    for call in calls:
        orders = call.arguments.get("order_id")
        for order in orders if isinstance(orders, list) else [orders]:
            if order is None:
                continue
            try:
                db.order(str(order))
            except ToolError:
                return False
    return True


def _agent_tools() -> set[str]:
    from eval_pipeline.sample_agent.tools import SUPPORT_TOOLS, refunds_tools

    return {t["function"]["name"] for t in (*SUPPORT_TOOLS, *refunds_tools({}))}


def publish(limit: int | None) -> int:
    """Publish the covered tasks (the first ``limit``) as ``DATASET`` v1; their count."""
    from eval_pipeline.datasets.artefact import Dataset
    from eval_pipeline.datasets.publishing import publish_checked
    from eval_pipeline.datasets.store import default_dataset_store
    from eval_pipeline.importers.benchmarks.tau2_conversation import import_multi_turn
    from eval_pipeline.sample_agent.retail_db import RetailDB

    imported = import_multi_turn([TASKS, TOOLS])
    db, tools = RetailDB(), _agent_tools()
    items = tuple(i for i in imported.items if covered(i, db, tools))[:limit]
    dataset = Dataset(
        name=DATASET,
        version="v1",
        owner="benchmarks",
        kind="benchmark",
        items=items,
        tool_schemas=imported.tool_schemas,
        provenance={**imported.provenance, "selection": "covered by the sample agent"},
        description="tau2 retail tasks the sample agent covers, as scripted conversations",
    )
    publish_checked(default_dataset_store(), dataset)
    return len(items)


def _suite(path: Path, runs: int) -> Path:
    lines = [
        "suite: tau2-retail-conversations",
        "risk_tier: low",
        "datasets:",
        f"  - name: {DATASET}-v1",
        f"runs_per_item: {runs}",
        "redaction_policy: keep-tools",
        "metrics:",
        *(f"  - {{id: {m}, threshold: {t}}}" for m, t in METRICS.items()),
        "sessions: {idle_timeout_s: 600}",
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _cli(*args: str) -> Any:
    from eval_pipeline.cli import cli

    result = CliRunner().invoke(cli, list(args))
    if result.exit_code != 0:
        raise RuntimeError(
            f"eval-pipeline {' '.join(args)}: exit {result.exit_code}\n{result.output}"
        )
    return result.output


def _progress(shown: list[dict[str, Any]]) -> dict[str, Any]:
    """How far the sessions got (``sessions show`` JSON forms).

    Sessions whose user lookup succeeded, sessions with a write call, and the count of each
    last agent answer (what a session that hit the turn limit was stuck on).
    """
    from eval_pipeline.sample_agent.tools import WRITE_TOOLS

    found = wrote = 0
    last: dict[str, int] = {}
    for session in shown:
        calls = [c for turn in session["turn_list"] for c in turn["tool_calls"]]
        found += any(c["name"].startswith("find_user_id") and not c["error"] for c in calls)
        wrote += any(c["name"] in WRITE_TOOLS for c in calls)
        answer = str(session["turn_list"][-1]["answer"] if session["turn_list"] else "")
        last[answer] = last.get(answer, 0) + 1
    return {
        "account_found": found,
        "write_called": wrote,
        "last_answers": dict(sorted(last.items(), key=lambda kv: -kv[1])),
    }


def figures(sessions: list[dict[str, Any]], scored: dict[str, Any], tasks: int) -> dict[str, Any]:
    """The run's figures from ``sessions list`` and ``score`` (JSON forms)."""
    ends: dict[str, int] = {}
    for s in sessions:
        key = str(s.get("end_detail") or ("ended" if s.get("ended") else "open"))
        ends[key] = ends.get(key, 0) + 1
    turns = [int(s["turns"]) for s in sessions]
    out: dict[str, Any] = {
        "tasks": tasks,
        "sessions": len(sessions),
        "mean_turns": round(sum(turns) / len(turns), 2) if turns else None,
        "max_turns_seen": max(turns, default=0),
        "ended_by": dict(sorted(ends.items())),
    }
    for metric in METRICS:
        summary = scored["metrics"].get(metric) or {}
        out[metric] = {
            k: summary.get(k) for k in ("mean", "n", "unscored", "errors") if k in summary
        }
    return out


def run(runs: int = 1, limit: int | None = None, home: Path | None = None) -> dict[str, Any]:
    """Import, run, score; the figures (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="tau2conv-") as scratch:
        root = home or Path(scratch)
        saved = {k: os.environ.get(k) for k in ("EVAL_PIPELINE_HOME", "EVAL_PIPELINE_STATE_URL")}
        os.environ["EVAL_PIPELINE_HOME"] = str(root / "home")
        os.environ.pop("EVAL_PIPELINE_STATE_URL", None)
        try:
            from eval_pipeline.home import current_home

            current_home().ensure()
            tasks = publish(limit)
            suite = str(_suite(root / "tau2-retail-conversations.yaml", runs))
            _cli("builds", "register", BUILD, "--suite", suite, "--runner", RUNNER)
            ran = json.loads(_cli("run", "--suite", suite, "--build", BUILD, "--quiet"))
            scored = json.loads(
                _cli("score", "--suite", suite, "--build", BUILD, "--format", "json", "--quiet")
            )
            listed = _cli("sessions", "list", "--build", BUILD, "--format", "json")
            sessions = json.loads(listed)
            result = figures(sessions, scored, tasks)
            shown = [
                json.loads(
                    _cli("sessions", "show", s["session_id"], "--build", BUILD, "--format", "json")
                )
                for s in sessions
            ]
            result.update(_progress(shown))
            result["expected_runs"] = ran.get("expected_runs")
            result["failed_runs"] = ran.get("failed_runs")
            return result
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
