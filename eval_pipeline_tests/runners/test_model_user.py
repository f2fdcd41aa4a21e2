"""The model-driven user: the judge endpoint plays the customer, seeded, cached, bounded.

Contract: with ``Runner.simulated_user = model_users(judge)`` a multi-turn item's user messages
after the first are the endpoint's replies (here ``benchmarks.fake_llm``, whose answers are a
function of the prompt); the user stops when the model says stop, or at the turn limit; a rerun
of the same runs asks the endpoint nothing (the judge's completion cache); another run seed is
another user (other prompts).
"""

from dataclasses import replace
from pathlib import Path

from benchmarks.fake_llm import fake_llm
from eval_pipeline.datasets.conversation import ConversationScript
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.home import current_home
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.http_judge import HttpJudge, RetryPolicy
from eval_pipeline.runners.model_user import STOP, _parse, model_users
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.sessions.assemble import sessions_from_runs

AGENT = "eval_pipeline_tests.runners.conversation_agents:echo"
ITEM = DatasetItem(
    item_id="conv-model",
    input_messages=({"role": "user", "content": "hello, I need help with an order"},),
    conversation=ConversationScript(goal="Return order #W2378156", persona="terse", max_turns=6),
)


def _sessions(judge: CachedJudge, item: DatasetItem, runs: int) -> list[list[str]]:
    runner = PythonEntryPointRunner(AGENT)
    runner.simulated_user = model_users(judge)
    result = runner.run_items([item], build="b", runs_per_item=runs, concurrency=1)
    assert result.summary() == {"completed": runs, "failed": 0, "skipped": 0}
    spans = [s for outcome in result.outcomes for s in outcome.spans]
    sessions = sessions_from_runs(assemble_runs(spans), build="b")
    assert len(sessions) == runs and all(s.ended for s in sessions)
    return [[t.user_input for t in s.turns] for s in sessions]


def test_the_endpoint_plays_the_user_seeded_cached_and_bounded(isolated_home: Path) -> None:
    with fake_llm(latency=0.0) as server:
        http = HttpJudge("m", base_url=server.url, retry=RetryPolicy(1, 0.01, 0.01, 0.0))
        judge = CachedJudge(http, current_home().ensure().state_url)
        first = _sessions(judge, ITEM, runs=3)
        for turns in first:
            assert turns[0] == "hello, I need help with an order"
            assert 1 <= len(turns) <= 6
            assert all(t.startswith("statement ") for t in turns[1:]), turns
        asked = server.requests
        # One request per agent answer (the last one says stop), each prompt its own: the
        # run seed is in the prompt, so the three runs are three users.
        assert asked == sum(len(t) for t in first)
        assert len({tuple(t) for t in first}) > 1
        again = _sessions(CachedJudge(http, current_home().state_url), ITEM, runs=3)
        assert again == first and server.requests == asked  # all from the cache
        short = replace(ITEM, conversation=replace(ITEM.conversation, max_turns=1))
        assert all(len(t) == 1 for t in _sessions(judge, short, runs=2))


def test_the_reply_is_read_as_message_and_stop() -> None:
    assert _parse('{"message": "It is #W1.", "stop": false}') == ("It is #W1.", False)
    assert _parse('{"message": "Thanks!", "stop": true}') == ("Thanks!", True)
    assert _parse(f"Thanks, bye. {STOP}") == ("Thanks, bye.", True)
