"""The state database and the span ledger in it open race-free, many processes at once."""

import os
import subprocess
import sys
from pathlib import Path

from eval_pipeline_tests.defs.postgres import scratch_database

WORKTREE = Path(__file__).resolve().parents[1]
OPEN = (
    "import sys, eval_pipeline.builds, eval_pipeline.judges.cache\n"
    "from eval_pipeline.statedb import engine_for\n"
    "from eval_pipeline.traces.store.ledger import ledger_engine\n"
    "engine_for(sys.argv[1]).dispose()\n"
    "ledger_engine(sys.argv[1]).dispose()\n"
)


def _open_at_once(url: str, processes: int = 4) -> list[str]:
    started = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN, url],
            env={**os.environ, "PYTHONPATH": str(WORKTREE)},
            stderr=subprocess.PIPE,
        )
        for _ in range(processes)
    ]
    return [p.communicate(timeout=120)[1].decode() for p in started if p.wait(timeout=120)]


def test_four_processes_open_a_fresh_sqlite_database_at_once(tmp_path):
    for attempt in range(6):
        assert _open_at_once(f"sqlite:///{tmp_path}/state{attempt}.db") == []


def test_four_processes_open_a_fresh_postgres_database_at_once():
    for _ in range(3):
        with scratch_database() as url:
            assert _open_at_once(url) == []
