"""The records of a back end's export file: JSON or JSON Lines, as APIs and exporters write them.

A JSON file holds one record, a list of them, or an API page (``{"data": [...]}``: Langfuse's
and OpenAI's list responses); a file that is not one JSON document is read as JSON Lines, one
record per line, and a line that is not JSON is one problem naming it (the other lines are
read). Each record comes with its source (``file[index]`` or ``file:line``), so errors name it.
"""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from eval_pipeline import json_input

Record = tuple[str, Any, str | None]
"""(source, record, problem): the record is None when ``problem`` says why it is unreadable."""


def records(path: Path) -> Iterator[Record]:
    """Every record of the file at ``path`` (raises ``OSError``/``UnicodeError`` if unreadable)."""
    text = path.read_text(encoding="utf-8")
    try:
        document = json_input.loads(text)
    except json.JSONDecodeError:
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    yield f"{path}:{number}", json_input.loads(line), None
                except json.JSONDecodeError as exc:
                    yield f"{path}:{number}", None, f"not JSON: {exc}"
        return
    if isinstance(document, dict) and isinstance(document.get("data"), list):
        document = document["data"]
    if not isinstance(document, list):
        yield str(path), document, None
        return
    for index, record in enumerate(document):
        yield f"{path}[{index}]", record, None
