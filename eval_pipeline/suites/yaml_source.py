"""YAML read with line numbers, so configuration errors can name file, line and field.

ruamel.yaml's round-trip loader records where each key and list item starts; this module turns
a document into plain Python values plus a map from field path (``("metrics", 2, "threshold")``)
to its 1-based line.

Configuration is small and plain, and read before anything checks it, so the reader is bounded:
a file over ``MAX_BYTES`` is refused unread; an alias bomb ("billion laughs": anchors that
expand to exponentially many values) is refused once the expanded document passes
``MAX_NODES`` values, before it can take the machine's memory; a language-specific tag
(``!!python/name:...``) is refused, since configuration is data and never constructs objects.
"""

from collections.abc import Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eval_pipeline.bounded_read import read_bounded_text

FieldPath = tuple[str | int, ...]

MAX_BYTES = 1024 * 1024
"""Largest configuration file read (the shipped ones are a few kilobytes)."""
MAX_NODES = 100_000
"""Most values an expanded document may hold (aliases counted at every use)."""
_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}"
    for name in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp")
)


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


class _Budget:
    """Counts the values of the expanded document; past ``MAX_NODES`` the file is refused."""

    def __init__(self, source: Path) -> None:
        self.source, self.left = source, MAX_NODES

    def spend(self, line: int) -> None:
        self.left -= 1
        if self.left < 0:
            raise YamlSourceError(
                self.source,
                line,
                f"the document expands to more than {MAX_NODES:,} values (aliases count at "
                "every use): refused",
            )


def _check_tag(node: Any, source: Path, line: int) -> None:
    tag = getattr(getattr(node, "tag", None), "value", None)
    if tag is not None and tag not in _PLAIN_TAGS:
        raise YamlSourceError(
            source, line, f"unsupported tag {tag!r}: configuration is plain YAML data"
        )


def _plain(
    node: Any, path: FieldPath, lines: dict[FieldPath, int], budget: _Budget, line: int = 1
) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    budget.spend(line)
    _check_tag(node, budget.source, line)
    if isinstance(node, CommentedMap):
        out: dict[Hashable, Any] = {}
        for key in node:
            child = (*path, str(key))
            at, _ = node.lc.key(key)
            lines[child] = at + 1
            _check_tag(key, budget.source, at + 1)
            out[key] = _plain(node[key], child, lines, budget, at + 1)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, value in enumerate(node):
            child = (*path, index)
            at, _ = node.lc.item(index)
            lines[child] = at + 1
            items.append(_plain(value, child, lines, budget, at + 1))
        return items
    if isinstance(node, str):
        return str(node)
    return node


def load_yaml(path: Path) -> YamlSource:
    """Parse ``path`` with line information (see the module docstring for the limits).

    Raises:
        YamlSourceError: unreadable, too large, invalid YAML, a duplicate key, an unsupported
            tag, or more than ``MAX_NODES`` values once aliases are expanded.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.constructor import DuplicateKeyError
    from ruamel.yaml.error import MarkedYAMLError

    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise YamlSourceError(
                path, 1, f"the file is {size:,} bytes; the limit is {MAX_BYTES:,}: refused unread"
            )
        text = read_bounded_text(path, MAX_BYTES)  # a device or pipe has no size to stat
    except OSError as exc:
        raise YamlSourceError(path, 1, f"cannot read ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise YamlSourceError(path, 1, f"not UTF-8 text ({exc.reason})") from exc
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
    data = _plain(document, (), lines, _Budget(path))
    return YamlSource(path=path, data=data, lines=lines)
