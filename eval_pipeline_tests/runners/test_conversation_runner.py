"""A multi-turn item runs as a conversation: one trace per turn, one session per run.

Contract (``runners.conversation``): the agent is called once per turn with the history so far
(the script hidden); the scripted user answers from the agent's last answer (conditioned
replies first, then the scripted turns in order) until it has nothing to say or the turn limit;
every turn's root carries the run's eval context and one conversation id, the last the end
marker with why; the turns assemble into one ended session; a turn without an agent root fails
the run with a reason naming the turn.
"""

from dataclasses import replace

from eval_pipeline.datasets.conversation import ConversationScript, ScriptedReply
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.runners.scripted_user import ScriptedUser
from eval_pipeline.traces import eval_context
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.sessions.assemble import sessions_from_runs
from eval_pipeline.traces.sessions.end import SESSION_END
from eval_pipeline_tests.runners import conversation_agents

AGENTS = "eval_pipeline_tests.runners.conversation_agents"
SCRIPT = ConversationScript(
    goal="cancel an order",
    persona="terse",
    user_turns=("please cancel order #W1", "thanks, bye now"),
    replies=(ScriptedReply(r"do you confirm", "yes I confirm it"),),
    max_turns=6,
)
ITEM = DatasetItem(
    item_id="conv-1",
    input_messages=({"role": "user", "content": "hello there agent"},),
    conversation=SCRIPT,
)


def test_the_scripted_user_answers_replies_first_then_its_turns_then_stops() -> None:
    user = ScriptedUser(SCRIPT)
    assert user.next_message("you said: hello") == "please cancel order #W1"
    assert user.next_message("Do you CONFIRM?") == "yes I confirm it"
    assert user.next_message("Do you confirm, really?") == "yes I confirm it"
    assert user.next_message("done") == "thanks, bye now"
    assert user.next_message("bye") is None


def test_each_turn_is_a_trace_of_one_session_ended_by_the_marker_on_the_last() -> None:
    conversation_agents.SEEN.clear()
    runner = PythonEntryPointRunner(f"{AGENTS}:echo")
    result = runner.run_items([ITEM], build="b", runs_per_item=2, concurrency=1)
    assert result.summary() == {"completed": 2, "failed": 0, "skipped": 0}
    first = [seen for seen in conversation_agents.SEEN][:4]
    assert [s["turn"] for s in first] == [1, 2, 3, 4]
    assert not any(s["script_visible"] for s in first)
    assert len({s["conversation_id"] for s in first}) == 1
    assert [m["content"] for m in first[3]["messages"]] == [
        "hello there agent",
        "you said: hello there agent",
        "please cancel order #W1",
        "Do you confirm the cancellation?",
        "yes I confirm it",
        "you said: yes I confirm it",
        "thanks, bye now",
    ]
    spans = [span for outcome in result.outcomes for span in outcome.spans]
    runs = assemble_runs(spans)
    assert len(runs) == 8
    sessions = sessions_from_runs(runs, build="b")
    assert [(s.item_id, s.run_index, len(s.turns)) for s in sessions] == [
        ("conv-1", 0, 4),
        ("conv-1", 1, 4),
    ]
    for session in sessions:
        assert session.ended and session.end_reason == "marker"
        assert session.end_detail == "script_done"
        assert [t.user_input for t in session.turns] == [
            "hello there agent",
            "please cancel order #W1",
            "yes I confirm it",
            "thanks, bye now",
        ]
        for turn in session.turns:
            root = next(s for s in turn.run.spans if s.span_id == turn.run.root_span_id)
            context = eval_context.from_attributes(root.attributes)
            assert (context.build_id, context.item_id) == ("b", "conv-1")
            assert (SESSION_END in root.attributes) == (turn.index == 4)
    assert sessions[0].session_id != sessions[1].session_id


def test_the_turn_limit_ends_the_conversation() -> None:
    looping = replace(
        ITEM,
        conversation=replace(SCRIPT, replies=(ScriptedReply(".", "again please, once more"),)),
    )
    result = PythonEntryPointRunner(f"{AGENTS}:echo").run_items([looping], build="b")
    (session,) = sessions_from_runs(assemble_runs(result.outcomes[0].spans))
    assert len(session.turns) == SCRIPT.max_turns
    assert session.end_detail == "max_turns"


def test_a_turn_without_an_agent_root_fails_the_run_naming_the_turn() -> None:
    result = PythonEntryPointRunner(f"{AGENTS}:no_root_on_turn_two").run_items([ITEM], build="b")
    (outcome,) = result.outcomes
    assert outcome.status == "failed"
    assert outcome.failure_reason == "turn 2: none of the spans is an invoke_agent root"
