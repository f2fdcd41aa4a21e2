"""Judged metrics defined by their rubric: a team's own criteria, scale and pass threshold.

A suite names a rubric file for a metric (``metrics: [{id: refund_explained, rubric:
rubrics/refund_explained.yaml}]``); the file says what the judge is asked, and this module turns
it into a ``Rubric`` the suite's judge answers through the same path as the shipped ones:

```yaml
version: 1                       # bump it when the criteria change meaning
description: Does the answer explain the refund the agent issued?
fields: [question, answer, tool_calls]   # or {required: [...], optional: [...]}
criteria:
  - The answer states the refunded amount.
  - The answer says when the money arrives.
scale: {min: 1, max: 5}
pass_threshold: 4                # the lowest passing rating
offline_task: answer_relevancy   # optional, see below
```

The prompt and the verdict schema are generated: a generative judge rates the run on the
scale, criterion by criterion, and ``Rubric.conclude`` maps the rating onto [0, 1] and passes
it at the threshold. The offline judge never reads a prompt: it answers a rubric with one of
its own checks, named by ``offline_task`` (a shipped rubric's task, whose fields the rubric must
require); without one it cannot judge the rubric and its runs are ``unscored``. The content
digest (of the validated content, not its formatting) goes into the version every request
carries, so editing a rubric can never reuse the verdicts of its earlier text.
"""

import hashlib
import json
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from eval_pipeline.judges.rubrics import Rubric, RubricError, load_rubric, shipped_tasks

FIELDS: dict[str, str] = {
    "question": "the user's request (the run's user input, else the item's input messages)",
    "answer": "the run's final answer",
    "contexts": "retrieved passages and successful tool results",
    "tool_calls": "the tool calls made, in order, with their results",
    "expected_outcome": "the item's reference answer",
    "plan": "the agent's plan (a plan span, else its text before the first tool request)",
}
"""What a rubric may ask of each run, and what it is (``scoring.rubric_metric`` builds them)."""

Problem = tuple[tuple[str | int, ...], str]
Text = Annotated[str, Field(strict=True, min_length=1)]


class RubricSpecError(RubricError):
    """A rubric file is invalid; ``problems`` lists (field path, message) for each problem."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = problems
        listed = "; ".join(f"{'.'.join(map(str, p)) or '(document)'}: {m}" for p, m in problems)
        super().__init__(f"rubric file {source}: {listed}")


class Scale(BaseModel):
    """The rating scale, integers from ``min`` (worst) to ``max`` (best)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: Annotated[int, Field(strict=True)]
    max: Annotated[int, Field(strict=True)]

    @model_validator(mode="after")
    def _ordered(self) -> "Scale":
        if self.max <= self.min:
            raise ValueError(f"max ({self.max}) must be above min ({self.min})")
        return self


class FieldSets(BaseModel):
    """Fields the judge must be given (else the run is unscored) and may be given."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    required: tuple[str, ...] = Field(min_length=1)
    optional: tuple[str, ...] = ()


class RubricSpec(BaseModel):
    """A rubric file's content (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: Text | None = None
    version: Annotated[int, Field(strict=True, ge=1)]
    description: Text
    fields: FieldSets
    criteria: tuple[Text, ...] = Field(min_length=1)
    scale: Scale
    pass_threshold: Annotated[float, Field(strict=False)]
    offline_task: Text | None = None

    @model_validator(mode="before")
    @classmethod
    def _field_list(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("fields"), list):
            return {**data, "fields": {"required": data["fields"]}}
        return data


