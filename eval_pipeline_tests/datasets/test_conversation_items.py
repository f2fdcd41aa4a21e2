"""Multi-turn items: the conversation block is validated, stored and read back whole.

Contract: a user item's ``conversation`` (goal, persona, scripted turns, conditioned replies,
turn limit) is checked by the schema and its ``when`` patterns compiled: a bad one is refused
at import with exit 2 naming the file, line and field; the item codec round-trips it, and a
single-turn item's stored form has no ``conversation`` key (so existing datasets hash the
same); the shipped conversation set loads with its script.
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.codec import ItemDecodeError, item_from_dict, item_to_dict
from eval_pipeline.datasets.conversation import ConversationScript, ScriptedReply
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.datasets.user_items import item_from_user, schema_problems

GOOD = {
    "item_id": "c1",
    "input": "Cancel order #W1 please.",
    "conversation": {
        "goal": "cancel #W1",
        "user_turns": ["my e-mail is a@b.co"],
        "replies": [{"when": "confirm", "say": "yes"}],
        "max_turns": 4,
    },
    "slices": {"intent": "cancel"},
}


def test_a_user_item_gives_the_script() -> None:
    assert schema_problems(GOOD) == []
    item = item_from_user(GOOD)
    assert item.multi_turn
    assert item.conversation == ConversationScript(
        "cancel #W1", "", ("my e-mail is a@b.co",), (ScriptedReply("confirm", "yes"),), 4
    )
    assert item.user_input == "Cancel order #W1 please."


def test_problems_name_the_field() -> None:
    bad_regex = {
        **GOOD,
        "conversation": {**GOOD["conversation"], "replies": [{"when": "(", "say": "x"}]},
    }
    assert schema_problems(bad_regex)[0][0] == "conversation.replies[0].when"
    no_goal = {**GOOD, "conversation": {"user_turns": ["x"]}}
    assert schema_problems(no_goal) == [("conversation", "'goal' is a required property")]
    extra = {**GOOD, "conversation": {**GOOD["conversation"], "policy": "x"}}
    assert schema_problems(extra) == [("conversation", "unknown field 'policy'")]


def test_import_refuses_a_bad_pattern_with_exit_2(tmp_path: Path) -> None:
    source = tmp_path / "conv.jsonl"
    bad = {**GOOD, "conversation": {**GOOD["conversation"], "replies": [{"when": "[", "say": "x"}]}}
    source.write_text(json.dumps(GOOD) + "\n" + json.dumps({**bad, "item_id": "c2"}) + "\n")
    result = CliRunner().invoke(cli, ["datasets", "import", "conv", str(source)])
    assert result.exit_code == 2, result.output
    assert f"{source}:2" in result.output and "conversation.replies[0].when" in result.output


def test_the_codec_round_trips_the_script_and_leaves_single_turn_items_alone() -> None:
    item = item_from_user(GOOD)
    assert item_from_dict(json.loads(json.dumps(item_to_dict(item)))) == item
    assert "conversation" not in item_to_dict(DatasetItem(item_id="single"))
    broken = {**item_to_dict(item), "conversation": {"goal": "g", "max_turns": 0}}
    try:
        item_from_dict(broken)
    except ItemDecodeError as exc:
        assert str(exc) == "c1: conversation.max_turns: expected a positive integer"
    else:
        raise AssertionError("a turn limit of 0 was accepted")


def test_the_shipped_conversation_set_loads_with_its_scripts() -> None:
    dataset = DatasetStore(shipped_datasets_dir()).load("golden/support-conversations", "v1")
    assert len(dataset.items) == 6
    assert all(item.multi_turn and item.expected_end_state for item in dataset.items)
