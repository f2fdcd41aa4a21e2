"""Cost is tokens x the versioned price, never self-reported.

Cost is tokens x the versioned price in effect on the run's date, from the price table,
never a figure the agent reports; unknown models are an error, missing usage is unknown cost.
"""

from datetime import date
from pathlib import Path

import pytest

from eval_pipeline.suites.prices import (
    DEFAULT_PRICES,
    PriceTable,
    PriceTableError,
    UnknownModelError,
    cost_of_run,
)
from eval_pipeline.traces.model import Operation, Span
from eval_pipeline.traces.runs.assemble import assemble_run

DAY_NS = 1_727_000_000_000_000_000  # 2024-09-22


def _run(*chats: tuple[str | None, int | None, int | None], agent_cost: float = 99.0) -> object:
    root = Span(
        trace_id="a" * 32,
        span_id="0" * 16,
        parent_span_id=None,
        name="invoke_agent x",
        operation=Operation.INVOKE_AGENT,
        agent_name="x",
        start_time_unix_nano=DAY_NS,
        end_time_unix_nano=DAY_NS + 10,
        attributes={"agent.reported_cost_usd": agent_cost},
    )
    spans = [root] + [
        Span(
            trace_id="a" * 32,
            span_id=f"{i + 1:016x}",
            parent_span_id="0" * 16,
            name=f"chat {model}",
            operation=Operation.CHAT,
            model=model,
            input_tokens=tin,
            output_tokens=tout,
            start_time_unix_nano=DAY_NS + i,
            end_time_unix_nano=DAY_NS + i + 1,
        )
        for i, (model, tin, tout) in enumerate(chats)
    ]
    return assemble_run("a" * 32, spans)


def test_cost_uses_the_price_in_effect_on_the_date() -> None:
    table = PriceTable.load()
    assert table.cost("gpt-4o", 1_000_000, 0, date(2024, 6, 1)) == pytest.approx(5.0)
    assert table.cost("gpt-4o", 1_000_000, 0, date(2024, 11, 1)) == pytest.approx(2.5)
    assert table.cost("gpt-4o-2024-08-06", 2000, 1000) == pytest.approx(0.015)


def test_unknown_model_is_an_error_listing_priced_models() -> None:
    table = PriceTable.load()
    with pytest.raises(UnknownModelError, match=r"no price for model 'mystery-1'.*gpt-4\.1"):
        table.cost("mystery-1", 10, 10)
    with pytest.raises(UnknownModelError, match="first priced 2025-04-14"):
        table.cost("gpt-4.1", 10, 10, date(2024, 1, 1))


def test_run_cost_sums_model_calls_and_ignores_self_reported_cost() -> None:
    run = _run(("gpt-4o", 1000, 500), ("gpt-4o-mini", 10_000, 2000))
    expected = (1000 * 5.0 + 500 * 15.0 + 10_000 * 0.15 + 2000 * 0.60) / 1e6  # before 2024-10-02
    assert cost_of_run(run, PriceTable.load()) == pytest.approx(expected)  # type: ignore[arg-type]


def test_run_cost_is_unknown_without_usage_or_model_calls() -> None:
    table = PriceTable.load()
    assert cost_of_run(_run(("gpt-4o", None, 10)), table) is None  # type: ignore[arg-type]
    assert cost_of_run(_run(), table) is None  # type: ignore[arg-type]


def test_broken_price_table_names_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    text = DEFAULT_PRICES.read_text().replace("input: 0.15", "input: -0.15")
    path.write_text(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "-0.15" in row)
    with pytest.raises(PriceTableError, match=rf"{path}:{line}: models.gpt-4o-mini\[0\].input"):
        PriceTable.load(path)
