"""Part files of the trace store: written durably, read back, and the store's id file.

A part is written under a temporary name, fsynced, renamed and its folder fsynced, so a part
that exists under its name is complete. Dictionaries and statistics go only where they pay
(``DICTIONARY``, ``STATISTICS``): the values read back are the same either way.
"""

import os
import uuid
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from eval_pipeline.traces.store.span_table import SCHEMA

STORE_ID = ".store-id"
"""In the store root: the store's id in the ledger (so one database can serve many stores)."""
MOSTLY_UNIQUE = frozenset(
    {
        "span_id",
        "start_time_unix_nano",
        "end_time_unix_nano",
        "tool_call_id",
        "tool_arguments",
        "tool_result",
        "output_messages",
    }
)
DICTIONARY = [name for name in SCHEMA.names if name not in MOSTLY_UNIQUE]
"""Columns written dictionary-encoded: those whose values repeat across spans. A column of
(nearly) distinct values gains nothing from a dictionary and costs a hash of every value
(a fifth of the write), and its part is larger."""
STATISTICS = [
    "trace_id",
    "span_id",
    "parent_span_id",
    "start_time_unix_nano",
    "end_time_unix_nano",
]
"""Columns with min/max statistics: the ids (reads filter by trace id) and the times. Those of
the other columns (JSON text above all) would be scanned on every write and never used."""


def fsync_path(path: Path) -> None:
    """Fsync a file or folder by path."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def store_id(root: Path) -> tuple[str, bool]:
    """The store's id, and whether this call created it.

    Created once; ``os.link`` makes concurrent first openings agree on one id.
    """
    path = root / STORE_ID
    created = False
    if not path.exists():
        root.mkdir(parents=True, exist_ok=True)
        temporary = root / f".{STORE_ID}.{uuid.uuid4().hex}.tmp"
        temporary.write_text(uuid.uuid4().hex)
        try:
            os.link(temporary, path)
            created = True
        except FileExistsError:
            pass  # another process created it first: its id is the store's
        finally:
            temporary.unlink()
    return path.read_text().strip(), created


def write_part(folder: Path, table: pa.Table) -> str:
    """Write one part durably (temporary name, fsync, rename, fsync the folder).

    Dictionaries and statistics only where they pay (``DICTIONARY``, ``STATISTICS``): the
    values read back are the same either way.
    """
    name = f"part-{uuid.uuid4().hex}.parquet"
    temporary = folder / f".{name}.tmp"
    with open(temporary, "wb") as handle:
        pq.write_table(table, handle, use_dictionary=DICTIONARY, write_statistics=STATISTICS)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, folder / name)
    fsync_path(folder)
    return name


def read_parts(paths: Sequence[Path], trace_ids: set[str] | None = None) -> pa.Table | None:
    """The parts as one table (only ``trace_ids``' rows when given); None for no parts."""
    filters = None if trace_ids is None else [("trace_id", "in", sorted(trace_ids))]
    tables = [pq.read_table(path, filters=filters) for path in paths]
    return pa.concat_tables(tables, promote_options="default") if tables else None
