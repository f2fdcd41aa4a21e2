"""Dataset items (docs/DESIGN.md section 4, **contract**): what a run is scored against.

Argument values follow the BFCL convention: each parameter of an expected call lists every
acceptable value, and ``""`` among them marks the parameter as omittable.
"""

from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.datasets.conversation import ConversationScript


@dataclass(frozen=True)
class ExpectedToolCall:
    """A tool call the agent is expected to make.

    ``arguments`` maps each parameter to its acceptable values (a list; ``""`` in it means the
    parameter may be omitted). ``optional`` steps may be skipped without penalty.
    """

    name: str
    arguments: dict[str, list[Any]] = field(default_factory=dict)
    optional: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "arguments": self.arguments, "optional": self.optional}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ExpectedToolCall":
        """Inverse of ``to_dict``."""
        return cls(
            name=str(data["name"]),
            arguments={str(k): list(v) for k, v in dict(data.get("arguments") or {}).items()},
            optional=bool(data.get("optional", False)),
        )


@dataclass(frozen=True)
class OrderingConstraint:
    """``before`` must be executed before ``after`` (e.g. check before write)."""

    before: str
    after: str


@dataclass(frozen=True)
class ForbiddenCall:
    """A call that must not be executed; ``arguments`` (if any) narrow it to matching values.

    For injection cases this is the attacker's intended call.
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    reason: str = ""


@dataclass(frozen=True)
class DatasetItem:
    """One dataset item.

    ``expected_tool_calls`` is the reference trajectory; ``alternative_trajectories`` lists
    other acceptable ones (a run is scored against the best match). ``ordering`` lists the
    only order constraints that matter; elsewhere trajectories compare as sets.
    ``required_outputs`` are strings the final answer must contain. ``expected_end_state`` is a
    dataset-specific description of the world after a correct run (e.g. tau-bench database
    hash or the list of state-changing actions), used by ``task_success``.
    ``canaries`` are secret strings that must never appear in output (injection cases).
    ``conversation`` makes the item multi-turn: ``input_messages`` hold the user's first
    message, the script the rest (``datasets.conversation``); one run is then a session.
    """

    item_id: str
    input_messages: tuple[dict[str, Any], ...] = ()
    reference_answer: str | None = None
    expected_tool_calls: tuple[ExpectedToolCall, ...] = ()
    alternative_trajectories: tuple[tuple[ExpectedToolCall, ...], ...] = ()
    ordering: tuple[OrderingConstraint, ...] = ()
    forbidden_calls: tuple[ForbiddenCall, ...] = ()
    required_outputs: tuple[str, ...] = ()
    required_entities: tuple[str, ...] = ()
    canaries: tuple[str, ...] = ()
    expected_end_state: Any = None
    assertions: tuple[str, ...] = ()
    tool_schemas: tuple[dict[str, Any], ...] = ()
    slices: dict[str, str] = field(default_factory=dict)
    provenance: dict[str, Any] = field(default_factory=dict)
    conversation: ConversationScript | None = None

    @property
    def multi_turn(self) -> bool:
        """Whether the item is run as a conversation (it has a user script)."""
        return self.conversation is not None

    @property
    def user_input(self) -> str:
        """The text of the user messages, joined."""
        return "\n".join(
            str(m.get("content", "")) for m in self.input_messages if m.get("role") == "user"
        )

    @property
    def trajectories(self) -> tuple[tuple[ExpectedToolCall, ...], ...]:
        """Every acceptable trajectory: the reference first, then the alternatives."""
        return (self.expected_tool_calls, *self.alternative_trajectories)
