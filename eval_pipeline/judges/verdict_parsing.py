"""A generative judge's reply turned into a ``JudgeVerdict``, validated against the schema."""

import re
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.judges.protocol import JudgeVerdict

FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


class VerdictFormatError(ValueError):
    """The reply is not JSON, or does not match the verdict schema (retryable)."""


def parse_verdict(content: str, schema: dict[str, Any]) -> JudgeVerdict:
    """Parse ``content`` (JSON, optionally in a Markdown code fence) and validate it.

    Raises:
        VerdictFormatError: not JSON, not matching ``schema``, or a score outside [0, 1].
    """
    import jsonschema

    fenced = FENCE.match(content)
    text = fenced.group(1) if fenced else content
    try:
        raw = json_input.loads(text)
    except ValueError as exc:
        raise VerdictFormatError(
            f"reply is not JSON: {exc}; reply starts {content[:80]!r}"
        ) from exc
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(raw), key=lambda e: list(e.path)
    )
    if errors:
        where = "/".join(str(p) for p in errors[0].path) or "(root)"
        raise VerdictFormatError(
            f"reply does not match the verdict schema at {where}: {errors[0].message}"
        )
    try:
        return JudgeVerdict(
            score=float(raw["score"]),
            passed=bool(raw["passed"]),
            reason=str(raw.get("reason", "")),
            details=dict(raw.get("details") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise VerdictFormatError(f"reply is not a verdict: {exc}") from exc
