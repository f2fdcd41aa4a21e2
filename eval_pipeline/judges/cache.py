"""The judge cache: verdicts keyed by sha256(fingerprint digest, rendered input) in the state DB.

``CachedJudge`` wraps any judge. A hit returns the stored verdict without calling the inner
judge, so re-running an unchanged suite makes zero judge calls; a changed rubric, model or
parameter changes the fingerprint and misses. Failures (``JudgeError``) and "cannot judge"
answers are not cached: the next run tries again. ``stats`` counts hits, misses and inner calls.

``judge_many`` answers a batch with one lookup query and hands the misses to the inner judge
together (``judges.fanout.judge_each``: the offline judge embeds their texts in one batch, the
HTTP judge asks them concurrently up to its limit). ``complete`` does the same for a library
metric's prompt (``judges.completion``), in the same table under its own keys: the reply text is
stored, and the inner judge is asked only on a miss; a prompt already being asked by another
thread waits for that answer instead of asking again. New answers are written in batches
(``judges.cache_table``; ``judge_many`` and the library adapters' batches open
``batched_writes``).

Each answer is stored with the names of the judge calls that made it (``judges.call_refs``): a
verdict's ``calls``, a completion's noted calls; a hit gives them back (a verdict with its
``calls``, a completion noting them), so a score answered from the cache names the call that
first made it. Answers stored before calls were recorded name none.

``watch`` reports progress: every answer the inner judge gave, of every request it was asked,
across all the batches running at once (the CLI draws it with rich).
"""

import hashlib
import json
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass

from eval_pipeline.judges.cache_table import JUDGE_CACHE, CacheTable, cache_row
from eval_pipeline.judges.call_refs import collecting, note
from eval_pipeline.judges.call_spans import CallRecorder
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

__all__ = ["JUDGE_CACHE", "CacheStats", "CachedJudge", "cache_key"]

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
        self._table = CacheTable(url)
        self._lock = threading.Lock()
        self._stats = CacheStats()
        self._asking: dict[str, Future[tuple[str, tuple[str, ...]]]] = {}
        self._progress: Progress | None = None
        self._asked = 0
        self._answered = 0

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

    def record_calls(self, recorder: CallRecorder | None) -> None:
        """Have the inner judge record its requests (``judges.judge_trace``), if it can."""
        record = getattr(self.inner, "record_calls", None)
        if callable(record):
            record(recorder)

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
        stored = self._table.texts([key])
        if key in stored:
            self._count(hits=1)
            raw = json.loads(stored[key])
            note(raw.get("calls") or ())
            return str(raw["completion"])
        with self._lock:
            asking = self._asking.get(key)
            if asking is None:
                self._asking[key] = Future()
        if asking is not None:  # another thread is asking this very prompt: share its answer
            self._count(hits=1)
            text, calls = asking.result()
            note(calls)
            return text
        self._count(misses=1, calls=1)
        self._advance(asked=1)
        made: list[str] = []
        try:
            with collecting() as made:
                text = inner.complete(request)
        except Exception as exc:
            self._count(errors=1)
            self._answered_by(key, exc)
            raise
        finally:
            note(made)  # the requests sent, answered or failed, to the library metric asking
            self._advance(answered=1)
        answer = {"completion": text, "calls": list(made)}
        self._table.stage(
            cache_row(fingerprint, key, "completion " + request.caller, json.dumps(answer))
        )
        self._answered_by(key, (text, tuple(made)))
        return text

    def _answered_by(self, key: str, answer: tuple[str, tuple[str, ...]] | Exception) -> None:
        with self._lock:
            waiting = self._asking.pop(key)
        if isinstance(answer, Exception):
            waiting.set_exception(answer)
        else:
            waiting.set_result(answer)

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
                text = json.dumps(asdict(answer), sort_keys=True, default=str)
                self._table.stage(cache_row(fingerprint, key, request.task, text))

        self._advance(asked=len(asked))
        with self._table.batched_writes():
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

    def batched_writes(self) -> AbstractContextManager[None]:
        """Stage new answers while the block runs (``CacheTable.batched_writes``)."""
        return self._table.batched_writes()

    def _lookup(self, keys: Sequence[str]) -> dict[str, JudgeVerdict]:
        found: dict[str, JudgeVerdict] = {}
        for key, text in self._table.texts(keys).items():
            raw = json.loads(text)
            found[key] = JudgeVerdict(
                score=raw["score"],
                passed=raw["passed"],
                reason=raw["reason"],
                details=raw["details"],
                calls=tuple(raw.get("calls") or ()),
            )
        return found
