"""The values table of a chart's README, from its values.yaml's ``# --`` comments.

helm-docs' convention, so the same comments serve that tool where it is installed: a key is
documented by the ``# -- text`` comment right above it (continued on the ``#`` lines after
it, and ``# @default -- text`` replacing the shown default). The table lists Key, Type,
Default and Description, sorted by key, between the README's ``<!-- values:begin -->`` and
``<!-- values:end -->`` markers. helm-docs itself is a Go binary no package index here ships,
hence this reader of the same comments.

    python deploy/helm/values_docs.py deploy/helm/eval-pipeline           (rewrite the README)
    python deploy/helm/values_docs.py --check deploy/helm/eval-pipeline   (exit 1 if stale)

Every leaf of values.yaml must be documented, itself or through an ancestor (``nats:`` covers
the NATS chart's values): an undocumented one is an error naming the file and the key.
"""

import argparse
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

BEGIN = "<!-- values:begin -->"
END = "<!-- values:end -->"
_KEY = re.compile(r"""^(?P<key>"[^"]+"|'[^']+'|[^\s#:'"-][^:#]*?|-[^\s:#][^:#]*?):(\s|$)""")


@dataclass(frozen=True)
class Documented:
    """One documented key: its dotted path, line, description and shown default."""

    path: str
    line: int
    description: str
    default: str | None


def _lookup(values: Any, path: tuple[str, ...]) -> tuple[bool, Any]:
    """(found, value) of ``path`` in the loaded values; keys inside lists are not found."""
    node = values
    for key in path:
        if not isinstance(node, dict) or key not in node:
            return False, None
        node = node[key]
    return True, node


def documented_keys(values_file: Path) -> tuple[list[Documented], dict[str, Any]]:
    """The documented keys of ``values_file`` in file order, and its loaded values."""
    text = values_file.read_text(encoding="utf-8")
    values = yaml.safe_load(text) or {}
    stack: list[tuple[int, str]] = []
    pending: list[str] | None = None
    default: str | None = None
    found: list[Documented] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped == "---":
            pending, default = None, None
            continue
        if stripped.startswith("#"):
            body = stripped[1:].strip()
            if body.startswith("-- "):
                pending, default = [body[3:].strip()], None
            elif pending is not None and body.startswith("@default -- "):
                default = body[len("@default -- ") :].strip()
            elif pending is not None:
                pending.append(body)
            continue
        indent = len(raw) - len(raw.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        match = _KEY.match(stripped)
        if match is None:  # a list item or a continued scalar: no key of the values tree
            pending, default = None, None
            continue
        key = match.group("key").strip("'\"")
        stack.append((indent, key))
        path = tuple(k for _, k in stack)
        if pending is not None and _lookup(values, path)[0]:
            found.append(Documented(".".join(path), number, " ".join(pending), default))
        pending, default = None, None
    return found, values


def _leaves(values: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Paths of the values' leaves (scalars, lists, empty maps)."""
    if isinstance(values, dict) and values:
        return [leaf for key, sub in values.items() for leaf in _leaves(sub, (*prefix, str(key)))]
    return [prefix]


def undocumented(values_file: Path) -> list[str]:
    """Leaves of ``values_file`` that no documented key covers (itself or an ancestor)."""
    keys, values = documented_keys(values_file)
    paths = {tuple(k.path.split(".")) for k in keys}
    return [
        ".".join(leaf)
        for leaf in _leaves(values)
        if not any(leaf[:n] in paths for n in range(1, len(leaf) + 1))
    ]


def _type(value: Any) -> str:
    """helm-docs' name of a value's type."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return "string"


def _cell(text: str) -> str:
    """``text`` safe inside a Markdown table cell."""
    return text.replace("|", "\\|")


def values_table(values_file: Path) -> str:
    """The Markdown table of the documented keys of ``values_file``."""
    keys, values = documented_keys(values_file)
    rows = ["| Key | Type | Default | Description |", "|-----|------|---------|-------------|"]
    for key in sorted(keys, key=lambda k: k.path):
        _, value = _lookup(values, tuple(key.path.split(".")))
        shown = key.default or f"`{json.dumps(value, separators=(',', ':'))}`"
        rows.append(f"| {key.path} | {_type(value)} | {_cell(shown)} | {_cell(key.description)} |")
    return "\n".join(rows) + "\n"


def render_readme(chart: Path) -> str:
    """The chart's README.md with its values table regenerated from values.yaml."""
    readme = (chart / "README.md").read_text(encoding="utf-8")
    if BEGIN not in readme or END not in readme:
        raise ValueError(f"{chart / 'README.md'}: no {BEGIN} ... {END} block for the values table")
    head, rest = readme.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{values_table(chart / 'values.yaml')}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or with --check, verify) the README's values table of each chart given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("charts", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="exit 1 if a table is stale")
    args = parser.parse_args(argv)
    status = 0
    for chart in args.charts:
        missing = undocumented(chart / "values.yaml")
        if missing:
            sys.stderr.write(f"{chart / 'values.yaml'}: no '# --' comment for {missing}\n")
            return 2
        fresh = render_readme(chart)
        if (chart / "README.md").read_text(encoding="utf-8") == fresh:
            continue
        if args.check:
            sys.stderr.write(f"{chart / 'README.md'}: values table is stale; run {sys.argv[0]}\n")
            status = 1
        else:
            (chart / "README.md").write_text(fresh, encoding="utf-8")
    return status


if __name__ == "__main__":
    sys.exit(main())
