"""The error of a malformed scores table, naming the source, the row and the column."""

import numpy as np
import pandas as pd


class ScoreFrameError(ValueError):
    """A scores table is malformed; ``row`` is 1-based over data rows (header excluded)."""

    def __init__(self, source: str, message: str, *, row: int | None, column: str | None):
        self.source = source
        self.row = row
        self.column = column
        where = []
        if row is not None:
            where.append(f"row {row}")
        if column is not None:
            where.append(f"column {column!r}")
        location = f" ({', '.join(where)})" if where else ""
        super().__init__(f"{source}{location}: {message}")


def first_bad(mask: "pd.Series[bool]") -> int:
    """The 0-based position of the first True in ``mask`` (which has one)."""
    return int(np.flatnonzero(mask.to_numpy())[0])
