"""tau2 tasks as multi-turn items: the user scenario played by a deterministic script.

Contract: ``datasets import --format tau2 --multi-turn`` makes one multi-turn item per task
(validated, published) with the single-turn import's reference kept; the script opens with the
reason for call in the first person and answers the agent from the known info (e-mail, name and
zip), the order ids, "yes" to a confirmation, and nothing to a closing.
"""

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.codec import item_from_json, item_to_json
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.importers.benchmarks import tau2
from eval_pipeline.importers.benchmarks.tau2_conversation import first_person, import_multi_turn
from eval_pipeline.runners.scripted_user import ScriptedUser
from eval_pipeline.sample_agent.multi_turn import ASK_EMAIL, ASK_ORDER, CLOSE, CONFIRM

DATA = Path(__file__).resolve().parents[3] / "data" / "taubench"
RETAIL = DATA / "tau2" / "retail_tasks.json.gz"


def _retail() -> dict[str, DatasetItem]:
    return {i.item_id: i for i in import_multi_turn([RETAIL]).items}


def test_every_retail_task_is_a_conversation_with_the_single_turn_reference() -> None:
    tasks = json.loads(gzip.decompress(RETAIL.read_bytes()))
    items = _retail()
    assert len(items) == len(tasks) == 114
    for task in tasks:
        item = items[f"tau2-retail-{task['id']}"]
        single = tau2.task_item(task)
        assert item.conversation is not None and item.multi_turn
        assert item.conversation.goal == task["user_scenario"]["instructions"]["reason_for_call"]
        assert item.conversation.max_turns == 10 and item.conversation.user_turns == ()
        assert item.expected_end_state == single.expected_end_state
        assert item.expected_tool_calls == single.expected_tool_calls
        assert item.input_messages[0]["role"] == "user"
        assert not item.user_input.startswith("You ")
        assert item_from_json(item_to_json(item)) == item


def test_the_script_answers_from_the_known_info() -> None:
    items = _retail()
    yusuf = ScriptedUser(items["tau2-retail-0"].conversation)  # name + zip, no e-mail
    assert items["tau2-retail-0"].user_input.startswith("I received my order #W2378156")
    assert yusuf.next_message(ASK_EMAIL) == (
        "I do not remember my email address. I am Yusuf Rossi in zip code 19122."
    )
    assert yusuf.next_message(ASK_ORDER) == "It is order #W2378156."
    assert yusuf.next_message(CONFIRM.format(action="exchange it")) == "Yes, please go ahead."
    assert yusuf.next_message(CLOSE) is None
    mia = ScriptedUser(items["tau2-retail-11"].conversation)  # e-mail known, no order id
    assert mia.next_message(ASK_EMAIL) == "My e-mail is mia.garcia2723@example.com."
    assert mia.next_message(ASK_ORDER) == "I do not know the order number."
    amelia = ScriptedUser(items["tau2-retail-54"].conversation)  # two e-mails
    assert amelia.next_message(ASK_EMAIL) == (
        "I have two e-mails: silva7872@example.com and amelia.silva7872@example.com."
    )


def test_first_person() -> None:
    assert first_person("You name is Ava and your zip code is 94128.") == (
        "My name is Ava and my zip code is 94128."
    )
    assert first_person("You are Yusuf Rossi; you'd go for no backlight.") == (
        "I am Yusuf Rossi; I'd go for no backlight."
    )


def test_cli_imports_multi_turn_items_and_refuses_other_formats(isolated_home: Path) -> None:
    args = ["datasets", "import", "--format", "tau2", "--multi-turn", "--name", "tau2-air-conv"]
    paths = [str(DATA / "tau2/airline_tasks.json.gz"), str(DATA / "v1/tools_airline.json.gz")]
    result = CliRunner().invoke(cli, [*args, *paths, "--output-format", "json"])
    assert result.exit_code == 0, result.output
    shown = CliRunner().invoke(
        cli, ["datasets", "show", "benchmark/tau2-air-conv", "v1", "--format", "json"]
    )
    items = json.loads(shown.output)["items"]
    assert len(items) == 50
    assert all(i["conversation"]["goal"] and i["conversation"]["replies"] for i in items)
    bad = CliRunner().invoke(
        cli, ["datasets", "import", "--format", "taubench", "--multi-turn", "x", *paths]
    )
    assert bad.exit_code == 2 and "--multi-turn: only with --format tau2" in bad.output
