"""The metric catalogue: what each metric reads, its range and direction, read off its class.

One source of truth: a ``MetricCard`` is built from the scorer class alone (``card_of``), from
the class variables ``ScorerBase`` declares (id, version, direction, ``layer``, the run and
item fields read, ``needs_judge``, ``library``, ``not_applicable_when``, ``value_range``,
``value_set``), the constructor's parameters and the docstring's first line. The span kinds a
metric reads are derived from its run fields (``RUN_FIELD_SPANS``: which spans assembly builds
each ``AgentRun`` view from), never written per metric. A custom scorer that does not subclass
``ScorerBase`` declares the protocol's members (``id``, ``version``, ``direction``,
``requires_run``, ``requires_item``, ``needs_judge``) as plain class attributes, so its card
is read the same way without building it; ``eval-pipeline metrics list`` prints the cards.
"""

import inspect
from dataclasses import dataclass
from typing import Any

from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.protocol import Direction, Layer

RUN_FIELD_SPANS: dict[str, tuple[str, ...]] = {
    "tool_calls": ("execute_tool",),
    "model_calls": ("chat", "text_completion", "generate_content"),
    "handoffs": ("invoke_agent (nested)", "handoff"),
    "retrieved": ("retrieval",),
    "final_answer": ("invoke_agent (root output)", "chat (last output)"),
    "final_answer_span_id": ("invoke_agent (root output)", "chat (last output)"),
    "user_input": ("invoke_agent (root input)", "chat (input)"),
    "spans": ("every span",),
    "complete": ("every span",),
    "completeness_reasons": ("every span",),
    "root_span_id": ("invoke_agent (root)",),
}
"""``AgentRun`` field -> the span kinds (``gen_ai.operation.name``) it is assembled from."""

BUILT_IN = "built-in"
_DIRECTIONS = frozenset({Direction.HIGHER_IS_BETTER, Direction.LOWER_IS_BETTER})


class ScorerClassError(TypeError):
    """A scorer class does not declare what the catalogue needs; the message names the member."""


@dataclass(frozen=True)
class MetricCard:
    """One metric as ``metrics list`` / ``metrics show`` describe it (see the module docstring).

    ``source`` says where the scorer comes from (``built-in``, a library, a custom entry point
    or rubric file); ``scorer_id`` is what its score rows carry as ``scorer_id``.
    """

    id: str
    version: int
    description: str
    direction: str
    value_range: tuple[float, float]
    value_set: tuple[float, ...]
    layer: str
    run_fields: tuple[str, ...]
    item_fields: tuple[str, ...]
    judged: bool
    library: str
    not_applicable_when: str
    arguments: tuple[str, ...]
    source: str = BUILT_IN
    scorer_id: str = ""

    @property
    def span_kinds(self) -> tuple[str, ...]:
        """The span kinds the metric reads, derived from its run fields."""
        kinds = (kind for name in self.run_fields for kind in RUN_FIELD_SPANS.get(name, ()))
        return tuple(dict.fromkeys(kinds))

    @property
    def range_text(self) -> str:
        """``[0, 1]``, or ``{0, 1}`` for a metric that gives only those values."""
        if self.value_set:
            return "{" + ", ".join(f"{v:g}" for v in self.value_set) + "}"
        low, high = self.value_range
        return f"[{low:g}, {high:g}]"

    @property
    def not_applicable_text(self) -> str:
        """When the metric is ``not_applicable``, said for people."""
        return self.not_applicable_when or "never (every run is scored, or unscored with why)"

    def to_json(self) -> dict[str, Any]:
        """The card's JSON form (``metrics list --format json``)."""
        return {
            "id": self.id,
            "version": self.version,
            "description": self.description,
            "layer": self.layer,
            "reads": {
                "run_fields": list(self.run_fields),
                "item_fields": list(self.item_fields),
                "span_kinds": list(self.span_kinds),
            },
            "range": {
                "min": self.value_range[0],
                "max": self.value_range[1],
                "values": list(self.value_set) or None,
            },
            "direction": self.direction,
            "higher_is_better": self.direction == Direction.HIGHER_IS_BETTER,
            "not_applicable_when": self.not_applicable_when or None,
            "judged": self.judged,
            "library": self.library or None,
            "arguments": list(self.arguments),
            "source": self.source,
            "scorer_id": self.scorer_id or self.id,
        }


