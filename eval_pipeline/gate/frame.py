"""Score frames: validate a long scores table and normalise it for the gate.

Input (docs/DESIGN.md section 9): one row per item x run x metric with at least ``item_id,
run_index, metric_id, value``; optional ``status`` (scored/unscored/error/not_applicable),
``reason``, ``trace_id``, ``latency_s``, ``cost_usd`` (per run, repeated on that run's rows)
and slice columns named ``<slice>`` or ``slice.<slice>``. Bad input raises
:class:`ScoreFrameError` naming the row and column; nothing is coerced silently (a null is
never turned into 0 or 1).
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd

from eval_pipeline.gate.codes import Codes
from eval_pipeline.gate.frame_error import ScoreFrameError, first_bad
from eval_pipeline.gate.versions import VERSION_SUFFIX, scorer_versions

REQUIRED_COLUMNS = ("item_id", "run_index", "metric_id", "value")
NOT_APPLICABLE = "not_applicable"
STATUSES = frozenset({"scored", "unscored", "error", NOT_APPLICABLE})
NO_VALUE = frozenset({"unscored", "error", NOT_APPLICABLE})
"""Statuses whose rows carry no value."""
MAX_RUN_INDEX = 2**31 - 1
"""Largest run index accepted: beyond it a number is a corrupted cell, not a run."""
MISSING_NULL = "null"
"""Status given to a row whose value is null although it claims (or implies) a score."""


def _numeric(frame: pd.DataFrame, column: str, source: str) -> "pd.Series[float]":
    raw = frame[column]
    if pd.api.types.is_numeric_dtype(raw) and not pd.api.types.is_bool_dtype(raw):
        return raw.astype("float64")
    numbers = pd.to_numeric(raw, errors="coerce")
    suspect = numbers.isna() & raw.notna()
    bad = suspect & (raw.astype(str).str.strip() != "") if suspect.any() else suspect
    if bad.any():
        i = first_bad(bad)
        raise ScoreFrameError(source, f"{raw.iloc[i]!r} is not a number", row=i + 1, column=column)
    return numbers.astype("float64")


@dataclass(frozen=True)
class _Metrics:
    """Each row's suite metric (code into the suite's ids) and the version its id carries."""

    codes: np.ndarray
    names: np.ndarray
    suffix: np.ndarray
    raw: np.ndarray


def _metric_ids(raw: "pd.Series[str]", known: tuple[str, ...], source: str) -> _Metrics:
    distinct = Codes.of(raw)
    if distinct.missing.any():
        i = first_bad(pd.Series(distinct.missing))
        raise ScoreFrameError(source, "metric_id is empty", row=i + 1, column="metric_id")
    position = {metric: j for j, metric in enumerate(known)}
    texts = [str(v) for v in distinct.values]
    # Scores may carry the scorer's version (``tool_correctness@1``); the suite names the metric.
    stripped = [t if t in position else VERSION_SUFFIX.sub("", t) for t in texts]
    unknown = np.array([t not in position for t in stripped], dtype=bool)
    row = distinct.first_row(unknown)
    if row is not None:
        raise ScoreFrameError(
            source,
            f"unknown metric {texts[int(distinct.codes[row])]!r}: not in the suite "
            f"(suite metrics: {', '.join(known)})",
            row=row + 1,
            column="metric_id",
        )
    versions = [
        float(match.group(1))
        if t not in position and (match := VERSION_SUFFIX.search(t))
        else np.nan
        for t in texts
    ]
    return _Metrics(
        codes=distinct.take(np.array([position[t] for t in stripped], dtype=np.int64), -1),
        names=distinct.take(np.array(stripped, dtype=object), ""),
        suffix=distinct.take(np.array(versions, dtype=np.float64), np.nan),
        raw=distinct.strings(""),
    )


def _statuses(frame: pd.DataFrame, value: "pd.Series[float]", source: str) -> np.ndarray:
    missing_value = value.isna().to_numpy()
    if "status" not in frame.columns:
        return np.where(missing_value, MISSING_NULL, "scored").astype(object)
    distinct = Codes.of(frame["status"])
    cleaned = [str(v).strip().lower() for v in distinct.values]
    row = distinct.first_row(np.array([c not in STATUSES for c in cleaned], dtype=bool))
    if row is not None:
        raise ScoreFrameError(
            source,
            f"status {frame['status'].iloc[row]!r} is not one of {sorted(STATUSES)}",
            row=row + 1,
            column="status",
        )
    status = distinct.take(np.array(cleaned, dtype=object), "scored")
    carries = np.isin(status, list(NO_VALUE)) & ~missing_value
    if carries.any():
        i = int(np.flatnonzero(carries)[0])
        raise ScoreFrameError(
            source, f"a {status[i]} row carries a value", row=i + 1, column="value"
        )
    status[(status == "scored") & missing_value] = MISSING_NULL
    return status


def _objects(values: np.ndarray) -> "pd.Series[str]":
    """Plain Python strings, kept as such.

    pandas would infer Arrow-backed strings, which are far slower to group and iterate.
    """
    return pd.Series(values, dtype=object)


def slice_column(frame: pd.DataFrame, name: str) -> str | None:
    """The column holding slice ``name`` (``name`` or ``slice.name``), or None."""
    for column in (name, f"slice.{name}"):
        if column in frame.columns:
            return column
    return None


def normalise_scores(
    frame: pd.DataFrame,
    *,
    metric_ids: tuple[str, ...],
    slices: tuple[str, ...] = (),
    source: str = "scores",
    require_slices: bool = True,
) -> pd.DataFrame:
    """Validate a long scores table and return it normalised.

    Args:
        frame: The raw table.
        metric_ids: The suite's metrics; any other metric is an error.
        slices: Slice names the suite reports on.
        source: Name used in error messages (a file name).
        require_slices: A missing slice column is an error (False: it is left out).

    Returns:
        Columns ``item_id`` (str), ``run_index`` (int), ``metric_id`` (suite id),
        ``metric_code`` (its position in ``metric_ids``), ``value``
        (float, NaN unless scored), ``status`` (scored/unscored/error/not_applicable/null),
        ``scorer_version`` (float, NaN when the table does not say; see ``versions``),
        ``reason`` (str, "" when absent), ``trace_id``, ``latency_s``, ``cost_usd`` (float, NaN
        when absent) and one str column per slice.

    Raises:
        ScoreFrameError: Missing column, non-numeric or out-of-range value, bad run index,
            unknown metric or status, or a duplicated item x run x metric.
    """
    frame = frame.reset_index(drop=True)
    for column in REQUIRED_COLUMNS:
        if column not in frame.columns:
            raise ScoreFrameError(
                source,
                f"missing column {column!r} (has: {', '.join(map(str, frame.columns))})",
                row=None,
                column=column,
            )
    item = frame["item_id"]
    if item.isna().any():
        i = first_bad(item.isna())
        raise ScoreFrameError(source, "item_id is empty", row=i + 1, column="item_id")
    run = _numeric(frame, "run_index", source)
    bad_run = run.isna() | (run % 1 != 0) | (run < 0) | (run > MAX_RUN_INDEX)
    if bad_run.any():
        i = first_bad(bad_run)
        raise ScoreFrameError(
            source,
            f"{frame['run_index'].iloc[i]!r} is not a run index "
            f"(an integer from 0 to {MAX_RUN_INDEX})",
            row=i + 1,
            column="run_index",
        )
    metric = _metric_ids(frame["metric_id"], metric_ids, source)
    value = _numeric(frame, "value", source)
    outside = value.notna() & ((value < 0.0) | (value > 1.0))
    if outside.any():
        i = first_bad(outside)
        raise ScoreFrameError(
            source, f"value {value.iloc[i]} is outside [0, 1]", row=i + 1, column="value"
        )
    items = Codes.of(item)
    out = pd.DataFrame(
        {
            "item_id": _objects(items.strings("")),
            "run_index": run.to_numpy().astype("int64"),
            "metric_id": _objects(metric.names),
            "metric_code": metric.codes,
            "value": value.to_numpy(),
            "status": _objects(_statuses(frame, value, source)),
            "scorer_version": scorer_versions(frame, metric, source),
        }
    )
    out["trace_id"] = (
        pd.Series(frame["trace_id"].to_numpy(dtype=object), dtype=object)
        if "trace_id" in frame.columns
        else None
    )
    out["reason"] = (
        _objects(Codes.of(frame["reason"]).strings("")) if "reason" in frame.columns else ""
    )
    for column in ("latency_s", "cost_usd"):
        if column in frame.columns:
            numbers = _numeric(frame, column, source)
            if (numbers < 0).any():
                i = first_bad(numbers < 0)
                raise ScoreFrameError(source, "must not be negative", row=i + 1, column=column)
            out[column] = numbers
        else:
            out[column] = np.nan
    for name in slices:
        found = slice_column(frame, name)
        if found is None:
            if require_slices:
                raise ScoreFrameError(
                    source,
                    f"missing slice column {name!r} (the suite reports per {name})",
                    row=None,
                    column=name,
                )
            continue
        out[name] = _objects(Codes.of(frame[found]).strings("(none)"))
    runs = Codes.of(out["run_index"])
    key = (items.codes * max(len(runs.values), 1) + runs.codes) * len(metric_ids) + metric.codes
    duplicated = pd.Series(key).duplicated()
    if duplicated.any():
        i = first_bad(duplicated)
        raise ScoreFrameError(
            source,
            f"duplicate score for item {out['item_id'].iloc[i]!r} run {out['run_index'].iloc[i]} "
            f"metric {out['metric_id'].iloc[i]!r}",
            row=i + 1,
            column="metric_id",
        )
    return out
