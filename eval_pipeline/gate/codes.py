"""A column as integer codes over its distinct values, so rules run per value, not per row.

Score tables repeat a few metric ids, statuses, reasons and slice labels over millions of
rows; checking and cleaning the distinct values and mapping back by code keeps validation
linear in cheap integer work (a regex over a million metric ids took longer than the
bootstrap).
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd


@dataclass(frozen=True)
class Codes:
    """``codes[i]`` indexes ``values`` for row i; -1 marks a missing cell."""

    codes: np.ndarray
    values: list[Any]

    @classmethod
    def of(cls, column: "pd.Series[Any]") -> "Codes":
        """The codes of a column (missing cells: -1)."""
        codes, uniques = pd.factorize(column, use_na_sentinel=True)
        return cls(np.asarray(codes, dtype=np.int64), list(uniques))

    @property
    def missing(self) -> np.ndarray:
        """Rows whose cell is missing."""
        return self.codes < 0

    def take(self, per_value: np.ndarray, missing: Any) -> np.ndarray:
        """A row array from one entry per distinct value (``missing`` for missing cells)."""
        table = np.append(np.asarray(per_value), np.asarray([missing], dtype=per_value.dtype))
        return np.asarray(table[self.codes])

    def strings(self, missing: str) -> np.ndarray:
        """Each row's value as a plain Python ``str`` (object array; ``missing`` if absent)."""
        return self.take(np.asarray([str(v) for v in self.values], dtype=object), missing)

    def first_row(self, bad_values: np.ndarray) -> int | None:
        """The first row whose value is flagged in ``bad_values`` (one flag per value)."""
        flagged = np.append(np.asarray(bad_values, dtype=bool), False)[self.codes]
        hits = np.flatnonzero(flagged)
        return int(hits[0]) if hits.size else None
