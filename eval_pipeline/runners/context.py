"""What an agent entry point is given for one run: the item's eval context, a tracer, a seed.

The eval context must end up on the run's root ``invoke_agent`` span (the runner adds any key
the agent left out). The seed is derived from (seed base, item id, run index), so a rerun of
the same build reproduces its runs and an A/A control with a new seed base does not.
"""

import hashlib
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.trace import Tracer

from eval_pipeline.traces.model import EvalContext


def derive_seed(seed_base: str, item_id: str, run_index: int) -> int:
    """A stable 63-bit seed for one run."""
    digest = hashlib.sha256(f"{seed_base}|{item_id}|{run_index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


@dataclass(frozen=True)
class RunContext:
    """Everything one run of an entry point receives besides the item.

        ``params`` are the build's configuration (from the build registry or the caller);
        ``cancelled`` is set when the runner gives up on the run (timeout), so cooperative agents
        can stop early. ``traceparent`` is set by the HTTP runner's receiving side only.
    ``conversation_id`` and ``turn`` are set when the run is one turn of a conversation
    (``runners.conversation``): the item's ``input_messages`` then hold the history so far.
    """

    build: str
    eval_context: EvalContext
    seed: int
    tracer: Tracer
    params: Mapping[str, Any] = field(default_factory=dict)
    timeout_s: float | None = None
    cancelled: threading.Event = field(default_factory=threading.Event)
    traceparent: str | None = None
    conversation_id: str | None = None
    """For one turn of a multi-turn item: the conversation id to put on the turn's spans."""
    turn: int | None = None
    """For one turn of a multi-turn item: its number (1-based); the item holds the history."""

    @property
    def item_id(self) -> str:
        """The dataset item id of this run."""
        return self.eval_context.item_id or ""

    @property
    def run_index(self) -> int:
        """The 0-based index of this run of the item."""
        return self.eval_context.run_index or 0