def _summary(cls: type) -> str:
    doc = inspect.getdoc(cls) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _arguments(cls: type) -> tuple[str, ...]:
    try:
        parameters = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(
        p.name
        for p in parameters
        if p.name != "judge" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    )


def _declared(cls: type, name: str, kind: type | tuple[type, ...]) -> Any:
    """A plain class attribute of ``cls`` (not a property: the card is read without an instance).

    Raises:
        ScorerClassError: the attribute is missing, a property, or of another type.
    """
    if not hasattr(cls, name):
        raise ScorerClassError(f"{cls.__qualname__} does not declare {name!r}")
    value = getattr(cls, name)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    # ``True`` is an int: a version or an id may not be a bool.
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ScorerClassError(
            f"{cls.__qualname__}.{name} must be a class attribute of type "
            f"{getattr(kind, '__name__', kind)} (the catalogue reads it without building the "
            f"scorer), got {value!r}"
        )
    return value


def _fields(cls: type, name: str) -> tuple[str, ...]:
    value = _declared(cls, name, (frozenset, set, tuple, list))
    if not all(isinstance(v, str) for v in value):
        raise ScorerClassError(f"{cls.__qualname__}.{name} must hold field names (strings)")
    return tuple(sorted(value))


def _check(card: MetricCard, cls: type) -> MetricCard:
    problems = []
    if not card.id:
        problems.append("an empty metric id")
    if card.version < 1:
        problems.append(f"version {card.version} (versions start at 1)")
    if card.direction not in _DIRECTIONS:
        problems.append(f"direction {card.direction!r} (use a scoring.protocol.Direction value)")
    if card.layer and card.layer not in Layer.ALL:
        problems.append(f"layer {card.layer!r} (one of {', '.join(Layer.ALL)})")
    if problems:
        raise ScorerClassError(f"{cls.__qualname__} declares {'; '.join(problems)}")
    return card


def card_of(cls: type, *, source: str = BUILT_IN, scorer_id: str = "") -> MetricCard:
    """The card of scorer class ``cls`` (see the module docstring).

    Raises:
        ScorerClassError: ``cls`` lacks a declaration the card needs, or declares a bad value.
    """
    if isinstance(cls, type) and issubclass(cls, ScorerBase):
        card = MetricCard(
            id=cls.metric_id,
            version=int(cls.metric_version),
            description=_summary(cls),
            direction=cls.metric_direction,
            value_range=(float(cls.value_range[0]), float(cls.value_range[1])),
            value_set=tuple(float(v) for v in cls.value_set),
            layer=cls.layer,
            run_fields=tuple(sorted(cls.run_fields)),
            item_fields=tuple(sorted(cls.item_fields)),
            judged=bool(cls.needs_judge),
            library=cls.library,
            not_applicable_when=cls.not_applicable_when,
            arguments=_arguments(cls),
            source=source,
            scorer_id=scorer_id,
        )
        return _check(card, cls)
    value_range = getattr(cls, "value_range", (0.0, 1.0))
    card = MetricCard(
        id=_declared(cls, "id", str),
        version=_declared(cls, "version", int),
        description=_summary(cls),
        direction=_declared(cls, "direction", str),
        value_range=(float(value_range[0]), float(value_range[1])),
        value_set=tuple(float(v) for v in getattr(cls, "value_set", ())),
        layer=str(getattr(cls, "layer", "")),
        run_fields=_fields(cls, "requires_run"),
        item_fields=_fields(cls, "requires_item"),
        judged=_declared(cls, "needs_judge", bool),
        library=str(getattr(cls, "library", "")),
        not_applicable_when=str(getattr(cls, "not_applicable_when", "")),
        arguments=_arguments(cls),
        source=source,
        scorer_id=scorer_id,
    )
    return _check(card, cls)
