"""``RowScrubber.scrub_rows`` (column by column) gives ``scrub_row``'s rows, row by row."""

from typing import Any

import pytest

from eval_pipeline.traces.model import Operation, SpanEvent, SpanLink
from eval_pipeline.traces.redact.fields import RowScrubber
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.store.span_table import span_row
from eval_pipeline_tests.traces.builders import make_span

EMAIL = "ada@example.com"
PHONE = "+44 20 7946 0958"
SHARED = {"service.name": "bench"}
PERSONAL = {"service.name": "bench", "owner": EMAIL}


def _rows(**extra: Any) -> list[tuple[Any, ...]]:
    spans = [
        make_span("1", operation=Operation.INVOKE_AGENT, agent_name="Weather", resource=SHARED),
        make_span("2", "1", name=f"chat for {EMAIL}", model="gpt-4.1", resource=SHARED),
        make_span("3", "1", agent_name=f"agent {PHONE}", model=EMAIL, resource=SHARED),
        make_span("4", "1", provider="openai", tool_call_id="call_1", resource=PERSONAL),
        make_span("5", "1", attributes={EMAIL: "x", "plain": 1}, resource=PERSONAL),
        make_span("6", "1", name=f"chat for {EMAIL}", conversation_id=PHONE, resource=SHARED),
        make_span("7", "1", scope_name="bench", status_message="fine", **extra),
    ]
    return list(map(span_row, spans))


def _scrubber() -> RowScrubber:
    return RowScrubber(Redactor(load_policy()))


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"events": (SpanEvent(f"mail {EMAIL}", 5, {"who": EMAIL}),)},
        {"links": (SpanLink("ab" * 16, "cd" * 8, f"k={EMAIL}", {}),)},
    ],
    ids=["columns", "events", "links"],
)
def test_scrub_rows_equals_scrub_row_on_each_row(extra: dict[str, Any]) -> None:
    rows = _rows(**extra)
    expected = list(map(_scrubber().scrub_row, rows))
    assert _scrubber().scrub_rows(rows) == expected
    assert expected != rows  # personal data was there to replace
    # The scrubber's caches (clean texts, scrubbed resources) do not change the result.
    warm = _scrubber()
    warm.scrub_rows(rows)
    assert warm.scrub_rows(rows) == expected


def test_scrub_rows_keeps_clean_rows_as_they_are() -> None:
    clean = [row for row in _rows() if "example" not in repr(row) and "7946" not in repr(row)]
    out = _scrubber().scrub_rows(clean)
    assert len(clean) == 2 and out == clean
    assert all(a is b for a, b in zip(out, clean, strict=True))
