"""The long scores table: Parquet partitioned by build, idempotent by score key.

One file per build (``<root>/scores/build=<build>/scores.parquet``); writing replaces rows with
the same (build, item_id, run_index, metric_id) and keeps the others, so rescoring is
idempotent. Per-run measurements (``latency_s``, ``cost_usd``) live beside it in
``runs.parquet`` keyed by (item_id, run_index) and are joined into ``read_frame``. The scorer's
arguments are the JSON text column ``scorer_args``; a partition written before that column
existed reads back with ``{}`` (the scorers of that time recorded no arguments), one written
before ``dataset`` / ``dataset_version`` reads back with nulls there, and one written before
``judge_calls`` with no calls (its judge calls were not recorded).
"""

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from eval_pipeline.scoring.score import SCORE_COLUMNS, Score

KEY = ("build", "item_id", "run_index", "metric_id")
"""Columns that identify a score row."""
RUN_METRICS = ("latency_s", "cost_usd")
"""Optional per-run columns joined into the frame."""

_SCHEMA = pa.schema(
    [
        ("build", pa.string()),
        ("item_id", pa.string()),
        ("run_index", pa.int64()),
        ("metric_id", pa.string()),
        ("value", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("trace_id", pa.string()),
        ("span_ids", pa.list_(pa.string())),
        ("scorer_id", pa.string()),
        ("scorer_version", pa.int64()),
        ("judge_fingerprint", pa.string()),
        ("judge_backend", pa.string()),
        ("evidence", pa.string()),
        ("slices", pa.string()),
        ("scorer_args", pa.string()),
        ("dataset", pa.string()),
        ("dataset_version", pa.string()),
        ("judge_calls", pa.list_(pa.string())),
    ]
)


def _row(score: Score, build: str) -> dict[str, Any]:
    return {
        "build": build,
        "item_id": score.item_id,
        "run_index": score.run_index,
        "metric_id": score.metric_id,
        "value": score.value,
        "status": score.status,
        "reason": score.reason,
        "trace_id": score.trace_id,
        "span_ids": list(score.span_ids),
        "scorer_id": score.scorer_id,
        "scorer_version": score.scorer_version,
        "judge_fingerprint": score.judge_fingerprint,
        "judge_backend": score.judge_backend,
        "evidence": json.dumps(score.evidence, sort_keys=True, default=str),
        "slices": json.dumps(score.slices, sort_keys=True),
        "scorer_args": _arguments_json(score),
        "dataset": score.dataset,
        "dataset_version": score.dataset_version,
        "judge_calls": list(score.judge_calls),
    }


def _arguments_json(score: Score) -> str:
    try:
        return json.dumps(score.scorer_args, sort_keys=True)
    except TypeError as exc:
        raise TypeError(
            f"{score.metric_id}: scorer arguments must be JSON-safe to be recorded: {exc}"
        ) from exc


def _score(row: dict[str, Any]) -> Score:
    return Score(
        metric_id=row["metric_id"],
        value=row["value"],
        status=row["status"],
        scorer_id=row["scorer_id"],
        scorer_version=int(row["scorer_version"]),
        reason=row["reason"] or "",
        trace_id=row["trace_id"],
        span_ids=tuple(row["span_ids"] or ()),
        build=row["build"],
        item_id=row["item_id"],
        run_index=row["run_index"],
        judge_fingerprint=row["judge_fingerprint"],
        judge_backend=row["judge_backend"],
        evidence=json.loads(row["evidence"] or "{}"),
        slices=json.loads(row["slices"] or "{}"),
        scorer_args=json.loads(row["scorer_args"] or "{}"),
        dataset=row["dataset"],
        dataset_version=row["dataset_version"],
        judge_calls=tuple(row["judge_calls"] or ()),
    )


def _read_table(path: Path) -> pa.Table:
    table = pq.read_table(path)
    if "scorer_args" not in table.column_names:
        table = table.append_column(
            "scorer_args", pa.array(["{}"] * table.num_rows, type=pa.string())
        )
    for column in ("dataset", "dataset_version"):
        if column not in table.column_names:
            table = table.append_column(column, pa.nulls(table.num_rows, type=pa.string()))
    if "judge_calls" not in table.column_names:
        table = table.append_column(
            "judge_calls", pa.array([[]] * table.num_rows, type=pa.list_(pa.string()))
        )
    return table


def _atomic_write(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


class ScoreStore:
    """Scores of every build under ``root`` (usually ``current_home().store``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def _folder(self, build: str) -> Path:
        return self.root / "scores" / f"build={quote(build, safe='')}"

    def folder(self, build: str) -> Path:
        """The build's partition folder (side files such as judge spread reports go here)."""
        return self._folder(build)

    def builds(self) -> list[str]:
        """Builds that have scores, sorted."""
        folder = self.root / "scores"
        if not folder.exists():
            return []
        return sorted(unquote(p.name[len("build=") :]) for p in folder.glob("build=*"))

    def write(
        self,
        build: str,
        scores: Sequence[Score],
        run_metrics: Mapping[tuple[str, int], Mapping[str, float]] | None = None,
    ) -> int:
        """Upsert ``scores`` into the build's partition; returns the number of rows written.

        ``run_metrics`` optionally maps (item_id, run_index) to ``latency_s`` / ``cost_usd``.
        """
        new = pd.DataFrame([_row(s, build) for s in scores], columns=list(_SCHEMA.names))
        new = new.drop_duplicates(subset=list(KEY), keep="last")
        written = len(new)
        path = self._folder(build) / "scores.parquet"
        if path.exists():
            old = _read_table(path).to_pandas()
            keys = set(map(tuple, new[list(KEY)].astype(str).itertuples(index=False)))
            keep = ~old[list(KEY)].astype(str).apply(tuple, axis=1).isin(keys)
            new = pd.concat([old[keep], new], ignore_index=True)
        new = new.sort_values(list(KEY[1:]), kind="stable", na_position="last")
        _atomic_write(pa.Table.from_pandas(new, schema=_SCHEMA, preserve_index=False), path)
        if run_metrics:
            self._write_runs(build, run_metrics)
        return written

    def _write_runs(
        self, build: str, run_metrics: Mapping[tuple[str, int], Mapping[str, float]]
    ) -> None:
        rows = [
            {"item_id": item, "run_index": index, **{m: values.get(m) for m in RUN_METRICS}}
            for (item, index), values in run_metrics.items()
        ]
        frame = pd.DataFrame(rows)
        path = self._folder(build) / "runs.parquet"
        if path.exists():
            old = pd.read_parquet(path)
            frame = pd.concat([old, frame]).drop_duplicates(["item_id", "run_index"], keep="last")
        frame = frame.dropna(axis=1, how="all")
        _atomic_write(pa.Table.from_pandas(frame, preserve_index=False), path)

    def read(self, build: str) -> list[Score]:
        """Every score of the build (empty list when the build has none)."""
        path = self._folder(build) / "scores.parquet"
        if not path.exists():
            return []
        return [_score(row) for row in _read_table(path).to_pylist()]

    def read_frame(self, build: str) -> pd.DataFrame:
        """The long table of a build's scores.

        Columns: ``SCORE_COLUMNS``, one column per slice name, and the per-run ``latency_s`` /
        ``cost_usd`` columns when they were recorded.
        """
        path = self._folder(build) / "scores.parquet"
        if not path.exists():
            return pd.DataFrame(columns=list(SCORE_COLUMNS))
        raw = _read_table(path).to_pandas()
        slices = pd.DataFrame([json.loads(s or "{}") for s in raw["slices"]], index=raw.index)
        frame = raw[list(SCORE_COLUMNS)].copy()
        for column in ("span_ids", "judge_calls"):
            frame[column] = frame[column].map(lambda ids: list(ids) if ids is not None else [])
        for name in slices.columns:
            if name not in frame.columns:
                frame[name] = slices[name]
        runs = self._folder(build) / "runs.parquet"
        if runs.exists():
            frame = frame.merge(pd.read_parquet(runs), on=["item_id", "run_index"], how="left")
        return frame
