"""The judge cache: verdicts keyed by sha256(fingerprint digest, rendered input) in the state DB.

``CachedJudge`` wraps any judge. A hit returns the stored verdict without calling the inner
judge, so re-running an unchanged suite makes zero judge calls; a changed rubric, model or
parameter changes the fingerprint and misses. Failures (``JudgeError``) and "cannot judge"
answers are not cached: the next run tries again. ``stats`` counts hits, misses and inner calls.
"""

import hashlib
import json
import threading
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Engine, String, Table, Text, insert, select
from sqlalchemy.exc import IntegrityError

from eval_pipeline.judges.protocol import Judge, JudgeFingerprint, JudgeRequest, JudgeVerdict
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


@dataclass(frozen=True)
class CacheStats:
    """Counters of one ``CachedJudge``: lookups that hit, missed, and calls to the inner judge."""

    hits: int = 0
    misses: int = 0
    calls: int = 0
    errors: int = 0

    def as_dict(self) -> dict[str, int]:
        """JSON-safe form."""
        return asdict(self)


def cache_key(fingerprint: JudgeFingerprint, request: JudgeRequest) -> str:
    """sha256 of the fingerprint digest and the request's input hash."""
    return hashlib.sha256(f"{fingerprint.digest}:{request.input_hash}".encode()).hexdigest()


class CachedJudge:
    """A judge that answers from the state DB when it can and asks ``inner`` otherwise."""

    def __init__(self, inner: Judge, url: str) -> None:
        self.inner = inner
        self.url = url
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._stats = CacheStats()

    def _db(self) -> Engine:
        # Opened on first use, so building a judge only to read its fingerprint touches no DB.
        with self._lock:
            if self._engine is None:
                self._engine = engine_for(self.url)
            return self._engine

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """The inner judge's fingerprint."""
        return self.inner.fingerprint

    @property
    def backend(self) -> str:
        """The inner judge's backend."""
        return self.inner.backend

    @property
    def stats(self) -> CacheStats:
        """A snapshot of the counters."""
        with self._lock:
            return self._stats

    def _count(self, **increments: int) -> None:
        with self._lock:
            current = asdict(self._stats)
            for name, step in increments.items():
                current[name] += step
            self._stats = CacheStats(**current)

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """The cached verdict, or the inner judge's (stored on success).

        Raises:
            JudgeError: the inner judge finally failed (not cached).
        """
        fingerprint = self.inner.fingerprint
        key = cache_key(fingerprint, request)
        with self._db().connect() as conn:
            stored = conn.execute(
                select(JUDGE_CACHE.c.verdict).where(JUDGE_CACHE.c.key == key)
            ).scalar_one_or_none()
        if stored is not None:
            self._count(hits=1)
            raw = json.loads(stored)
            return JudgeVerdict(
                score=raw["score"],
                passed=raw["passed"],
                reason=raw["reason"],
                details=raw["details"],
            )
        self._count(misses=1, calls=1)
        try:
            verdict = self.inner.judge(request)
        except Exception:
            self._count(errors=1)
            raise
        self._store(key, fingerprint, request.task, verdict)
        return verdict

    def _store(
        self, key: str, fingerprint: JudgeFingerprint, task: str, verdict: JudgeVerdict
    ) -> None:
        row = {
            "key": key,
            "fingerprint": fingerprint.digest,
            "backend": fingerprint.backend,
            "task": task,
            "verdict": json.dumps(asdict(verdict), sort_keys=True, default=str),
            "created_at": datetime.now(UTC),
        }
        try:
            with self._db().begin() as conn:
                conn.execute(insert(JUDGE_CACHE).values(**row))
        except IntegrityError:
            pass  # a concurrent worker stored the same key first; both verdicts came from it
