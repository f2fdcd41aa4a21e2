"""CLI: ``scores``, a build's long score rows out (docs/DESIGN.md section 9, **contract**).

``eval-pipeline scores --build B --format csv|json|parquet [--output F]`` exports the rows with
everything ``gate --candidate-scores`` needs to give the store's verdict (per-run latency and
cost, scorer version, judge, dataset), then one column per slice. Registered with ``score``
and ``summary`` (``cli.scoring.COMMANDS``).
"""

import csv
import io
import json
from pathlib import Path
from typing import Any

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import SCORE_COLUMNS

LONG_COLUMNS = SCORE_COLUMNS[: SCORE_COLUMNS.index("span_ids") + 1]
"""The contract's long-row columns (build ... span_ids)."""
EXPORT_COLUMNS = (
    *LONG_COLUMNS,
    "scorer_id",
    "scorer_version",
    "judge_fingerprint",
    "judge_backend",
    "dataset",
    "dataset_version",
    "latency_s",
    "cost_usd",
    "judge_calls",
)
"""Columns of a ``scores`` export, in order; the build's slice columns follow. ``judge_calls``
(the judge calls that made the row, ``<judge trace id>/<span id>``) is a list like ``span_ids``."""


def _export_frame(build: str) -> Any:
    """The build's long rows with the export columns, then its slice columns."""
    import pandas as pd

    from eval_pipeline.scoring.store import ScoreStore

    frame = ScoreStore(current_home().store).read_frame(build)
    if frame.empty:
        raise InputError(f"build {build}: no scores stored (run `eval-pipeline score` first)")
    for column in ("latency_s", "cost_usd"):
        if column not in frame.columns:
            frame[column] = float("nan")
    slices = sorted(set(frame.columns) - set(SCORE_COLUMNS) - set(EXPORT_COLUMNS))
    out = frame[[*EXPORT_COLUMNS, *slices]].copy()
    out["scorer_version"] = out["scorer_version"].astype("int64")
    return out.astype({c: "object" for c in slices}).where(pd.notna(out), None)


def _records(frame: Any) -> list[dict[str, Any]]:
    """JSON-safe rows: None for every missing value (a float column's NaN too), span ids as lists.

    ``where(notna, None)`` on a float column keeps NaN (the column stays float): the frame is
    made ``object`` first, so CSV writes an empty cell and JSON ``null``, never ``nan``/``NaN``.
    """
    plain = frame.astype(object)
    rows: list[dict[str, Any]] = plain.where(frame.notna(), None).to_dict(orient="records")
    for row in rows:
        row["span_ids"] = list(row["span_ids"] or [])
        row["judge_calls"] = list(row["judge_calls"] or [])
    return rows


def _csv(frame: Any) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(frame.columns), lineterminator="\n")
    writer.writeheader()
    for row in _records(frame):
        writer.writerow(
            {
                **{k: "" if v is None else v for k, v in row.items()},
                "span_ids": " ".join(row["span_ids"]),
                "judge_calls": " ".join(row["judge_calls"]),
            }
        )
    return buffer.getvalue()


@click.command("scores")
@click.option("--build", required=True)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "json", "parquet"]),
    default="csv",
    show_default=True,
)
@click.option(
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the export here instead of stdout (required for parquet).",
)
def scores(build: str, fmt: str, output: Path | None) -> None:
    """Export a build's long score rows (one per item x run x metric), gate-ready.

    Columns: build, item_id, run_index, metric_id, value, status, reason, trace_id, span_ids,
    scorer_id, scorer_version, judge_fingerprint, judge_backend, dataset, dataset_version,
    latency_s, cost_usd, judge_calls, then one column per slice.
    """
    if fmt == "parquet" and output is None:
        raise InputError("--format parquet writes a binary file: give --output FILE")
    frame = _export_frame(build)
    if fmt == "parquet":
        assert output is not None
        frame.to_parquet(output, index=False)
        click.echo(f"build {build}: {len(frame)} score rows written to {output}", err=True)
        return
    text = (
        json.dumps(_records(frame), indent=2, default=str) + "\n" if fmt == "json" else _csv(frame)
    )
    if output is None:
        click.echo(text, nl=False)
        return
    output.write_text(text, encoding="utf-8")
    click.echo(f"build {build}: {len(frame)} score rows written to {output}", err=True)
