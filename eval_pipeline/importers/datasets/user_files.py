"""Reading a dataset a person wrote: JSONL or CSV in the published item format.

JSONL: one item object per line (blank lines skipped). CSV: a header row naming item fields;
``item_id``, ``input`` and ``reference_answer`` cells are text, every other field's cell is
JSON text (``expected_tool_calls``, ``slices``, ... : ``user_items.TEXT_FIELDS``); an empty
cell leaves its field out. A quoted cell may span lines; an item's line is the line its record
starts on. Every item is checked against ``datasets/item.schema.json``; the whole file is read
and every problem reported at once (``file:line: field: message``), so one fix-and-retry cycle
sees them all. A tools file (``--tools``) is a JSON list of tool schemas shared by every item.
"""

import csv
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_pipeline import json_input
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.tool_checks import schema_problems as schema_problems_of_tool
from eval_pipeline.datasets.user_items import (
    TEXT_FIELDS,
    item_from_user,
    schema_problems,
    tool_schemas_problems,
)
from eval_pipeline.importers.source_files import SourceError, read_json

USER_FORMATS: dict[str, tuple[str, ...]] = {"jsonl": (".jsonl", ".ndjson"), "csv": (".csv",)}
MAX_PROBLEMS = 50


@dataclass(frozen=True)
class UserItems:
    """Items read from one file, and where each one starts (``file:line``)."""

    items: tuple[DatasetItem, ...]
    locations: tuple[str, ...]


def format_of(path: Path, given: str | None = None) -> str:
    """``given``, else the user format ``path``'s extension names.

    Raises:
        SourceError: no format given and the extension names none.
    """
    if given:
        return given
    suffix = path.suffix.lower()
    for fmt, suffixes in USER_FORMATS.items():
        if suffix in suffixes:
            return fmt
    raise SourceError(
        f"{path}: cannot tell the format from {suffix or 'no extension'!r}: "
        "name a .jsonl or .csv file, or pass --format jsonl|csv"
    )


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise SourceError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{path}: cannot read as UTF-8 text ({exc})") from exc


def _jsonl_rows(path: Path, problems: list[str]) -> Iterator[tuple[int, Any]]:
    for line_no, line in enumerate(_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield line_no, json_input.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{path}:{line_no}: not valid JSON ({exc.msg}, column {exc.colno})")


def _csv_rows(path: Path, problems: list[str]) -> Iterator[tuple[int, Any]]:
    reader = csv.reader(_text(path).splitlines(keepends=True))
    header = next(reader, None)
    if not header:
        return
    columns = [c.strip() for c in header]
    duplicated = sorted({c for c in columns if columns.count(c) > 1})
    if duplicated:
        problems.append(f"{path}:1: column {duplicated[0]!r} appears twice")
        return
    start = reader.line_num + 1
    for record in reader:
        line_no, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in record):
            continue
        if len(record) > len(columns):
            problems.append(f"{path}:{line_no}: {len(record)} cells, the header has {len(columns)}")
            continue
        row: dict[str, Any] = {}
        for column, cell in zip(columns, record, strict=False):
            if not cell.strip():
                continue
            if column in TEXT_FIELDS:
                row[column] = cell
                continue
            try:
                row[column] = json_input.loads(cell)
            except json.JSONDecodeError as exc:
                problems.append(f"{path}:{line_no}: {column}: not valid JSON ({exc.msg})")
        yield line_no, row


def read_user_items(path: Path, fmt: str | None = None) -> UserItems:
    """The items of ``path`` (JSONL or CSV; see the module docstring).

    Raises:
        SourceError: the file cannot be read, holds no item, or breaks the item schema (every
            problem, ``file:line: field: message``).
    """
    chosen = format_of(path, fmt)
    problems: list[str] = []
    rows = _csv_rows(path, problems) if chosen == "csv" else _jsonl_rows(path, problems)
    items: list[DatasetItem] = []
    locations: list[str] = []
    for line_no, data in rows:
        found = schema_problems(data)
        problems.extend(f"{path}:{line_no}: {field}: {message}" for field, message in found)
        if not found:
            items.append(item_from_user(data))
            locations.append(f"{path}:{line_no}")
    if problems:
        shown = problems[:MAX_PROBLEMS]
        more = f"\n... and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        raise SourceError("\n".join(shown) + more)
    if not items:
        raise SourceError(f"{path}: no items (one {chosen} record per item)")
    return UserItems(tuple(items), tuple(locations))


def read_tools(path: Path) -> tuple[dict[str, Any], ...]:
    """The tool schemas in a tools file: a JSON list of OpenAI function definitions.

    Raises:
        SourceError: unreadable, not a list, a schema not of the item schema's tool form, or
            parameters that are not a valid JSON Schema of an object.
    """
    document = read_json(path)
    found = [f"{path}: {field}: {message}" for field, message in tool_schemas_problems(document)]
    if not found:
        found = [
            f"{path}: [{index}]: {problem}"
            for index, schema in enumerate(document)
            for problem in schema_problems_of_tool(schema)
        ]
    if found:
        raise SourceError("\n".join(found))
    return tuple(dict(s) for s in document)