def _problems(spec: RubricSpec, metric_id: str) -> list[Problem]:
    found: list[Problem] = []
    if spec.id is not None and spec.id != metric_id:
        found.append((("id",), f"the rubric's id {spec.id!r} is not the metric's {metric_id!r}"))
    for key in ("required", "optional"):
        for n, name in enumerate(getattr(spec.fields, key)):
            if name not in FIELDS:
                known = ", ".join(FIELDS)
                found.append((("fields", key, n), f"unknown field {name!r}; known: {known}"))
    if not spec.scale.min <= spec.pass_threshold <= spec.scale.max:
        found.append(
            (
                ("pass_threshold",),
                f"{spec.pass_threshold:g} is outside the scale {spec.scale.min}..{spec.scale.max}",
            )
        )
    if spec.offline_task is not None:
        if spec.offline_task not in shipped_tasks() or spec.offline_task == metric_id:
            found.append(
                (("offline_task",), f"unknown task {spec.offline_task!r}; a shipped rubric's task")
            )
        else:
            needs = set(load_rubric(spec.offline_task).required_fields) - set(spec.fields.required)
            if needs:
                found.append(
                    (
                        ("offline_task",),
                        f"the offline judge's {spec.offline_task} check needs required "
                        f"field(s) {sorted(needs)}",
                    )
                )
    return found


def _message(error: Any) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown key"
    if error["type"] != "missing" and "input" in error:
        return f"{error['msg']} (got {error['input']!r})"
    return str(error["msg"])


def _braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _prompt(spec: RubricSpec) -> str:
    low, high = spec.scale.min, spec.scale.max
    criteria = "\n".join(f"  {n}. {_braces(c)}" for n, c in enumerate(spec.criteria, start=1))
    inputs = "\n\n".join(
        f"{name.upper().replace('_', ' ')}:\n{{{name}}}"
        for name in (*spec.fields.required, *spec.fields.optional)
    )
    return (
        "You are grading an AI agent's run against a rubric.\n\n"
        f"RUBRIC: {_braces(spec.description)}\n"
        f"CRITERIA:\n{criteria}\n\n"
        f"Rate the run from {low} (worst) to {high} (best) against the criteria.\n"
        f"details.rating: an integer from {low} to {high}.\n"
        f"details.criteria: for each criterion, in order, whether the run meets it and why.\n"
        f"score = (rating - {low}) / {high - low}.\n"
        f"passed = true only when rating >= {spec.pass_threshold:g}.\n"
        "reason: one or two sentences naming the criterion the run misses most, if any.\n\n"
        f"{inputs}\n\n"
        "Reply with JSON only, matching the schema."
    )


def _schema(spec: RubricSpec) -> dict[str, Any]:
    criterion = {
        "type": "object",
        "additionalProperties": False,
        "required": ["criterion", "met", "why"],
        "properties": {
            "criterion": {"type": "string"},
            "met": {"type": "boolean"},
            "why": {"type": "string"},
        },
    }
    rating = {"type": "integer", "minimum": spec.scale.min, "maximum": spec.scale.max}
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["score", "passed", "reason", "details"],
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "passed": {"type": "boolean"},
            "reason": {"type": "string"},
            "details": {
                "type": "object",
                "additionalProperties": False,
                "required": ["rating", "criteria"],
                "properties": {"rating": rating, "criteria": {"type": "array", "items": criterion}},
            },
        },
    }


def parse_custom_rubric(data: Any, *, metric_id: str, source: str) -> Rubric:
    """The rubric of metric ``metric_id`` from a rubric file's parsed content.

    Raises:
        RubricSpecError: listing every problem with its field path.
    """
    if not isinstance(data, dict):
        raise RubricSpecError(source, [((), "expected a mapping (version, criteria, scale, ...)")])
    try:
        spec = RubricSpec.model_validate(data)
    except ValidationError as exc:
        raise RubricSpecError(
            source, [(tuple(e["loc"]), _message(e)) for e in exc.errors()]
        ) from exc
    problems = _problems(spec, metric_id)
    if problems:
        raise RubricSpecError(source, problems)
    content = spec.model_dump(exclude={"id"}, mode="json")
    digest = hashlib.sha256(json.dumps(content, sort_keys=True).encode()).hexdigest()[:12]
    return Rubric(
        id=metric_id,
        version=str(spec.version),
        task=spec.offline_task or metric_id,
        description=spec.description,
        prompt=_prompt(spec),
        schema=_schema(spec),
        required_fields=spec.fields.required,
        optional_fields=spec.fields.optional,
        scale=(spec.scale.min, spec.scale.max),
        pass_threshold=float(spec.pass_threshold),
        digest=digest,
        source=source,
    )
