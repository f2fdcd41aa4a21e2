"""Suite configuration (the reference's YAML shape): datasets, metrics, judge, budgets, slices.

```yaml
suite: support-agent
risk_tier: medium
datasets:
  - name: golden/support-v7          # pinned: the trailing -vN is the version
  - name: regression/support
    version: 2026q3                  # or pin with an explicit version key
runs_per_item: 3
judge: {model: ..., rubric_version: ..., calibration_set: ..., base_url: ...}  # base_url optional
  # or own labels, not a shipped set: calibration: {labels: labels.csv, task: faithfulness}
  # optional: max_concurrency: 16, requests_per_minute: 500, tokens_per_minute: 200000
redaction_policy: keep-tools         # runner spans: default | keep-tools | a policy file
metrics:
  - {id: task_completion, threshold: 0.85, max_regression: 0.02}
  - {id: step_efficiency, args: {max_extra_steps: 2}}   # args: the scorer's arguments
  - {id: refund_stated, scorer: "my_metrics:RefundStated", threshold: 0.9}   # custom, Python
  - {id: refund_explained, rubric: rubrics/refund.yaml, threshold: 0.8}      # custom, judged
budgets: {p95_latency_s: 12, cost_per_task_usd: 0.08}
slices: [intent, language, tool]
sessions: {idle_timeout_s: 1800}     # a conversation without an end marker ends after this idle
```

``load_suite`` validates once, at the edge: every problem is reported as ``path:line: field:
message``. A metric without ``threshold`` or ``max_regression`` takes its risk tier's default, so
``SuiteConfig.metrics`` always carries numbers. A metric with ``scorer`` (``module:Class``) or
``rubric`` (a file relative to the suite) is the suite's own (``suites.custom_metrics``): it is
loaded and defined for the process while the suite is read, and a declaration that cannot be
loaded is an issue on its line like any other.

A suite that only gates score files is rules alone, as the reference's gate is: ``datasets``
(nothing to run) and ``judge`` (nothing to score) may be left out and ``runs_per_item``
defaults to 1. The stages that need them say so where they resolve them (a suite with no
datasets cannot run or score a build; a judge-based metric cannot be scored without a judge),
and the gate warns "judge unknown: calibration not applied" on a judge-based metric of a suite
without a judge, or fails it where the tier forbids unknown judges.
"""

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval_pipeline.bounded_read import read_bounded
from eval_pipeline.suites.calibration_labels import resolve_calibration_labels
from eval_pipeline.suites.custom_metrics import define_custom_metrics
from eval_pipeline.suites.errors import ConfigError, IssueList
from eval_pipeline.suites.risk import RiskPolicy, load_risk_policy
from eval_pipeline.suites.suite_rules import check_budgets, pin_datasets, resolve_metrics
from eval_pipeline.suites.yaml_source import MAX_BYTES, YamlSourceError, load_yaml
from eval_pipeline.traces.sessions.end import DEFAULT_IDLE_TIMEOUT_S

if TYPE_CHECKING:
    from eval_pipeline.datasets.store import DatasetStore

Fraction = Annotated[float, Field(strict=True, ge=0.0, le=1.0)]
Positive = Annotated[float, Field(strict=True, gt=0.0)]
Name = Annotated[str, Field(strict=True, min_length=1, pattern=r"^[a-z0-9][a-z0-9_.-]*$")]
Text = Annotated[str, Field(strict=True, min_length=1)]


class SuiteError(ConfigError):
    """A suite file is invalid; the message lists ``path:line: field: message`` per problem."""


class DatasetRef(BaseModel):
    """A pinned dataset version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Annotated[str, Field(strict=True, pattern=r"^[a-z0-9][a-z0-9_.-]*(/[a-z0-9_.-]+)+$")]
    version: Annotated[str, Field(strict=True, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]

    @property
    def ref(self) -> str:
        """``name@version``."""
        return f"{self.name}@{self.version}"


class CalibrationLabels(BaseModel):
    """A labels file calibrating the judge (``suites.calibration_labels``), resolved absolute."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    labels: Text
    task: Text
    """The rubric task the human labels grade (e.g. ``faithfulness``)."""


class JudgeConfig(BaseModel):
    """The judge used by judge-based metrics, pinned by model and rubric version."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: Text
    rubric_version: Text
    calibration_set: Text
    """A shipped set's name, or (filled in from ``calibration``) the labels file's set name."""
    calibration: CalibrationLabels | None = None
    """The suite's own labels file, instead of a shipped set."""
    base_url: Text | None = None
    """The OpenAI-compatible endpoint of a named model (else ``EVAL_PIPELINE_JUDGE_BASE_URL``)."""
    max_concurrency: Annotated[int, Field(strict=True, ge=1, le=1024)] = 16
    """Requests to the endpoint in flight at once, across the metrics and runs of a build."""
    requests_per_minute: Positive | None = None
    """Requests started per minute at most (None: no limit beyond ``max_concurrency``)."""
    tokens_per_minute: Positive | None = None
    """Estimated tokens (prompt + ``max_tokens``) per minute at most (None: no limit)."""


