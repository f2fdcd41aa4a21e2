"""Reading label and verdict files (CSV, JSONL, Parquet) and coercing pass/fail columns.

A pass/fail column holds ``pass``/``fail``, ``true``/``false``, ``yes``/``no``, ``1``/``0``,
booleans, or graded numbers thresholded (``>= threshold`` passes). Bad input raises
``LabelFileError`` naming the file, the row (1-based, as a person counts data rows) and column.
"""

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pandas as pd

_PASS = frozenset({"pass", "passed", "true", "yes", "y", "t", "ok"})
_FAIL = frozenset({"fail", "failed", "false", "no", "n", "f"})


class LabelFileError(ValueError):
    """A label or verdict file that cannot be used (message names file, row and column)."""


def read_table(path: Path) -> pd.DataFrame:
    """Read a ``.csv``, ``.jsonl``/``.ndjson`` or ``.parquet`` file.

    Raises:
        LabelFileError: missing file, unknown extension, or unparsable content.
    """
    if not path.is_file():
        raise LabelFileError(f"{path}: no such file")
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(path, dtype={"item_id": str})
        if suffix in (".jsonl", ".ndjson"):
            return pd.read_json(path, lines=True, dtype={"item_id": str})
        if suffix == ".parquet":
            return pd.read_parquet(path)
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise LabelFileError(f"{path}: cannot parse as {suffix[1:]}: {exc}") from exc
    raise LabelFileError(f"{path}: unsupported format {suffix!r}; use .csv, .jsonl or .parquet")


def require_columns(frame: pd.DataFrame, columns: list[str], source: str) -> None:
    """Raise ``LabelFileError`` naming ``source`` when a column is absent."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise LabelFileError(
            f"{source}: missing column(s) {missing}; found {sorted(map(str, frame.columns))}"
        )


def item_ids(frame: pd.DataFrame, source: str) -> pd.Series:
    """The ``item_id`` column as strings, checked for blanks and duplicates."""
    require_columns(frame, ["item_id"], source)
    ids = frame["item_id"]
    for row, value in enumerate(ids, start=1):
        if value is None or (isinstance(value, float) and np.isnan(value)) or str(value) == "":
            raise LabelFileError(f"{source}: row {row}, column 'item_id': empty")
    as_text = ids.astype(str)
    duplicated = as_text[as_text.duplicated()]
    if not duplicated.empty:
        first = int(np.flatnonzero(as_text.duplicated().to_numpy())[0]) + 1
        raise LabelFileError(
            f"{source}: row {first}, column 'item_id': duplicate item {duplicated.iloc[0]!r}"
        )
    return as_text


def to_pass(
    column: pd.Series, source: str, name: str, threshold: float = 0.5
) -> npt.NDArray[np.bool_]:
    """Coerce a pass/fail column to booleans (see the module docstring)."""
    out = np.empty(len(column), dtype=bool)
    for row, value in enumerate(column, start=1):
        out[row - 1] = _one(value, source, name, row, threshold)
    return out


def _one(value: object, source: str, name: str, row: int, threshold: float) -> bool:
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | float | np.integer | np.floating):
        if np.isnan(value):
            raise LabelFileError(f"{source}: row {row}, column {name!r}: empty")
        return float(value) >= threshold
    text = str(value).strip().lower() if value is not None else ""
    if text in ("", "nan", "none", "null"):
        raise LabelFileError(f"{source}: row {row}, column {name!r}: empty")
    if text in _PASS:
        return True
    if text in _FAIL:
        return False
    try:
        return float(text) >= threshold
    except ValueError:
        raise LabelFileError(
            f"{source}: row {row}, column {name!r}: {value!r} is not pass/fail, true/false, "
            f"yes/no or a number"
        ) from None
