"""Reading benchmark source files: JSON or JSON Lines, optionally gzip-compressed."""

import gzip
import json
from pathlib import Path
from typing import Any

from eval_pipeline import json_input


class SourceError(ValueError):
    """A source file is missing or malformed; the message names the file (and line)."""


def _text(path: Path) -> str:
    if not path.is_file():
        raise SourceError(f"{path}: no such file")
    try:
        if path.suffix == ".gz":
            with gzip.open(path, "rt", encoding="utf-8") as handle:
                return handle.read()
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceError(f"{path}: cannot read ({exc})") from exc


def read_json(path: Path) -> Any:
    """The JSON document in ``path`` (``.gz`` is decompressed)."""
    try:
        return json_input.loads(_text(path))
    except json.JSONDecodeError as exc:
        raise SourceError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from exc


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSON Lines file, one per non-empty line."""
    rows: list[dict[str, Any]] = []
    for line_no, line in enumerate(_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json_input.loads(line)
        except json.JSONDecodeError as exc:
            raise SourceError(f"{path}:{line_no}: not valid JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise SourceError(f"{path}:{line_no}: expected a JSON object")
        rows.append(row)
    return rows


def stem(path: Path) -> str:
    """The file name without ``.gz`` and the data extension (``tasks.json.gz`` -> ``tasks``)."""
    name = path.name
    for suffix in (".gz", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name
