"""Configuration errors that name the file, the line and the field."""

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from eval_pipeline.suites.yaml_source import FieldPath, YamlSource, YamlSourceError, render_path


@dataclass(frozen=True)
class ConfigIssue:
    """One problem in a configuration file."""

    path: Path
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.field}: {self.message}"


class ConfigError(ValueError):
    """A configuration file is invalid; ``issues`` lists every problem found, by line."""

    def __init__(self, issues: Iterable[ConfigIssue]) -> None:
        self.issues = sorted(issues, key=lambda i: (str(i.path), i.line, i.field))
        super().__init__("\n".join(str(i) for i in self.issues))

    @classmethod
    def from_yaml(cls, exc: YamlSourceError) -> Self:
        """The error for a file that is not readable YAML."""
        return cls([ConfigIssue(exc.path, exc.line, "(document)", exc.reason)])

    @property
    def fields(self) -> list[str]:
        """The fields named by the issues, in line order."""
        return [i.field for i in self.issues]


class IssueList:
    """Collects issues against one source, at most one per field path."""

    def __init__(self, source: YamlSource) -> None:
        self.source = source
        self._issues: dict[FieldPath, ConfigIssue] = {}

    def add(self, path: FieldPath, message: str, *, at: FieldPath | None = None) -> None:
        """Record ``message`` for ``path`` unless that path already has an issue.

        ``at`` names another field whose line to report, for a field that is absent from the
        file (a missing ``judge`` is reported where the metric needing it is).
        """
        if path not in self._issues:
            line = self.source.line(at if at is not None else path)
            self._issues[path] = ConfigIssue(self.source.path, line, render_path(path), message)

    def has(self, path: FieldPath) -> bool:
        """Whether ``path`` already has an issue."""
        return path in self._issues

    def add_pydantic(self, errors: Iterable[dict[str, Any]], prefix: FieldPath = ()) -> None:
        """Record pydantic validation errors (their ``loc`` is a field path)."""
        for error in errors:
            loc = tuple(p for p in error["loc"] if isinstance(p, int | str))
            path = (*prefix, *loc)
            message = str(error["msg"])
            if error["type"] == "extra_forbidden":
                message = "unknown key"
            elif error["type"] != "missing" and "input" in error:
                message = f"{message} (got {error['input']!r})"
            self.add(path, message)

    def raise_if_any(self, error_type: type[ConfigError]) -> None:
        """Raise ``error_type`` with every issue, if there is any."""
        if self._issues:
            raise error_type(self._issues.values())
