"""Sessions read from the trace store by build and by day (its read API, real Parquet parts)."""

from pathlib import Path

from eval_pipeline.traces.sessions.stored import find_session, read_sessions
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.sessions.conversations import turn_spans


def test_sessions_by_build_and_by_day(tmp_path: Path):
    store = TraceStore(tmp_path / "store")
    first_day = turn_spans(1, "Where is order #W1?", "Shipped.") + turn_spans(
        2, "When does it arrive?", "Tomorrow."
    )
    next_day = turn_spans(3, "It did not arrive", "Sorry, refunding.")
    other = turn_spans(1, "Hi", "Hello", conversation="conv-other")
    store.write_spans(first_day + other, build="production", day="2026-12-01")
    store.write_spans(next_day, build="production", day="2026-12-02")
    store.write_spans(turn_spans(1, "Hi", "Hello"), build="candidate")
    whole = {s.session_id: s for s in read_sessions(store, "production")}
    assert sorted(whole) == ["conv-1", "conv-other"]
    assert [t.user_input for t in whole["conv-1"].turns] == [
        "Where is order #W1?",
        "When does it arrive?",
        "It did not arrive",
    ]
    assert whole["conv-1"].build == "production"
    (second,) = read_sessions(store, "production", "2026-12-02")
    assert (second.session_id, len(second.turns)) == ("conv-1", 1)
    assert len(read_sessions(store, "production", "2026-12-01")) == 2
    found = find_session(store, "conv-1")
    assert sorted(s.build or "" for s in found) == ["candidate", "production"]
    assert [len(s.turns) for s in find_session(store, "conv-1", "candidate")] == [1]
    assert find_session(store, "conv-nope") == []
