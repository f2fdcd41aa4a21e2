"""Builders of small score frames for the gate tests."""

from collections.abc import Iterable

import pandas as pd


def score_rows(
    metric_id: str,
    values: Iterable[float | None],
    *,
    runs_per_item: int = 1,
    status: str | None = None,
    **columns: object,
) -> list[dict[str, object]]:
    """Long rows: value k goes to item ``k // runs_per_item``, run ``k % runs_per_item``."""
    rows = []
    for k, value in enumerate(values):
        item, run = divmod(k, runs_per_item)
        row: dict[str, object] = {
            "item_id": f"item{item:03d}",
            "run_index": run,
            "metric_id": metric_id,
            "value": value,
            "trace_id": f"trace-{metric_id}-{item}-{run}",
        }
        if status is not None:
            row["status"] = status if value is None else "scored"
        row.update(columns)
        rows.append(row)
    return rows


def frame(*groups: list[dict[str, object]]) -> pd.DataFrame:
    """One frame from several ``score_rows`` lists."""
    return pd.DataFrame([row for group in groups for row in group])
