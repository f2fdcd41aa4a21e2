"""Per-metric aggregates over a build's scores: mean, n, unscored, and pass^k for binary metrics.

pass^k is the probability that all k runs of an item pass (tau-bench): with ``n`` scored runs
of an item of which ``c`` passed, the unbiased estimate is C(c, k) / C(n, k), averaged over
the items that have at least k scored runs. It is reported only for binary metrics (every
scored value 0 or 1); a pass is a value of 1, or of 0 for a metric whose scorer declares lower
values better (``scoring.direction``).
"""

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from math import comb
from typing import Any

from eval_pipeline.scoring.direction import lower_is_better
from eval_pipeline.scoring.score import Score, ScoreStatus


@dataclass(frozen=True)
class MetricSummary:
    """Aggregates of one metric over a build.

    ``n`` counts scored rows; ``unscored`` and ``errors`` count the missing ones (the gate treats
    both as missing); ``not_applicable`` counts the rows the metric does not apply to (neither
    in the mean nor missing). ``pass_k`` maps k to pass^k (empty for non-binary metrics).
    """

    metric_id: str
    mean: float | None
    n: int
    unscored: int
    errors: int
    items: int
    pass_k: dict[int, float] = field(default_factory=dict)
    not_applicable: int = 0

    def to_json(self) -> dict[str, Any]:
        """The summary's JSON form (the ``summary`` command's contract)."""
        return {
            "mean": self.mean,
            "n": self.n,
            "unscored": self.unscored,
            "errors": self.errors,
            "items": self.items,
            "not_applicable": self.not_applicable,
            "pass^k": {str(k): v for k, v in sorted(self.pass_k.items())},
        }


def pass_hat_k(counts: Iterable[tuple[int, int]], k: int) -> float | None:
    """pass^k from per-item (scored runs n, passes c); None when no item has k runs."""
    ratios = [comb(c, k) / comb(n, k) for n, c in counts if n >= k]
    return sum(ratios) / len(ratios) if ratios else None


def summarise(scores: Iterable[Score]) -> dict[str, MetricSummary]:
    """Aggregate scores by metric id (see the module docstring)."""
    values: dict[str, list[float]] = defaultdict(list)
    missing: dict[str, list[str]] = defaultdict(list)
    per_item: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    items: dict[str, set[str]] = defaultdict(set)
    for score in scores:
        item = score.item_id or score.trace_id or ""
        items[score.metric_id].add(item)
        if score.status == ScoreStatus.SCORED and score.value is not None:
            values[score.metric_id].append(score.value)
            per_item[score.metric_id][item].append(score.value)
        else:
            missing[score.metric_id].append(score.status)
    out = {}
    for metric in sorted(set(values) | set(missing)):
        scored = values.get(metric, [])
        pass_k: dict[int, float] = {}
        if scored and all(v in (0.0, 1.0) for v in scored):
            passing = 0.0 if lower_is_better(metric) else 1.0
            counts = [
                (len(v), sum(1 for x in v if x == passing)) for v in per_item[metric].values()
            ]
            for k in range(1, max(n for n, _ in counts) + 1):
                estimate = pass_hat_k(counts, k)
                if estimate is not None:
                    pass_k[k] = estimate
        statuses = missing.get(metric, [])
        out[metric] = MetricSummary(
            metric_id=metric,
            mean=sum(scored) / len(scored) if scored else None,
            n=len(scored),
            unscored=statuses.count(ScoreStatus.UNSCORED),
            errors=statuses.count(ScoreStatus.ERROR),
            not_applicable=statuses.count(ScoreStatus.NOT_APPLICABLE),
            items=len(items[metric]),
            pass_k=pass_k,
        )
    return out
