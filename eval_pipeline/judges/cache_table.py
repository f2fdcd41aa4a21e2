"""The judge cache's table: lookups, and writes staged and inserted in batches.

One row per cached answer in the state database, keyed by sha256(fingerprint digest, rendered
input) (``judges.cache``). New answers are staged and inserted ``WRITE_BATCH`` at a time in one
transaction: a round trip per verdict cost more than the offline judge itself, and sixteen
threads inserting one row each contend for SQLite's lock. A staged answer is served to lookups
before it is written. Outside a batch (``batched_writes``) an answer is written at once, so
nothing stays staged when a call ends; when the last batch open ends, what is staged is written.
"""

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Engine, String, Table, Text, insert, select
from sqlalchemy.exc import IntegrityError

from eval_pipeline.judges.protocol import JudgeFingerprint
from eval_pipeline.statedb import METADATA, engine_for

JUDGE_CACHE = Table(
    "judge_cache",
    METADATA,
    Column("key", String(64), primary_key=True),
    Column("fingerprint", String(16), nullable=False, index=True),
    Column("backend", String(64), nullable=False),
    Column("task", String(64), nullable=False),
    Column("verdict", Text, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
)
_KEYS_PER_QUERY = 500  # below every SQLite build's bound-parameter limit
WRITE_BATCH = 64


def cache_row(fingerprint: JudgeFingerprint, key: str, task: str, text: str) -> dict[str, object]:
    """A row of the table: the answer's text under its key, with who answered and when."""
    return {
        "key": key,
        "fingerprint": fingerprint.digest,
        "backend": fingerprint.backend,
        "task": task[:64],
        "verdict": text,
        "created_at": datetime.now(UTC),
    }


class CacheTable:
    """The table in the database at ``url`` (opened on first use), with staged writes."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._pending: dict[str, dict[str, object]] = {}
        self._batches = 0

    def _db(self) -> Engine:
        # Opened on first use, so building a judge only to read its fingerprint touches no DB.
        with self._lock:
            if self._engine is None:
                self._engine = engine_for(self.url)
            return self._engine

    @contextmanager
    def batched_writes(self) -> Iterator[None]:
        """Stage new answers while the block runs; write what is staged when the last ends."""
        with self._lock:
            self._batches += 1
        try:
            yield
        finally:
            with self._lock:
                self._batches -= 1
                last = self._batches == 0
            if last:
                self.flush()

    def flush(self) -> None:
        """Write every staged answer (one transaction)."""
        with self._lock:
            rows = list(self._pending.values())
            self._pending.clear()
        self._insert(rows)

    def stage(self, row: dict[str, object]) -> None:
        """Stage one new row; written now outside a batch, else when ``WRITE_BATCH`` are staged."""
        with self._lock:
            self._pending[str(row["key"])] = row
            full = len(self._pending) >= WRITE_BATCH or self._batches == 0
        if full:
            self.flush()

    def texts(self, keys: Sequence[str]) -> dict[str, str]:
        """The stored (or staged) text of each key found."""
        found: dict[str, str] = {}
        with self._lock:
            for key in keys:
                if key in self._pending:
                    found[key] = str(self._pending[key]["verdict"])
        wanted = [key for key in dict.fromkeys(keys) if key not in found]
        if not wanted:
            return found
        with self._db().connect() as conn:
            for start in range(0, len(wanted), _KEYS_PER_QUERY):
                chunk = wanted[start : start + _KEYS_PER_QUERY]
                rows = conn.execute(
                    select(JUDGE_CACHE.c.key, JUDGE_CACHE.c.verdict).where(
                        JUDGE_CACHE.c.key.in_(chunk)
                    )
                )
                found.update((key, text) for key, text in rows)
        return found

    def _insert(self, rows: list[dict[str, object]]) -> None:
        if not rows:
            return
        try:
            with self._db().begin() as conn:
                conn.execute(insert(JUDGE_CACHE), rows)
        except IntegrityError:
            # A concurrent worker stored some of these keys first (both answers came from the
            # same judge on the same input): store the rest one by one.
            for row in rows:
                try:
                    with self._db().begin() as conn:
                        conn.execute(insert(JUDGE_CACHE).values(**row))
                except IntegrityError:
                    pass
