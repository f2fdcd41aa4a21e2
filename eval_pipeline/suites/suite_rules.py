"""Rules applied to a suite file's raw values before its schema: pinning, budgets, metrics.

Each rule reads the parsed YAML, records issues against exact field paths (so the error names
the line), and normalises what the schema then validates: a ``-vN`` suffix becomes the pinned
version, and a metric without ``threshold`` or ``max_regression`` takes its risk tier's default.
"""

import re
from typing import Any

from eval_pipeline.suites.errors import IssueList
from eval_pipeline.suites.metric_ids import known_metric_ids
from eval_pipeline.suites.risk import RiskPolicy

_PINNED = re.compile(r"^(?P<name>.+)-(?P<version>v\d+)$")
BUDGET_UNITS = {"p95_latency_s": "seconds", "cost_per_task_usd": "US dollars"}


def pin_datasets(raw: dict[str, Any], issues: IssueList) -> None:
    """Split ``name: x-vN`` into name and version; an entry with neither is unpinned."""
    entries = raw.get("datasets")
    if not isinstance(entries, list):
        return
    for index, entry in enumerate(entries):
        where = ("datasets", index)
        if isinstance(entry, str):
            entry = {"name": entry}
            entries[index] = entry
        if not isinstance(entry, dict) or "name" not in entry or "version" in entry:
            continue
        match = _PINNED.match(str(entry["name"]))
        if match is None:
            issues.add(
                (*where, "name"),
                f"dataset {entry['name']!r} is not pinned: write 'name: {entry['name']}-vN' "
                "or add 'version:'",
            )
            entry["version"] = "unpinned"
        else:
            entry["name"], entry["version"] = match.group("name"), match.group("version")


def check_budgets(raw: dict[str, Any], issues: IssueList) -> None:
    """Budget keys carry their unit (``_s``, ``_usd``); values are plain numbers."""
    budgets = raw.get("budgets")
    if not isinstance(budgets, dict):
        return
    for key, value in budgets.items():
        if key not in BUDGET_UNITS:
            known = ", ".join(f"{k} ({u})" for k, u in BUDGET_UNITS.items())
            issues.add(("budgets", key), f"unknown budget or missing unit; known: {known}")
        elif isinstance(value, str):
            issues.add(
                ("budgets", key),
                f"write a plain number in {BUDGET_UNITS[key]} (the unit is in the key); "
                f"got {value!r}",
            )


def resolve_metrics(raw: dict[str, Any], policy: RiskPolicy, issues: IssueList) -> None:
    """Fill tier defaults; check metric ids, duplicates and no-regression rules."""
    metrics = raw.get("metrics")
    tier_name = raw.get("risk_tier")
    if not isinstance(metrics, list):
        return
    tier = policy.tiers.get(tier_name) if isinstance(tier_name, str) else None
    known = known_metric_ids()
    seen: set[str] = set()
    for index, metric in enumerate(metrics):
        if not isinstance(metric, dict) or not isinstance(metric.get("id"), str):
            continue
        metric_id = metric["id"]
        where = ("metrics", index)
        declared = any(issues.has((*where, kind)) for kind in ("scorer", "rubric"))
        if metric_id not in known and not declared:  # a failed declaration says why already
            issues.add(
                (*where, "id"),
                f"unknown metric id {metric_id!r}; known: " + ", ".join(sorted(known)),
            )
        if metric_id in seen:
            issues.add((*where, "id"), f"metric {metric_id!r} is listed twice")
        seen.add(metric_id)
        if tier is None:
            # The unknown tier is already reported; placeholders keep its defaults from
            # showing up as a missing field on every metric.
            metric.setdefault("threshold", 1.0)
            metric.setdefault("max_regression", 0.0)
            continue
        if "threshold" not in metric:
            default = tier.threshold_for(metric_id)
            if default is None:
                issues.add(
                    (*where, "threshold"),
                    f"required: tier {tier_name!r} has no default for {metric_id!r}",
                )
            else:
                metric["threshold"] = default
        given = metric.get("max_regression")
        if given is None:
            metric["max_regression"] = tier.max_regression_for(metric_id)
        elif not tier.may_regress(metric_id) and isinstance(given, int | float) and given > 0:
            issues.add(
                (*where, "max_regression"),
                f"tier {tier_name!r} forbids any regression of {metric_id!r}: must be 0",
            )
    if tier is not None:
        missing = [m for m in tier.required_metrics if m not in seen]
        if missing:
            issues.add(("metrics",), f"tier {tier_name!r} requires: {', '.join(missing)}")
