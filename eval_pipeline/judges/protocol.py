"""The Judge interface (docs/DESIGN.md section 7): a structured verdict for a rubric-driven request.

A request names its task (``faithfulness``, ``answer_relevancy``, ``task_completion``,
``plan_quality``, ``plan_adherence``, ...), carries the fields the rubric is rendered from
(question, answer, contexts, plan, ...), and the rendered prompt plus the JSON schema the verdict
must match. Generative judges (any OpenAI-compatible endpoint) answer the rendered prompt;
non-generative judges (the offline default) work from the fields. Both return a
``JudgeVerdict``.

Every judge has a fingerprint (backend, model id, rubric version, parameters): it keys the cache
together with the rendered input, and is recorded on every score the judge produced.
"""

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


def _stable_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


@dataclass(frozen=True)
class JudgeFingerprint:
    """What identifies a judge's behaviour: change any field and cached verdicts are stale."""

    backend: str
    model: str
    rubric_version: str
    parameters: dict[str, Any] = field(default_factory=dict)

    @property
    def digest(self) -> str:
        """A short stable hash of the fingerprint (recorded on scores)."""
        payload = _stable_json(
            {
                "backend": self.backend,
                "model": self.model,
                "rubric": self.rubric_version,
                "parameters": self.parameters,
            }
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class JudgeRequest:
    """One thing to judge.

    ``fields`` are JSON-safe (``question``, ``answer``, ``contexts`` as a list of strings, ...).
    ``prompt`` is the rubric template rendered with the fields; ``schema`` is the JSON schema
    of the verdict a generative judge must return.
    """

    task: str
    fields: dict[str, Any]
    prompt: str
    schema: dict[str, Any]
    rubric_id: str = ""
    rubric_version: str = ""

    @property
    def input_hash(self) -> str:
        """Hash of the rendered input (task, rubric, prompt, fields): half of the cache key."""
        payload = _stable_json(
            {
                "task": self.task,
                "rubric": [self.rubric_id, self.rubric_version],
                "prompt": self.prompt,
                "fields": self.fields,
            }
        )
        return hashlib.sha256(payload.encode()).hexdigest()


@dataclass(frozen=True)
class JudgeVerdict:
    """A judge's answer: a score in [0, 1] (higher is better), pass/fail, and why.

    ``details`` keeps structured evidence (per-claim verdicts, unsupported claims, ...).
    ``calls`` names the judge calls that made the verdict (``judges.call_refs``: the chat spans
    of the requests an HTTP judge sent); it is stored with the verdict in the cache, so a cached
    verdict names the call that first made it. Empty for a judge that makes no call (offline).
    """

    score: float
    passed: bool
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    calls: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"judge verdict score must be in [0, 1], got {self.score!r}")


class JudgeError(RuntimeError):
    """A judge call that finally failed (after retries); the score becomes ``error``.

    ``calls`` names the requests sent that failed (recorded ones only; see ``JudgeVerdict``).
    """

    calls: tuple[str, ...] = ()


@runtime_checkable
class Judge(Protocol):
    """Anything that turns a ``JudgeRequest`` into a ``JudgeVerdict``."""

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """The judge's fingerprint."""
        ...

    @property
    def backend(self) -> str:
        """The backend name recorded on scores (``openai-compatible``, ``offline-minilm``)."""
        ...

    def judge(self, request: JudgeRequest) -> JudgeVerdict:
        """Return a verdict, or raise ``JudgeError`` when the judge finally failed."""
        ...
