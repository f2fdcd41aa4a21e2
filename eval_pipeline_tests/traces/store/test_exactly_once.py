"""Exactly once across processes: the ledger in PostgreSQL decides, whatever fails.

Four writer processes (``exactly_once_writer``) ingest the same traces into one store and one
PostgreSQL ledger at once, with failures injected between writing a part and recording its
keys (crashes, failed requests, lost acknowledgements); crashed writers are started again.
Every span ends up stored exactly once; the parts the failures left behind are orphans no
read sees, and ``clean`` removes them.
"""

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq

from eval_pipeline.traces.ingest.ingest import ingest
from eval_pipeline.traces.store.ledger import dispose_ledgers
from eval_pipeline.traces.store.maintenance import clean
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.defs.postgres import scratch_database
from eval_pipeline_tests.traces.store.exactly_once_writer import CRASHED, batches

WORKTREE = Path(__file__).resolve().parents[3]
WRITERS = 4


def _keys(store: TraceStore) -> Counter[tuple[str, str, str]]:
    """Every (build, trace, span) in the parts the ledger names, counted."""
    counted: Counter[tuple[str, str, str]] = Counter()
    for build in store.builds():
        for path in store._files(build):
            table = pq.read_table(path, columns=["trace_id", "span_id"])
            counted.update(
                (build, t, s)
                for t, s in zip(
                    table["trace_id"].to_pylist(), table["span_id"].to_pylist(), strict=True
                )
            )
    return counted


def _start(store: Path, url: str, seed: int, rate: float) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "eval_pipeline_tests.traces.store.exactly_once_writer",
            str(store),
            url,
            str(seed),
            str(rate),
        ],
        cwd=WORKTREE,
        env={**os.environ, "PYTHONPATH": str(WORKTREE)},
        stderr=subprocess.PIPE,
    )


def test_writers_on_postgres_with_injected_failures_store_every_span_once(tmp_path):
    expected_store = TraceStore(tmp_path / "expected", state_url=f"sqlite:///{tmp_path}/e.db")
    ingest(batches(), store=expected_store, day="2026-12-01")
    expected = Counter(_keys(expected_store).keys())
    assert sum(expected.values()) > 50
    store_root = tmp_path / "store"
    with scratch_database() as url:
        running = {n: _start(store_root, url, seed=n * 100, rate=0.3) for n in range(WRITERS)}
        crashes = 0
        for attempt in range(1, 40):
            for n, process in list(running.items()):
                _, stderr = process.communicate(timeout=300)
                if process.returncode == 0:
                    del running[n]
                    continue
                assert process.returncode == CRASHED, stderr.decode()
                crashes += 1
                # After a few crashes a writer runs without failures, so the test ends.
                rate = 0.3 if attempt < 5 else 0.0
                running[n] = _start(store_root, url, seed=n * 100 + attempt, rate=rate)
            if not running:
                break
        assert not running
        assert crashes > 0  # the failures did happen
        store = TraceStore(store_root, state_url=url)
        assert _keys(store) == expected  # each span once, none missing
        on_disk = list(store_root.rglob("part-*.parquet"))
        assert len(on_disk) > len([p for b in store.builds() for p in store._files(b)])
        removed = clean(store, min_age_seconds=0)
        assert removed > 0
        assert sorted(store_root.rglob("part-*.parquet")) == sorted(
            p for b in store.builds() for p in store._files(b)
        )
        assert _keys(store) == expected
        dispose_ledgers()
