"""The judge cache: verdicts keyed by sha256(fingerprint digest, rendered input) in the state DB.

``CachedJudge`` wraps any judge. A hit returns the stored verdict without calling the inner
judge, so re-running an unchanged suite makes zero judge calls; a changed rubric, model or
parameter changes the fingerprint and misses. Failures (``JudgeError``) and "cannot judge"
answers are not cached: the next run tries again. ``stats`` counts hits, misses and inner calls.

``judge_many`` answers a batch with one lookup query and hands the misses to the inner judge
together (``judges.fanout.judge_each``: the offline judge embeds their texts in one batch, the
HTTP judge asks them concurrently up to its limit). ``complete`` does the same for a library
metric's prompt (``judges.completion``), in the same table under its own keys: the reply text is
stored, and the inner judge is asked only on a miss.

Writes are batched: new answers are staged and inserted ``WRITE_BATCH`` at a time in one
transaction (a round trip per verdict cost more than the offline judge itself, and sixteen
threads inserting one row each contend for SQLite's lock). A staged answer is served to lookups
before it is written. Outside a batch (``batched_writes``, which ``judge_many`` and the library
adapters' batches open) an answer is written at once, so nothing stays staged when a call ends.

``watch`` reports progress: every answer the inner judge gave, of every request it was asked,
across all the batches running at once (the CLI draws it with rich).
"""

import hashlib
import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Engine, String, Table, Text, insert, select
from sqlalchemy.exc import IntegrityError

from eval_pipeline.judges.completion import CompletionRequest, completing_judge, completion_key
from eval_pipeline.judges.fanout import Answer, LimitedJudge, judge_each
from eval_pipeline.judges.limits import JudgeLimits
from eval_pipeline.judges.protocol import (
    Judge,
    JudgeError,
    JudgeFingerprint,
    JudgeRequest,
    JudgeVerdict,
)
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
Progress = Callable[[int, int], None]


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
        self._pending: dict[str, dict[str, object]] = {}
        self._batches = 0
        self._progress: Progress | None = None
        self._asked = 0
        self._answered = 0

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
    def limits(self) -> JudgeLimits | None:
        """The inner judge's limits (None when it declares none)."""
        return self.inner.limits if isinstance(self.inner, LimitedJudge) else None

    def watch(self, progress: Progress | None) -> None:
        """Call ``progress(answered, asked)`` as the inner judge answers (None: stop)."""
        with self._lock:
            self._progress = progress

    def _advance(self, asked: int = 0, answered: int = 0) -> None:
        with self._lock:
            self._asked += asked
            self._answered += answered
            progress, done, total = self._progress, self._answered, self._asked
        if progress is not None:
            progress(done, total)

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

    @property
    def generative(self) -> bool:
        """Whether the inner judge answers library prompts (``complete``)."""
        return completing_judge(self.inner) is not None

    def complete(self, request: CompletionRequest) -> str:
        """The cached reply to a library prompt, or the inner judge's (stored on success).

        Raises:
            JudgeError: the inner judge is not generative, or it finally failed (not cached).
        """
        inner = completing_judge(self.inner)
        if inner is None:
            raise JudgeError(f"judge {self.backend} is not generative: it cannot answer prompts")
        fingerprint = inner.fingerprint
        key = completion_key(fingerprint, request)
        stored = self._lookup_texts([key])
        if key in stored:
            self._count(hits=1)
            return str(json.loads(stored[key])["completion"])
        self._count(misses=1, calls=1)
        self._advance(asked=1)
        try:
            text = inner.complete(request)
        except Exception:
            self._count(errors=1)
            raise
        finally:
            self._advance(answered=1)
        task = ("completion " + request.caller)[:64]
        self._stage([self._row(fingerprint, key, task, json.dumps({"completion": text}))])
        return text

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """The cached verdict, or the inner judge's (stored on success).

        Raises:
            JudgeError: the inner judge finally failed (not cached).
        """
        (answer,) = self.judge_many([request])
        if isinstance(answer, Exception):
            raise answer
        return answer

    def judge_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeVerdict | Exception]:
        """Verdicts for ``requests`` in order, or the exception a request raised in its place.

        One lookup for the whole batch; the misses go to the inner judge together (through
        ``judge_each``) and its verdicts are stored in batches as they arrive. A request
        repeated in the batch is judged once, and its repeats count as hits, as they would one
        by one.
        """
        fingerprint = self.inner.fingerprint
        keys = [cache_key(fingerprint, request) for request in requests]
        stored = self._lookup(keys)
        todo: dict[str, JudgeRequest] = {}
        for key, request in zip(keys, requests, strict=True):
            if key not in stored:
                todo.setdefault(key, request)
        asked = list(todo.items())

        def arrived(position: int, answer: Answer) -> None:
            self._advance(answered=1)
            if isinstance(answer, JudgeVerdict):
                key, request = asked[position]
                self._stage([self._verdict_row(fingerprint, key, request.task, answer)])

        self._advance(asked=len(asked))
        with self.batched_writes():
            answers = judge_each(self.inner, [request for _, request in asked], arrived)
        fresh = dict(zip(todo, answers, strict=True))
        new = {k: v for k, v in fresh.items() if isinstance(v, JudgeVerdict)}
        hits, seen = 0, set()
        for key in keys:
            hits += key in stored or (key in seen and key in new)
            seen.add(key)
        self._count(
            hits=hits, misses=len(keys) - hits, calls=len(todo), errors=len(todo) - len(new)
        )
        return [stored[key] if key in stored else fresh[key] for key in keys]

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

    def _stage(self, rows: list[dict[str, object]]) -> None:
        with self._lock:
            self._pending.update((str(row["key"]), row) for row in rows)
            full = len(self._pending) >= WRITE_BATCH or self._batches == 0
        if full:
            self.flush()

    def _lookup_texts(self, keys: Sequence[str]) -> dict[str, str]:
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

    def _lookup(self, keys: Sequence[str]) -> dict[str, JudgeVerdict]:
        found: dict[str, JudgeVerdict] = {}
        for key, text in self._lookup_texts(keys).items():
            raw = json.loads(text)
            found[key] = JudgeVerdict(
                score=raw["score"],
                passed=raw["passed"],
                reason=raw["reason"],
                details=raw["details"],
            )
        return found

    @staticmethod
    def _row(fingerprint: JudgeFingerprint, key: str, task: str, text: str) -> dict[str, object]:
        return {
            "key": key,
            "fingerprint": fingerprint.digest,
            "backend": fingerprint.backend,
            "task": task,
            "verdict": text,
            "created_at": datetime.now(UTC),
        }

    @classmethod
    def _verdict_row(
        cls, fingerprint: JudgeFingerprint, key: str, task: str, verdict: JudgeVerdict
    ) -> dict[str, object]:
        text = json.dumps(asdict(verdict), sort_keys=True, default=str)
        return cls._row(fingerprint, key, task, text)

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