class MetricSpec(BaseModel):
    """A gated metric: absolute floor and allowed regression against the baseline."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: Text
    threshold: Fraction
    max_regression: Fraction
    args: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments of the metric's scorer (recorded with every score row)."""
    scorer: Text | None = None
    """A custom Python scorer, ``module:Class`` (the suite's folder first, else installed)."""
    rubric: Text | None = None
    """A custom judged metric's rubric file (absolute once loaded)."""


class Budgets(BaseModel):
    """Operational budgets; units are in the key (seconds, US dollars)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    p95_latency_s: Positive | None = None
    cost_per_task_usd: Positive | None = None


class SessionsConfig(BaseModel):
    """How the suite's conversations are read (``traces.sessions``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    idle_timeout_s: Positive = DEFAULT_IDLE_TIMEOUT_S
    """Seconds without a turn after which a session without an end marker has ended."""


class SuiteConfig(BaseModel):
    """A validated suite (see the module docstring for the YAML shape)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    suite: Name
    risk_tier: Text
    datasets: tuple[DatasetRef, ...] = ()
    runs_per_item: Annotated[int, Field(strict=True, ge=1)] = 1
    judge: JudgeConfig | None = None
    redaction_policy: Text = "default"
    metrics: Annotated[tuple[MetricSpec, ...], Field(min_length=1)]
    budgets: Budgets = Budgets()
    slices: tuple[Name, ...] = ()
    sessions: SessionsConfig = SessionsConfig()
    source: str = Field(default="", exclude=True)
    fingerprint: str = Field(default="", exclude=True)

    @property
    def metric_ids(self) -> tuple[str, ...]:
        """Gated metric ids, in file order."""
        return tuple(m.id for m in self.metrics)

    def metric(self, metric_id: str) -> MetricSpec:
        """The spec of one gated metric."""
        for spec in self.metrics:
            if spec.id == metric_id:
                return spec
        raise KeyError(f"suite {self.suite}: metric {metric_id!r} is not gated")

    @property
    def version(self) -> str:
        """The suite version recorded in the eval context: a hash of the file's bytes."""
        return self.fingerprint


def _check_context(config: SuiteConfig, issues: IssueList, store: "DatasetStore | None") -> None:
    from eval_pipeline.datasets.store import NOT_PUBLISHED

    seen: set[str] = set()
    for index, ref in enumerate(config.datasets):
        where = ("datasets", index, "name")
        if ref.ref in seen:
            issues.add(where, f"dataset {ref.ref} is listed twice")
        seen.add(ref.ref)
        if store is not None and not issues.has(where) and not store.exists(ref.name, ref.version):
            known = store.versions(ref.name)
            hint = f"published versions: {', '.join(known)}" if known else NOT_PUBLISHED
            issues.add(where, f"dataset {ref.ref} is not published ({hint})")
    if len(set(config.slices)) != len(config.slices):
        issues.add(("slices",), "slice keys must be unique")


def load_suite(
    path: Path,
    *,
    store: "DatasetStore | None" = None,
    policy: RiskPolicy | None = None,
) -> SuiteConfig:
    """Read and validate a suite file.

    Args:
        path: The suite YAML.
        store: When given, every pinned dataset version must be published in it.
        policy: The risk-tier policy (the shipped default when None).

    Raises:
        SuiteError: listing every problem as ``path:line: field: message``.
    """
    path = Path(path)
    try:
        source = load_yaml(path)
    except YamlSourceError as exc:
        raise SuiteError.from_yaml(exc) from exc
    issues = IssueList(source)
    if not isinstance(source.data, dict):
        issues.add((), "expected a mapping with suite, risk_tier, datasets, metrics, ...")
        issues.raise_if_any(SuiteError)
    policy = policy or load_risk_policy()
    raw = dict(source.data)
    tier = raw.get("risk_tier")
    if isinstance(tier, str) and tier not in policy.tiers:
        issues.add(
            ("risk_tier",), f"unknown risk tier {tier!r}; known: " + ", ".join(policy.tier_names)
        )
    for internal in ("source", "fingerprint"):
        if internal in raw:
            issues.add((internal,), "unknown key")
            del raw[internal]
    pin_datasets(raw, issues)
    resolve_calibration_labels(raw, path.parent, issues)
    check_budgets(raw, issues)
    define_custom_metrics(raw, path, issues)
    resolve_metrics(raw, policy, issues)
    fingerprint = hashlib.sha256(read_bounded(path, MAX_BYTES)).hexdigest()[:12]
    try:
        config = SuiteConfig.model_validate(
            {**raw, "source": str(path), "fingerprint": fingerprint}
        )
    except ValidationError as exc:
        issues.add_pydantic([dict(e) for e in exc.errors()])
        issues.raise_if_any(SuiteError)
        raise
    _check_context(config, issues, store)
    issues.raise_if_any(SuiteError)
    return config
