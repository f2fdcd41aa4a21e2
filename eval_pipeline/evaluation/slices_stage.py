"""Stage 3: per-slice aggregates of a build's scores, as Markdown tables."""

from typing import Any

import pandas as pd

from eval_pipeline.evaluation.stage import Stage
from eval_pipeline.scoring.score import ScoreStatus
from eval_pipeline.scoring.store import ScoreStore


def markdown_table(frame: pd.DataFrame) -> str:
    """A GitHub-flavoured Markdown table of ``frame`` (floats to 3 decimals)."""
    if frame.empty:
        return "_no rows_"
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    lines = [header, rule]
    for row in frame.itertuples(index=False):
        cells = [f"{v:.3f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def slice_frame(scores: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Mean, n scored, missing and not applicable per metric x value of one slice dimension."""
    columns = ["metric_id", dimension, "mean", "n", "missing", "not_applicable"]
    if dimension not in scores.columns:
        return pd.DataFrame(columns=columns)
    frame = scores.assign(
        scored=scores["status"] == ScoreStatus.SCORED,
        missing=scores["status"].isin(ScoreStatus.MISSING),
        not_applicable=scores["status"] == ScoreStatus.NOT_APPLICABLE,
    )
    grouped = frame.groupby(["metric_id", dimension], dropna=False)
    table = grouped.agg(
        mean=("value", "mean"),
        n=("scored", "sum"),
        missing=("missing", "sum"),
        not_applicable=("not_applicable", "sum"),
    ).reset_index()
    for count in ("n", "missing", "not_applicable"):
        table[count] = table[count].astype(int)
    return table.sort_values(["metric_id", dimension]).reset_index(drop=True)


def slice_summary(stage: Stage) -> dict[str, Any]:
    """Metadata for ``slice_scores``: one Markdown table per slice dimension, plus counts."""
    scores = ScoreStore(stage.home.store).read_frame(stage.build)
    meta: dict[str, Any] = {
        "build": stage.build,
        "score_rows": len(scores),
        "slice_dimensions": list(stage.suite.slices),
    }
    for dimension in stage.suite.slices:
        table = slice_frame(scores, dimension)
        meta[f"slice_{dimension}_md"] = markdown_table(table)
        if not table.empty:
            worst = table.dropna(subset=["mean"]).sort_values("mean").head(1)
            for row in worst.itertuples(index=False):
                meta[f"lowest_{dimension}"] = (
                    f"{row.metric_id} on {dimension}={getattr(row, dimension)}: {row.mean:.3f}"
                )
    return meta
