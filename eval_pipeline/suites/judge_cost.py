"""What a build's judge calls cost: the tokens of their ``chat`` spans x the versioned price table.

The judge's calls are on the record (``judges.judge_trace``: one chat span per request, with the
usage the endpoint reported); their cost is computed from those spans as an agent run's is from
its inference spans (``prices``), at the price in effect on the day of each call. A request that
failed without a reply (a 429, a timeout) used no tokens and costs nothing; an answered request
the endpoint reported no usage for, or a model the table does not price, makes the cost unknown
(None, with the reason), never zero. The offline judge makes no call: its cost is zero.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from eval_pipeline.suites.prices import PriceTable, UnknownModelError
from eval_pipeline.traces.model import Operation, Span


@dataclass(frozen=True)
class JudgeCost:
    """The calls, their tokens and their cost in US dollars (None: unknown, see ``unknown``)."""

    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    models: tuple[str, ...] = ()
    price_table: str = ""
    unknown: str | None = None

    def metadata(self, prefix: str = "judge_") -> dict[str, Any]:
        """Plain values for a summary or asset metadata (keys ``judge_calls`` and so on)."""
        return {
            f"{prefix}calls": self.calls,
            f"{prefix}input_tokens": self.input_tokens,
            f"{prefix}output_tokens": self.output_tokens,
            f"{prefix}cost_usd": self.cost_usd,
            f"{prefix}cost_unknown": self.unknown,
            f"{prefix}price_table": self.price_table,
        }


def judge_cost(spans: Iterable[Span], table: PriceTable) -> JudgeCost:
    """The cost of the ``chat`` spans among ``spans`` (see the module docstring)."""
    calls = inputs = outputs = 0
    total: float | None = 0.0
    models: dict[str, None] = {}
    unknown: str | None = None
    for span in spans:
        if span.operation != Operation.CHAT:
            continue
        calls += 1
        inputs += span.input_tokens or 0
        outputs += span.output_tokens or 0
        if span.model:
            models[span.model] = None
        answered = span.output_messages or span.input_tokens or span.output_tokens
        if not answered:
            continue  # failed before any reply: no tokens used
        if span.model is None or span.input_tokens is None or span.output_tokens is None:
            unknown = unknown or f"span {span.span_id} has no model or token usage"
            total = None
            continue
        at = datetime.fromtimestamp(span.start_time_unix_nano / 1e9, tz=UTC).date()
        try:
            cost = table.cost(span.model, span.input_tokens, span.output_tokens, at)
        except UnknownModelError as exc:
            unknown = unknown or str(exc)
            total = None
            continue
        total = None if total is None else total + cost
    return JudgeCost(calls, inputs, outputs, total, tuple(models), table.version, unknown)
