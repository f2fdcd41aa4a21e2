"""Versioned judge rubrics: ``judges/rubrics/<task>@<version>.yaml`` files shipped as package data.

A rubric names its task, the request fields it renders (required and optional), the prompt
template (``{field}`` placeholders) and the JSON schema of the verdict. Versions are integers
per task; a *rubric set version* ``N`` means, for each task, the newest rubric whose version is
``<= N``, so bumping one task's rubric to ``2`` leaves the others where they were. A changed
rubric is a new file with a new version, never an edit: the version is part of every judge
fingerprint and cache key.

A suite may define its own judged metrics by rubric (``judges.custom_rubrics``): loading the
suite registers each (``register_rubric``), so ``load_rubric`` finds it by its metric id wherever
a built-in task is named (scoring, calibration). A custom rubric rates on its own scale and
passes at its own threshold (``Rubric.conclude``); its content digest is part of its version on
every request, so an edited rubric misses the judge cache instead of reusing old verdicts. It
never changes the built-in rubric set's version (``latest_version``).
"""

import json
import string
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import resources
from typing import Any

import yaml

from eval_pipeline.judges.protocol import JudgeRequest, JudgeVerdict

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
    scale: tuple[int, int] | None = None
    """A custom rubric's rating scale (lowest, highest); None: the verdict's score as it is."""
    pass_threshold: float | None = None
    """The lowest rating on ``scale`` that passes."""
    digest: str = ""
    """A custom rubric's content hash ("" for the shipped ones, which never change in place)."""
    source: str = ""
    """The file a custom rubric was read from."""

    @property
    def full_version(self) -> str:
        """The version sent with every request: ``<version>+<digest>`` for a custom rubric."""
        return f"{self.version}+{self.digest}" if self.digest else self.version

    @property
    def ref(self) -> str:
        """``<id>@<version>`` (plus the content digest of a custom rubric): its recorded name."""
        return f"{self.id}@{self.full_version}"

    def conclude(self, verdict: JudgeVerdict) -> JudgeVerdict:
        """The verdict on this rubric's scale: score from the rating, pass at the threshold.

        A generative judge answers a custom rubric with a ``rating`` on its scale (in
        ``details``): the score is the rating mapped onto [0, 1]. A judge that gives a score
        only (the offline judge) keeps it. Either way the verdict passes when the score reaches
        the threshold mapped the same way, so every judge passes a run by one rule. A shipped
        rubric's verdict is returned as it is.
        """
        if self.scale is None or self.pass_threshold is None:
            return verdict
        low, high = self.scale
        rating = verdict.details.get("rating")
        score = verdict.score
        if isinstance(rating, int | float) and not isinstance(rating, bool):
            score = min(1.0, max(0.0, (float(rating) - low) / (high - low)))
        passed = score >= (self.pass_threshold - low) / (high - low) - 1e-12
        return replace(verdict, score=score, passed=passed, details=dict(verdict.details))

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
            rubric_version=self.full_version,
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


_CUSTOM: dict[str, Rubric] = {}
"""Custom rubrics registered by the suites loaded in this process, by id."""


def register_rubric(rubric: Rubric) -> None:
    """Make a custom rubric known by its id (``load_rubric``, ``conclude``).

    The same file read again replaces its earlier content (an edited rubric); the same content
    from another file is the same rubric.

    Raises:
        RubricError: the id is a shipped rubric's task, or another file defines it differently.
    """
    if rubric.id in _all_rubrics():
        raise RubricError(f"rubric id {rubric.id!r} is a shipped rubric's task: choose another")
    known = _CUSTOM.get(rubric.id)
    if known is not None and known.source != rubric.source and known.digest != rubric.digest:
        raise RubricError(
            f"rubric id {rubric.id!r} is already defined differently by {known.source}: "
            "one id names one rubric"
        )
    _CUSTOM[rubric.id] = rubric


def custom_rubric(rubric_id: str) -> Rubric | None:
    """The registered custom rubric ``rubric_id``, or None."""
    return _CUSTOM.get(rubric_id)


def conclude(request: JudgeRequest, verdict: JudgeVerdict) -> JudgeVerdict:
    """``verdict`` on the scale and threshold of the custom rubric ``request`` was rendered from.

    Every path that asks a judge about a rubric (scorers, calibration) concludes through here,
    so a custom rubric's runs pass and fail by one rule; a shipped rubric's verdict is unchanged.
    """
    rubric = _CUSTOM.get(request.rubric_id)
    if rubric is None or rubric.full_version != request.rubric_version:
        return verdict
    return rubric.conclude(verdict)


def shipped_tasks() -> tuple[str, ...]:
    """The tasks of the shipped rubrics."""
    return tuple(sorted(_all_rubrics()))


def available_tasks() -> tuple[str, ...]:
    """The tasks that have at least one rubric (custom rubrics registered in this process too)."""
    return tuple(sorted({*_all_rubrics(), *_CUSTOM}))


def latest_version() -> str:
    """The newest rubric set version (the highest version of any task's rubric)."""
    return str(max(v for versions in _all_rubrics().values() for v in versions))


def load_rubric(task: str, version: str | None = None) -> Rubric:
    """The rubric for ``task`` in rubric set ``version`` (newest when None).

    A registered custom rubric is found by its id; the rubric set version does not apply to
    it (it carries its own version).

    Raises:
        RubricError: no rubric exists for the task, or none at or below the version.
    """
    if task in _CUSTOM:
        return _CUSTOM[task]
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
