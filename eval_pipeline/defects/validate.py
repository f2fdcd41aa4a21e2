"""Seeded-defect validation of a gate: every defect must fail on the metric it targets.

Each seeded build is run, scored and gated against the baseline. The validation passes only
when (1) every defect's targeted metric (or budget) has the verdict ``fail``, (2) the improved
candidate passes the gate, and (3) an A/A control, the baseline rerun with new seeds, passes
it. A defect that passes means the metric or its threshold is wrong (the reference's rule).
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

BUDGET_TARGETS = frozenset({"p95_latency_s", "cost_per_task_usd"})


@dataclass(frozen=True)
class SeededBuild:
    """A build in the validation: its id, its params for the runner, and what it targets."""

    build: str
    params: Mapping[str, Any] = field(default_factory=dict)
    target_metric: str | None = None
    description: str = ""
    seed_base: str | None = None


@dataclass(frozen=True)
class DefectResult:
    """The gate's answer on one seeded build."""

    build: str
    target_metric: str | None
    description: str
    target_verdict: str | None
    gate_verdict: str
    blocking: bool
    failing_metrics: tuple[str, ...]
    target_reason: str
    expected: str
    ok: bool
    failed_runs: int
    verdicts: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON-safe form."""
        return {
            "build": self.build,
            "target_metric": self.target_metric,
            "description": self.description,
            "target_verdict": self.target_verdict,
            "gate_verdict": self.gate_verdict,
            "blocking": self.blocking,
            "failing_metrics": list(self.failing_metrics),
            "reason": self.target_reason,
            "expected": self.expected,
            "ok": self.ok,
            "failed_runs": self.failed_runs,
            "verdicts": dict(self.verdicts),
        }


@dataclass(frozen=True)
class ValidationReport:
    """Every defect's result plus the two controls."""

    suite: str
    baseline: str
    items: int
    runs_per_item: int
    defects: tuple[DefectResult, ...]
    candidate: DefectResult | None
    aa_control: DefectResult | None
    reports: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Every defect caught, the candidate and the A/A control passed."""
        controls = [c for c in (self.candidate, self.aa_control) if c is not None]
        return (
            all(d.ok for d in self.defects) and all(c.ok for c in controls) and len(controls) == 2
        )

    @property
    def exit_code(self) -> int:
        """0 when ``ok``, else 1."""
        return 0 if self.ok else 1

    def to_json(self) -> dict[str, Any]:
        """The ``eval-pipeline defects --format json`` document."""
        return {
            "suite": self.suite,
            "baseline": self.baseline,
            "items": self.items,
            "runs_per_item": self.runs_per_item,
            "ok": self.ok,
            "defects": [d.to_json() for d in self.defects],
            "candidate": self.candidate.to_json() if self.candidate else None,
            "aa_control": self.aa_control.to_json() if self.aa_control else None,
        }

    def table(self) -> str:
        """The defects -> failing metric table, in Markdown."""
        lines = [
            "| seeded build | targeted metric | verdict on it | gate | also failing |",
            "|---|---|---|---|---|",
        ]
        for result in (*self.defects, *(c for c in (self.candidate, self.aa_control) if c)):
            others = [m for m in result.failing_metrics if m != result.target_metric]
            lines.append(
                f"| {result.build} | {result.target_metric or '(control)'} | "
                f"{result.target_verdict or '-'} | {result.gate_verdict} | "
                f"{', '.join(others) or '-'} |"
            )
        return "\n".join(lines)


Evaluate = Callable[["SeededBuild"], tuple[Any, int]]
"""Run, score and gate one seeded build against the baseline: (its ``GateReport``, failed runs)."""


def judge_build(
    seeded: SeededBuild, failed_runs: int, report: Any, *, expect_pass: bool
) -> DefectResult:
    """Read the gate report of one seeded build against what it should show.

    A defect is caught when its targeted metric or budget has the verdict ``fail``; a control
    (``expect_pass``) is fine when the gate does not block (an ``inconclusive`` the risk tier
    lets pass with a warning counts as passing, as it does for a release).
    """
    failing = tuple(
        [m.metric_id for m in report.metrics if m.verdict == "fail"]
        + [b.budget for b in report.budgets if b.verdict == "fail"]
    )
    target = seeded.target_metric
    verdict, reason = None, ""
    if target is not None:
        decisions = [m for m in report.metrics if m.metric_id == target] + [
            b for b in report.budgets if getattr(b, "budget", None) == target
        ]
        if decisions:
            verdict, reason = decisions[0].verdict, decisions[0].reason
        else:
            reason = f"{target} is not gated by the suite"
    if expect_pass:
        ok, expected = not report.blocking, "gate passes"
    else:
        ok, expected = verdict == "fail", f"{target} fails"
    return DefectResult(
        build=seeded.build,
        target_metric=target,
        description=seeded.description,
        target_verdict=verdict,
        gate_verdict=str(report.verdict),
        blocking=bool(report.blocking),
        failing_metrics=failing,
        target_reason=reason,
        expected=expected,
        ok=ok,
        failed_runs=failed_runs,
        verdicts={
            **{m.metric_id: str(m.verdict) for m in report.metrics},
            **{b.budget: str(b.verdict) for b in report.budgets},
        },
    )


def validate_defects(
    evaluate: Evaluate,
    *,
    suite: str,
    baseline: SeededBuild,
    candidate: SeededBuild | None,
    defects: Sequence[SeededBuild],
    aa_control: SeededBuild | None,
    items: int,
    runs_per_item: int,
) -> ValidationReport:
    """Gate every seeded build against the baseline and read each verdict (module docstring).

    ``evaluate`` runs, scores and gates one build; the baseline must already be scored.
    """
    reports: dict[str, Any] = {}

    def check(seeded: SeededBuild, *, expect_pass: bool) -> DefectResult:
        report, failed_runs = evaluate(seeded)
        reports[seeded.build] = report
        return judge_build(seeded, failed_runs, report, expect_pass=expect_pass)

    results = tuple(check(d, expect_pass=False) for d in defects)
    return ValidationReport(
        suite=suite,
        baseline=baseline.build,
        items=items,
        runs_per_item=runs_per_item,
        defects=results,
        candidate=check(candidate, expect_pass=True) if candidate else None,
        aa_control=check(aa_control, expect_pass=True) if aa_control else None,
        reports=reports,
    )
