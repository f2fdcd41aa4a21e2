"""Versioned judge rubrics: ``judges/rubrics/<task>@<version>.yaml`` files shipped as package data.

A rubric names its task, the request fields it renders (required and optional), the prompt
template (``{field}`` placeholders) and the JSON schema of the verdict. Versions are integers
per task; a *rubric set version* ``N`` means, for each task, the newest rubric whose version is
``<= N``, so bumping one task's rubric to ``2`` leaves the others where they were. A changed
rubric is a new file with a new version, never an edit: the version is part of every judge
fingerprint and cache key.
"""

import json
import string
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

import yaml

from eval_pipeline.judges.protocol import JudgeRequest

_MISSING_OPTIONAL = "(not provided)"
_REQUIRED_KEYS = ("id", "version", "task", "description", "prompt", "schema", "fields")


class RubricError(ValueError):
    """A rubric file is malformed, missing, or was rendered without a required field."""


@dataclass(frozen=True)
class Rubric:
    """One versioned rubric (see the module docstring)."""

    id: str
    version: str
    task: str
    description: str
    prompt: str
    schema: dict[str, Any]
    required_fields: tuple[str, ...]
    optional_fields: tuple[str, ...] = field(default=())

    @property
    def ref(self) -> str:
        """``<id>@<version>``, the rubric's recorded name."""
        return f"{self.id}@{self.version}"

    def render(self, fields: dict[str, Any]) -> str:
        """The prompt with every placeholder filled from ``fields``.

        Lists of strings render as numbered lines, other lists and dicts as indented JSON.
        A missing optional field renders as ``(not provided)``.

        Raises:
            RubricError: a required field is missing or empty.
        """
        missing = [
            name
            for name in self.required_fields
            if name not in fields or fields[name] in (None, "")
        ]
        if missing:
            raise RubricError(f"rubric {self.ref}: missing required field(s) {missing}")
        values = {
            name: _format_value(fields.get(name))
            for name in (*self.required_fields, *self.optional_fields)
        }
        return self.prompt.format_map(values)

    def request(self, fields: dict[str, Any]) -> JudgeRequest:
        """A ``JudgeRequest`` for this rubric: the task, fields, rendered prompt and schema."""
        return JudgeRequest(
            task=self.task,
            fields=dict(fields),
            prompt=self.render(fields),
            schema=self.schema,
            rubric_id=self.id,
            rubric_version=self.version,
        )


def _format_value(value: Any) -> str:
    if value is None or value == "" or value == []:
        return _MISSING_OPTIONAL
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "\n".join(f"[{i}] {v}" for i, v in enumerate(value, start=1))
    return json.dumps(value, indent=2, sort_keys=True, default=str)


def _parse(name: str, text: str) -> Rubric:
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise RubricError(f"rubric file {name}: invalid YAML: {exc}") from exc
    if not isinstance(raw, dict):
        raise RubricError(f"rubric file {name}: expected a mapping at the top level")
    absent = [key for key in _REQUIRED_KEYS if key not in raw]
    if absent:
        raise RubricError(f"rubric file {name}: missing key(s) {absent}")
    fields = raw["fields"] or {}
    required = tuple(fields.get("required") or ())
    optional = tuple(fields.get("optional") or ())
    placeholders = {fname for _, fname, _, _ in string.Formatter().parse(raw["prompt"]) if fname}
    undeclared = placeholders - set(required) - set(optional)
    if undeclared:
        raise RubricError(
            f"rubric file {name}: prompt uses undeclared field(s) {sorted(undeclared)}"
        )
    rubric = Rubric(
        id=str(raw["id"]),
        version=str(raw["version"]),
        task=str(raw["task"]),
        description=str(raw["description"]),
        prompt=str(raw["prompt"]),
        schema=dict(raw["schema"]),
        required_fields=required,
        optional_fields=optional,
    )
    if name != f"{rubric.task}@{rubric.version}.yaml":
        raise RubricError(f"rubric file {name}: name must be <task>@<version>.yaml ({rubric.ref})")
    return rubric


@cache
def _all_rubrics() -> dict[str, dict[int, Rubric]]:
    by_task: dict[str, dict[int, Rubric]] = {}
    folder = resources.files("eval_pipeline.judges").joinpath("rubrics")
    for entry in folder.iterdir():
        if not entry.name.endswith(".yaml"):
            continue
        rubric = _parse(entry.name, entry.read_text(encoding="utf-8"))
        by_task.setdefault(rubric.task, {})[int(rubric.version)] = rubric
    return by_task


def available_tasks() -> tuple[str, ...]:
    """The tasks that have at least one rubric."""
    return tuple(sorted(_all_rubrics()))


def latest_version() -> str:
    """The newest rubric set version (the highest version of any task's rubric)."""
    return str(max(v for versions in _all_rubrics().values() for v in versions))


def load_rubric(task: str, version: str | None = None) -> Rubric:
    """The rubric for ``task`` in rubric set ``version`` (newest when None).

    Raises:
        RubricError: no rubric exists for the task, or none at or below the version.
    """
    versions = _all_rubrics().get(task)
    if not versions:
        raise RubricError(f"no rubric for task {task!r}; known tasks: {list(available_tasks())}")
    if version is None:
        return versions[max(versions)]
    try:
        wanted = int(version)
    except ValueError as exc:
        raise RubricError(f"rubric version must be an integer, got {version!r}") from exc
    eligible = [v for v in versions if v <= wanted]
    if not eligible:
        raise RubricError(f"no rubric for task {task!r} at or below version {version}")
    return versions[max(eligible)]
