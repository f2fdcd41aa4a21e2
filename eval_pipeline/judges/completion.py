"""Structured completions: the judge's model answering a library metric's own prompt.

DeepEval and RAGAS metrics render their own prompts and parse their own reply models; they need
an LLM, not a rubric verdict. A ``CompletionRequest`` carries such a prompt and the JSON schema
of the reply, and a completing judge answers it with the reply text. Only generative judges
complete (the OpenAI-compatible one, and the cache around it); the offline judge does not, so
library judge metrics over it are ``unscored``. Completions are cached and retried like
verdicts, keyed by the judge's fingerprint and the request's hash, so a library metric scored
twice on the same input asks the model once.
"""

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from eval_pipeline.judges.protocol import Judge, JudgeFingerprint


@dataclass(frozen=True)
class CompletionRequest:
    """One prompt a library metric sends, and the JSON schema its reply must match.

    ``schema`` is None for a free-text reply. ``caller`` names the metric asking (recorded in
    the cache's task column, for people reading it).
    """

    prompt: str
    schema: dict[str, Any] | None = None
    schema_name: str = "reply"
    caller: str = ""

    @property
    def input_hash(self) -> str:
        """Hash of the prompt and the schema: half of the cache key."""
        payload = json.dumps(
            {"completion": self.prompt, "schema": self.schema},
            sort_keys=True,
            separators=(",", ":"),
            default=str,
        )
        return hashlib.sha256(payload.encode()).hexdigest()


@runtime_checkable
class CompletingJudge(Protocol):
    """A judge that can also answer library prompts (see the module docstring)."""

    @property
    def fingerprint(self) -> JudgeFingerprint:
        """The judge's fingerprint (recorded on every score it produced)."""
        ...

    @property
    def generative(self) -> bool:
        """Whether ``complete`` can answer (a cache over a non-generative judge cannot)."""
        ...

    def complete(self, request: CompletionRequest) -> str:
        """The reply text (JSON matching ``request.schema`` when it has one).

        Raises:
            JudgeError: the model finally failed to answer (after retries).
        """
        ...


def completing_judge(judge: Judge | None) -> CompletingJudge | None:
    """``judge`` when it can answer library prompts, else None."""
    if isinstance(judge, CompletingJudge) and judge.generative:
        return judge
    return None


def completion_key(fingerprint: JudgeFingerprint, request: CompletionRequest) -> str:
    """The cache key of a completion: sha256 of the fingerprint digest and the request hash."""
    return hashlib.sha256(
        f"{fingerprint.digest}:completion:{request.input_hash}".encode()
    ).hexdigest()
