"""YAML read with line numbers, so configuration errors can name file, line and field.

ruamel.yaml's round-trip loader records where each key and list item starts; this module turns
a document into plain Python values plus a map from field path (``("metrics", 2, "threshold")``)
to its 1-based line.
"""

from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FieldPath = tuple[str | int, ...]


class YamlSourceError(ValueError):
    """The file cannot be read or is not valid YAML (message: ``path:line: reason``)."""

    def __init__(self, path: Path, line: int, reason: str) -> None:
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}:{line}: {reason}")


@dataclass(frozen=True)
class YamlSource:
    """A parsed YAML document and the line of every field in it."""

    path: Path
    data: Any
    lines: dict[FieldPath, int] = field(default_factory=dict)

    def line(self, path: FieldPath) -> int:
        """The line of ``path``, or of its nearest ancestor present in the file (1 at worst)."""
        for length in range(len(path), 0, -1):
            if path[:length] in self.lines:
                return self.lines[path[:length]]
        return 1


def render_path(path: FieldPath) -> str:
    """``("metrics", 2, "threshold")`` -> ``metrics[2].threshold``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(document)"


def _plain(node: Any, path: FieldPath, lines: dict[FieldPath, int]) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(node, CommentedMap):
        out: dict[Hashable, Any] = {}
        for key in node:
            child = (*path, str(key))
            line, _ = node.lc.key(key)
            lines[child] = line + 1
            out[key] = _plain(node[key], child, lines)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            child = (*path, index)
            line, _ = node.lc.item(index)
            lines[child] = line + 1
            items.append(_plain(value, child, lines))
        return items
    if isinstance(node, str):
        return str(node)
    return node


def load_yaml(path: Path) -> YamlSource:
    """Parse ``path`` with line information; duplicate keys are a ``YamlSourceError``."""
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise YamlSourceError(path, 1, f"cannot read ({exc.strerror or exc})") from exc
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        document = yaml.load(text)
    except DuplicateKeyError as exc:
        mark = exc.problem_mark
        line = mark.line + 1 if mark is not None else 1
        raise YamlSourceError(path, line, f"duplicate key ({exc.problem})") from exc
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        raise YamlSourceError(path, line, f"invalid YAML ({exc.problem})") from exc
    lines: dict[FieldPath, int] = {}
    return YamlSource(path=path, data=_plain(document, (), lines), lines=lines)
