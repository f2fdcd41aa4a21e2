"""Session assembly: any arrival order of turns and spans, duplicates, late turns, the end."""

import random
from datetime import UTC, datetime

import pytest

from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.sessions.assemble import (
    assemble_session,
    assemble_sessions,
    sessions_from_runs,
)
from eval_pipeline.traces.sessions.end import DEFAULT_IDLE_TIMEOUT_S, SESSION_END, marker_value
from eval_pipeline.traces.sessions.model import EndReason
from eval_pipeline_tests.traces.sessions.conversations import SECOND, T0, turn_spans


def _conversation(conversation: str = "conv-1", marker: object = None):
    last = {SESSION_END: marker} if marker is not None else None
    return [
        *turn_spans(
            1,
            "Where is my order #W1234567?",
            "Let me check.",
            conversation=conversation,
            tool=("get_order", {"order_id": "#W1234567"}),
        ),
        *turn_spans(2, "And when will it arrive?", "It ships tomorrow.", conversation=conversation),
        *turn_spans(
            3,
            "Thanks, bye",
            "Goodbye!",
            conversation=conversation,
            root_attributes=last,
            tokens=(7, 3),
        ),
    ]


def _summary(session):
    return (
        session.session_id,
        [t.user_input for t in session.turns],
        [t.answer for t in session.turns],
        [t.index for t in session.turns],
        [c.name for c in session.tool_calls],
        session.input_tokens,
        session.output_tokens,
        session.start_time_unix_nano,
        session.last_activity_unix_nano,
        session.ended,
        session.end_reason,
    )


def test_turns_in_order_with_inputs_answers_tools_tokens():
    (session,) = assemble_sessions(_conversation())
    assert [t.user_input for t in session.turns] == [
        "Where is my order #W1234567?",
        "And when will it arrive?",
        "Thanks, bye",
    ]
    assert [t.answer for t in session.turns] == ["Let me check.", "It ships tomorrow.", "Goodbye!"]
    assert [c.name for c in session.turns[0].tool_calls] == ["get_order"]
    assert (session.input_tokens, session.output_tokens) == (27, 13)
    assert session.start_time_unix_nano == T0 + 60 * SECOND
    assert session.duration_s == pytest.approx(122.0)
    assert session.ended is False and session.end_reason is None


@pytest.mark.parametrize("seed", range(6))
def test_any_arrival_order_and_duplicates_give_the_same_session(seed):
    spans = _conversation(marker="resolved") + _conversation("conv-2")
    expected = [_summary(s) for s in assemble_sessions(spans)]
    shuffled = spans + random.Random(seed).sample(spans, k=len(spans) // 2)  # duplicates
    random.Random(seed).shuffle(shuffled)
    assert [_summary(s) for s in assemble_sessions(shuffled)] == expected
    assert [s.session_id for s in assemble_sessions(shuffled)] == ["conv-1", "conv-2"]


def test_late_turn_takes_its_place_by_start_time():
    early = turn_spans(1, "first", "a1") + turn_spans(3, "third", "a3")
    (before,) = assemble_sessions(early)
    assert [t.user_input for t in before.turns] == ["first", "third"]
    late = turn_spans(2, "second", "a2")
    (after,) = assemble_sessions(early + late)
    assert [t.user_input for t in after.turns] == ["first", "second", "third"]
    assert [t.index for t in after.turns] == [1, 2, 3]


def test_turn_whose_root_arrives_late_joins_when_it_arrives():
    spans = turn_spans(1, "first", "a1") + turn_spans(2, "second", "a2")
    orphan_child = [s for s in spans if s.trace_id == spans[-1].trace_id and s.parent_span_id]
    first_only = [s for s in spans if s.trace_id == spans[0].trace_id]
    (partial,) = assemble_sessions(first_only + orphan_child)
    assert len(partial.turns) == 1  # the child names no conversation: not a turn yet
    (whole,) = assemble_sessions(first_only + orphan_child + spans)
    assert len(whole.turns) == 2


def test_same_run_twice_is_one_turn_keeping_the_fuller_copy():
    spans = turn_spans(1, "q", "a", tool=("t", {}))
    fuller = assemble_runs(spans)
    thinner = assemble_runs(spans[:1])
    (session,) = sessions_from_runs(thinner + fuller)
    assert len(session.turns) == 1 and len(session.turns[0].run.spans) == 3


def test_idle_end_given_a_clock():
    spans = _conversation()
    last = T0 + 60 * SECOND * 3 + 2 * SECOND
    (open_,) = assemble_sessions(spans, now=last + int(DEFAULT_IDLE_TIMEOUT_S * 1e9) - 1)
    assert open_.ended is False
    (ended,) = assemble_sessions(spans, now=last + int(DEFAULT_IDLE_TIMEOUT_S * 1e9))
    assert (ended.ended, ended.end_reason) == (True, EndReason.IDLE)
    assert ended.ended_at_unix_nano == last + int(DEFAULT_IDLE_TIMEOUT_S * 1e9)
    (short,) = assemble_sessions(spans, now=last + 61 * SECOND, idle_timeout_s=60)
    assert short.ended and short.end_reason == EndReason.IDLE
    moment = datetime.fromtimestamp((last + 61 * SECOND) / 1e9, tz=UTC)
    assert assemble_sessions(spans, now=moment, idle_timeout_s=60)[0].ended
    assert not assemble_sessions(spans)[0].ended  # no clock: only a marker ends a session


def test_a_late_turn_moves_the_idle_clock():
    spans = _conversation()
    now = T0 + 60 * SECOND * 4
    assert assemble_sessions(spans, now=now, idle_timeout_s=30)[0].ended
    later = turn_spans(4, "one more thing", "sure", start=now - 10 * SECOND)
    assert not assemble_sessions(spans + later, now=now, idle_timeout_s=30)[0].ended


def test_explicit_end_marker():
    (session,) = assemble_sessions(_conversation(marker="resolved"))
    assert (session.ended, session.end_reason, session.end_detail) == (
        True,
        EndReason.MARKER,
        "resolved",
    )
    assert session.ended_at_unix_nano == T0 + 60 * SECOND * 3 + 2 * SECOND
    (flag,) = assemble_sessions(_conversation(marker=True))
    assert flag.ended and flag.end_detail is None
    (not_ended,) = assemble_sessions(_conversation(marker=False))
    assert not not_ended.ended
    assert marker_value("false") == (False, None) and marker_value("") == (False, None)
    assert marker_value("true") == (True, None) and marker_value(1) == (False, None)


def test_bad_idle_timeout_and_naive_clock_are_refused():
    runs = assemble_runs(turn_spans(1, "q", "a"))
    with pytest.raises(ValueError, match="positive number of seconds"):
        assemble_session("conv-1", runs, idle_timeout_s=0)
    with pytest.raises(ValueError, match="timezone-aware"):
        assemble_session("conv-1", runs, now=datetime(2026, 1, 1))


def test_runs_without_conversation_are_no_session():
    spans = turn_spans(1, "q", "a")
    anonymous = [s.__class__(**{**s.__dict__, "conversation_id": None}) for s in spans]
    assert assemble_sessions(anonymous) == []
