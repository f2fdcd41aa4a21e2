"""Scorer versions in a scores table: read once, checked within a table, compared across two.

A row's version is its ``scorer_version`` column or the ``@N`` suffix of its metric id
(``tool_correctness@2``); a row whose two disagree is refused. A version is bumped when a
scorer's semantics change, so one table mixing versions of a metric would pool two different
metrics (refused, naming the row), and a candidate and a baseline scored by different versions
are not comparable (the gate fails the metric, naming both versions).
"""

import re

import numpy as np
import pandas as pd

from eval_pipeline.gate.frame_error import ScoreFrameError, first_bad

VERSION_SUFFIX = re.compile(r"@(\d+)$")


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


def scorer_versions(
    frame: pd.DataFrame, raw_ids: "pd.Series[str]", metric: "pd.Series[str]", source: str
) -> "pd.Series[float]":
    """Each row's scorer version (NaN when the table does not say).

    Raises:
        ScoreFrameError: a bad ``scorer_version``, a suffix contradicting it, or a metric
            whose rows carry more than one version.
    """
    suffix = pd.to_numeric(raw_ids.str.extract(VERSION_SUFFIX)[0], errors="coerce")
    column = _column(frame, source)
    clash = suffix.notna() & column.notna() & (suffix != column)
    if clash.any():
        i = first_bad(clash)
        raise ScoreFrameError(
            source,
            f"metric id {raw_ids.iloc[i]!r} says @{int(suffix.iloc[i])} but scorer_version "
            f"{int(column.iloc[i])}",
            row=i + 1,
            column="scorer_version",
        )
    version = column.fillna(suffix).astype("float64")
    first = version.groupby(metric).transform("first")
    mixed = version.notna() & (version != first)
    if mixed.any():
        i = first_bad(mixed)
        raise ScoreFrameError(
            source,
            f"metric {metric.iloc[i]!r} mixes scorer versions (@{int(first.iloc[i])} and "
            f"@{int(version.iloc[i])}): pooled, they would average two different metrics; "
            "rescore with one version",
            row=i + 1,
            column="metric_id",
        )
    return version


def _by_metric(frame: pd.DataFrame) -> dict[str, int]:
    known = frame.dropna(subset=["scorer_version"]).drop_duplicates("metric_id")
    return {
        str(m): int(v) for m, v in zip(known["metric_id"], known["scorer_version"], strict=True)
    }


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
