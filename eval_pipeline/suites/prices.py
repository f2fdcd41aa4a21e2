"""Versioned model price table and the cost of a run: tokens x published price.

The cost of a run is computed from the token counts on its inference spans and the price in
effect on the run's date. It is never read from anything the agent reports about itself, and a
model missing from the table is an error, not a free call.
"""

import re
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eval_pipeline.package_data import package_path
from eval_pipeline.suites.errors import ConfigError, IssueList
from eval_pipeline.suites.yaml_source import YamlSourceError, load_yaml

if TYPE_CHECKING:
    from eval_pipeline.traces.model import AgentRun

DEFAULT_PRICES = package_path("eval_pipeline.suites", "prices.yaml")
_SNAPSHOT = re.compile(r"^(?P<base>.+)-\d{4}-\d{2}-\d{2}$")
PER_MILLION = 1_000_000

Price = Annotated[float, Field(strict=True, ge=0.0)]


class PriceTableError(ConfigError):
    """The price table file is invalid."""


class UnknownModelError(KeyError):
    """The model has no price (at that date); the message lists the priced models."""

    def __str__(self) -> str:
        return str(self.args[0])


class PriceEntry(BaseModel):
    """US dollars per million input and output tokens, from ``effective`` on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    effective: date
    input: Price
    output: Price


class PriceTable(BaseModel):
    """Model -> price entries (sorted by effective date)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str
    currency: str = "USD"
    unit: str = "per_million_tokens"
    models: dict[str, tuple[PriceEntry, ...]]

    @classmethod
    def load(cls, path: Path | None = None) -> "PriceTable":
        """Read and validate a price table (the shipped default when ``path`` is None)."""
        source_path = Path(path) if path is not None else DEFAULT_PRICES
        try:
            source = load_yaml(source_path)
        except YamlSourceError as exc:
            raise PriceTableError.from_yaml(exc) from exc
        issues = IssueList(source)
        data = source.data if isinstance(source.data, dict) else {}
        if not data:
            issues.add((), "expected a mapping with 'version' and 'models'")
        if data.get("unit", "per_million_tokens") != "per_million_tokens":
            issues.add(("unit",), "only 'per_million_tokens' is supported")
        if data.get("currency", "USD") != "USD":
            issues.add(("currency",), "only 'USD' is supported")
        issues.raise_if_any(PriceTableError)
        try:
            table = cls.model_validate({**data, "version": str(data.get("version", ""))})
        except ValidationError as exc:
            issues.add_pydantic([dict(e) for e in exc.errors()])
            issues.raise_if_any(PriceTableError)
            raise
        for model, entries in table.models.items():
            dates = [e.effective for e in entries]
            if not entries:
                issues.add(("models", model), "at least one price entry is required")
            elif len(set(dates)) != len(dates):
                issues.add(("models", model), "two entries share an effective date")
        issues.raise_if_any(PriceTableError)
        ordered = {m: tuple(sorted(e, key=lambda p: p.effective)) for m, e in table.models.items()}
        return table.model_copy(update={"models": ordered})

    def _entries(self, model: str) -> tuple[PriceEntry, ...]:
        if model in self.models:
            return self.models[model]
        snapshot = _SNAPSHOT.match(model)  # gpt-4o-2024-08-06 is priced as gpt-4o
        if snapshot and snapshot.group("base") in self.models:
            return self.models[snapshot.group("base")]
        raise UnknownModelError(
            f"no price for model {model!r} in price table {self.version}; priced models: "
            f"{', '.join(sorted(self.models))}"
        )

    def price(self, model: str, at: date | None = None) -> PriceEntry:
        """The entry in effect for ``model`` on ``at`` (the newest when ``at`` is None)."""
        entries = self._entries(model)
        if at is None:
            return entries[-1]
        effective = [e for e in entries if e.effective <= at]
        if not effective:
            raise UnknownModelError(
                f"no price for model {model!r} on {at.isoformat()} (first priced "
                f"{entries[0].effective.isoformat()})"
            )
        return effective[-1]

    def cost(
        self, model: str, input_tokens: int, output_tokens: int, at: date | None = None
    ) -> float:
        """US dollars for ``input_tokens`` and ``output_tokens`` of ``model`` on ``at``."""
        if input_tokens < 0 or output_tokens < 0:
            raise ValueError(f"token counts must be >= 0 (got {input_tokens}, {output_tokens})")
        entry = self.price(model, at)
        return (input_tokens * entry.input + output_tokens * entry.output) / PER_MILLION


def _run_date(run: "AgentRun") -> date | None:
    if run.start_time_unix_nano <= 0:
        return None
    return datetime.fromtimestamp(run.start_time_unix_nano / 1e9, tz=UTC).date()


def cost_of_run(run: "AgentRun", table: PriceTable) -> float | None:
    """Dollar cost of ``run``: each inference span's tokens at its model's price on the run date.

    Returns None when the cost cannot be known honestly: the run has no inference spans, or one
    of them lacks its model or token counts (missing is not free).

    Raises:
        UnknownModelError: a model is not in the price table.
    """
    if not run.model_calls:
        return None
    at = _run_date(run)
    total = 0.0
    for call in run.model_calls:
        if call.model is None or call.input_tokens is None or call.output_tokens is None:
            return None
        total += table.cost(call.model, call.input_tokens, call.output_tokens, at)
    return total


def known_cost_of_run(run: "AgentRun", table: PriceTable) -> float | None:
    """``cost_of_run``, with a model missing from the price table giving None (unknown cost).

    For batch stages: one unpriced model must not stop a build's scoring; the cost budget then
    counts the run's cost as missing, and operational metrics report the unpriced runs.
    """
    try:
        return cost_of_run(run, table)
    except UnknownModelError:
        return None
