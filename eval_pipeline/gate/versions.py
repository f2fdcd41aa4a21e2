"""Scorer versions in a scores table: read once, checked within a table, compared across two.

A row's version is its ``scorer_version`` column or the ``@N`` suffix of its metric id
(``tool_correctness@2``); a row whose two disagree is refused. A version is bumped when a
scorer's semantics change, so one table mixing versions of a metric would pool two different
metrics (refused, naming the row), and a candidate and a baseline scored by different versions
are not comparable (the gate fails the metric, naming both versions).
"""

import re
from typing import Protocol

import numpy as np
import pandas as pd

from eval_pipeline.gate.frame_error import ScoreFrameError, first_bad

VERSION_SUFFIX = re.compile(r"@(\d+)$")


class MetricColumns(Protocol):
    """Per row: the suite metric's code and name, the version its id carries, the id as written."""

    @property
    def codes(self) -> np.ndarray: ...  # noqa: D102

    @property
    def names(self) -> np.ndarray: ...  # noqa: D102

    @property
    def suffix(self) -> np.ndarray: ...  # noqa: D102

    @property
    def raw(self) -> np.ndarray: ...  # noqa: D102


def _column(frame: pd.DataFrame, source: str) -> "pd.Series[float]":
    if "scorer_version" not in frame.columns:
        return pd.Series(np.nan, index=frame.index, dtype="float64")
    raw = frame["scorer_version"]
    numbers = pd.to_numeric(raw, errors="coerce").astype("float64")
    bad = (numbers.isna() & raw.notna() & (raw.astype(str).str.strip() != "")) | (
        numbers.notna() & ((numbers % 1 != 0) | (numbers < 1))
    )
    if bad.any():
        i = first_bad(bad)
        raise ScoreFrameError(
            source,
            f"{raw.iloc[i]!r} is not a scorer version (an integer >= 1)",
            row=i + 1,
            column="scorer_version",
        )
    return numbers


def scorer_versions(frame: pd.DataFrame, metric: MetricColumns, source: str) -> np.ndarray:
    """Each row's scorer version (NaN when the table does not say).

    ``metric`` holds each row's suite metric (``codes``, ``names``), the version its id carries
    (``suffix``) and the id as written (``raw``).

    Raises:
        ScoreFrameError: a bad ``scorer_version``, a suffix contradicting it, or a metric
            whose rows carry more than one version.
    """
    suffix = metric.suffix
    column = _column(frame, source).to_numpy()
    clash = ~np.isnan(suffix) & ~np.isnan(column) & (suffix != column)
    if clash.any():
        i = int(np.flatnonzero(clash)[0])
        raise ScoreFrameError(
            source,
            f"metric id {metric.raw[i]!r} says @{int(suffix[i])} but scorer_version "
            f"{int(column[i])}",
            row=i + 1,
            column="scorer_version",
        )
    version = np.where(np.isnan(column), suffix, column)
    known = np.flatnonzero(~np.isnan(version))
    if known.size:
        # The first version each metric's rows carry; any other on the same metric is mixed.
        metrics, first = np.unique(metric.codes[known], return_index=True)
        expected = np.full(int(metric.codes.max()) + 1, np.nan)
        expected[metrics] = version[known[first]]
        mixed = ~np.isnan(version) & (version != expected[metric.codes])
        if mixed.any():
            i = int(np.flatnonzero(mixed)[0])
            raise ScoreFrameError(
                source,
                f"metric {metric.names[i]!r} mixes scorer versions "
                f"(@{int(expected[metric.codes[i]])} and @{int(version[i])}): pooled, they would "
                "average two different metrics; rescore with one version",
                row=i + 1,
                column="metric_id",
            )
    return np.asarray(version, dtype=np.float64)


def _by_metric(frame: pd.DataFrame) -> dict[str, int]:
    """Each metric's scorer version in a normalised table (one per metric, checked there)."""
    version = frame["scorer_version"].to_numpy(dtype=np.float64)
    known = np.flatnonzero(~np.isnan(version))
    _, first = np.unique(frame["metric_code"].to_numpy()[known], return_index=True)
    names = frame["metric_id"].to_numpy()[known[first]]
    return {str(n): int(version[known[f]]) for n, f in zip(names, first, strict=True)}


def version_mismatches(candidate: pd.DataFrame, baseline: pd.DataFrame) -> dict[str, str]:
    """Metric id -> why its candidate and baseline scores are not comparable (normalised in)."""
    cand, base = _by_metric(candidate), _by_metric(baseline)
    return {
        metric: (
            f"scorer versions differ: candidate {metric}@{cand[metric]}, baseline "
            f"{metric}@{base[metric]}: not comparable (rescore both with one version)"
        )
        for metric in sorted(set(cand) & set(base))
        if cand[metric] != base[metric]
    }
