"""Detector settings: policy, forbidden tools and calls, canaries, limits, budgets, sessions.

Validated once, at the edge (``load_detector_config``): an unknown key, a bad value or a
pattern that does not compile is a ``DetectorConfigError`` naming the file and the field.
The defaults need no file: they flag failures and structure, no policy of anyone's.
"""

import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from eval_pipeline.bounded_read import read_bounded
from eval_pipeline.datasets.item import ForbiddenCall
from eval_pipeline.traces.sessions.end import DEFAULT_IDLE_TIMEOUT_S


class DetectorConfigError(ValueError):
    """The detector configuration is invalid (the message names the file and field)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class PolicySettings(_Frozen):
    """Guardrail and policy hits.

    ``patterns``: regular expressions (case-insensitive) that must not appear in what the
    agent sends out (tool arguments, model output). ``forbidden_tools``: tool names (``fnmatch``
    patterns) that must never run. ``guardrail_spans``: span-name patterns of guardrail
    checks, a hit when such a span is in error or sets one of ``guardrail_attributes``.
    """

    patterns: tuple[str, ...] = ()
    forbidden_tools: tuple[str, ...] = ()
    guardrail_spans: tuple[str, ...] = ("*guardrail*",)
    guardrail_attributes: tuple[str, ...] = ("guardrail.triggered", "gen_ai.guardrail.triggered")

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, patterns: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in patterns:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} does not compile: {exc}") from None
        return patterns


class ForbiddenCallSettings(_Frozen):
    """A call that must not be executed (name, and argument values that narrow it)."""

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""

    def as_forbidden_call(self) -> ForbiddenCall:
        """The dataset model the shared matcher (``scoring.constraints``) takes."""
        return ForbiddenCall(self.name, dict(self.arguments), self.reason)


class InjectionSettings(_Frozen):
    """Injection signals: canary strings planted in context, and the attacker's calls."""

    canaries: tuple[str, ...] = ()
    forbidden_calls: tuple[ForbiddenCallSettings, ...] = ()


class TrajectorySettings(_Frozen):
    """Loop and length limits of a run."""

    max_tool_calls: int = Field(default=12, ge=1)
    max_repeats: int = Field(default=3, ge=1)


class BudgetSettings(_Frozen):
    """Latency and cost budgets (None: no budget). Cost uses the versioned price table."""

    max_span_s: float | None = Field(default=60.0, gt=0)
    max_run_s: float | None = Field(default=120.0, gt=0)
    max_cost_usd: float | None = Field(default=None, gt=0)
    price_table: Path | None = None


class SessionSettings(_Frozen):
    """Live conversations: when one without an end marker has ended, and what is watched.

    ``idle_timeout_s``: seconds without a turn after which a session has ended (its session
    detectors then run; ``traces.sessions.end``). ``repeated_question_times``: how often the
    user must ask the same thing for ``repeated_question`` to fire.
    """

    idle_timeout_s: float = Field(default=DEFAULT_IDLE_TIMEOUT_S, gt=0)
    repeated_question_times: int = Field(default=3, ge=2)


class DetectorConfig(_Frozen):
    """Every detector setting, and the quiet period after a root ends before a trace is judged."""

    policy: PolicySettings = PolicySettings()
    injection: InjectionSettings = InjectionSettings()
    trajectory: TrajectorySettings = TrajectorySettings()
    budgets: BudgetSettings = BudgetSettings()
    quiet_period_s: float = Field(default=2.0, ge=0)
    sessions: SessionSettings = SessionSettings()


def load_detector_config(path: Path | None) -> DetectorConfig:
    """The settings in the YAML file at ``path`` (the defaults when None)."""
    if path is None:
        return DetectorConfig()
    try:
        document = yaml.safe_load(read_bounded(path)) or {}
    except OSError as exc:
        reason = exc.strerror or exc
        raise DetectorConfigError(f"{path}: cannot read detector settings: {reason}") from None
    except yaml.YAMLError as exc:
        raise DetectorConfigError(f"{path}: cannot read detector settings: {exc}") from None
    if not isinstance(document, dict):
        raise DetectorConfigError(f"{path}: detector settings must be a mapping")
    try:
        return DetectorConfig.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise DetectorConfigError(f"{path}: {where}: {first['msg']}") from None
