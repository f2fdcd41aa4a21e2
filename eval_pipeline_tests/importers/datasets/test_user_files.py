"""Datasets from your own files: JSONL and CSV in the published item format (issue 31).

``datasets import NAME FILE`` reads items in the format of ``datasets/item.schema.json``
(format from the extension unless ``--format`` says), refuses a file with any schema error,
duplicate id or unknown tool with ``file:line`` errors and exit 2 (nothing published), and
publishes ``golden/NAME@v1`` otherwise, whose items score as the built-in ones do.
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.importers.datasets.user_files import read_user_items
from eval_pipeline.importers.source_files import SourceError

TOOLS = [
    {
        "name": "get_order",
        "description": "Look an order up.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}},
            "required": ["order_id"],
        },
    },
    {
        "name": "refund",
        "description": "Refund an order.",
        "parameters": {
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "reason": {"type": "string"}},
        },
    },
]


def _item(item_id: str, **extra: object) -> dict[str, object]:
    return {
        "item_id": item_id,
        "input": f"Please refund order {item_id}",
        "expected_tool_calls": [
            {"name": "get_order", "arguments": {"order_id": item_id}},
            {
                "name": "refund",
                "arguments": {"order_id": item_id, "reason": "damaged"},
                "also_accept": {"reason": ["broken"]},
                "may_omit": ["reason"],
            },
        ],
        "ordering": [{"before": "get_order", "after": "refund"}],
        "reference_answer": f"Order {item_id} is refunded.",
        "tool_schemas": TOOLS,
        "slices": {"intent": "refund"},
        **extra,
    }


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_jsonl_items_map_onto_the_item_model(tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "items.jsonl", [_item("A1"), _item("A2")])
    read = read_user_items(source)
    first = read.items[0]
    assert [i.item_id for i in read.items] == ["A1", "A2"]
    assert read.locations == (f"{source}:1", f"{source}:2")
    assert first.input_messages == ({"role": "user", "content": "Please refund order A1"},)
    refund = first.expected_tool_calls[1]
    assert refund.arguments == {"order_id": ["A1"], "reason": ["damaged", "broken", ""]}
    assert first.ordering[0].before == "get_order"
    assert first.reference_answer == "Order A1 is refunded." and first.slices == {
        "intent": "refund"
    }


def test_csv_takes_flat_text_columns_and_json_columns_for_nested_fields(tmp_path: Path) -> None:
    source = tmp_path / "items.csv"
    calls = json.dumps([{"name": "get_order", "arguments": {"order_id": "B1"}}])
    source.write_text(
        "item_id,input,reference_answer,expected_tool_calls,slices\n"
        f'B1,"Where is order B1,\nplease?",It ships today.,"{calls.replace(chr(34), 2 * chr(34))}",'
        '"{""intent"": ""status""}"\n'
        'B2,Hello,Hi there.,,"{""intent"": ""greeting""}"\n'
    )
    read = read_user_items(source)
    assert [i.item_id for i in read.items] == ["B1", "B2"]
    assert read.items[0].user_input == "Where is order B1,\nplease?"
    assert read.items[0].expected_tool_calls[0].arguments == {"order_id": ["B1"]}
    assert read.items[1].expected_tool_calls == ()
    assert read.locations == (f"{source}:2", f"{source}:4")


def test_schema_errors_name_file_line_and_field(tmp_path: Path) -> None:
    bad = _item("C2")
    bad["expected_tool_calls"] = [{"arguments": {"order_id": "C2"}}]
    source = _jsonl(tmp_path / "items.jsonl", [_item("C1"), bad, {**_item("C3"), "slice": {}}])
    try:
        read_user_items(source)
    except SourceError as exc:
        message = str(exc)
    else:
        raise AssertionError("a file with schema errors was read")
    assert f"{source}:2: expected_tool_calls[0]: 'name' is a required property" in message
    assert f"{source}:3: (item): unknown field 'slice'" in message


def test_a_bad_csv_cell_names_its_line_and_column(tmp_path: Path) -> None:
    source = tmp_path / "items.csv"
    source.write_text("item_id,input,slices\nD1,hi,{not json}\n")
    try:
        read_user_items(source)
    except SourceError as exc:
        assert f"{source}:2: slices: not valid JSON" in str(exc)
    else:
        raise AssertionError("a bad JSON cell was read")


def test_import_name_file_publishes_a_golden_version(tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "items.jsonl", [_item("E1"), _item("E2")])
    code, out = _run("datasets", "import", "my-set", str(source))
    assert code == 0, out
    assert "published golden/my-set@v1" in out and "2 item(s)" in out
    dataset = default_dataset_store().load("golden/my-set", "v1")
    assert dataset.item_ids == ("E1", "E2")
    code, out = _run("datasets", "validate", "golden/my-set", "v1")
    assert code == 0, out
    code, out = _run("datasets", "import", "my-set", str(source))
    assert code == 0 and "unchanged" in out, out
    assert default_dataset_store().versions("golden/my-set") == ["v1"]


def test_a_duplicate_id_or_an_unknown_tool_refuses_the_file(tmp_path: Path) -> None:
    unknown = _item("F3")
    unknown["forbidden_calls"] = [{"name": "delete_account"}]
    source = _jsonl(tmp_path / "items.jsonl", [_item("F1"), _item("F1"), unknown])
    code, out = _run("datasets", "import", "my-set", str(source), "--format", "jsonl")
    assert code == 2, out
    assert f"{source}:1: item 'F1': item_id is unique" in out
    assert f"{source}:2: item 'F1': item_id is unique" in out
    assert f"{source}:3: item 'F3': expected tools exist in the tool schema" in out
    assert "nothing published" in out
    assert default_dataset_store().versions("golden/my-set") == []


def test_an_unknown_argument_or_a_bad_tool_schema_refuses_the_file(tmp_path: Path) -> None:
    wrong = _item("G2")
    wrong["expected_tool_calls"] = [{"name": "get_order", "arguments": {"order": "G2"}}]
    broken = _item("G3", tool_schemas=[{"name": "get_order", "parameters": {"type": "objekt"}}])
    source = _jsonl(tmp_path / "items.jsonl", [_item("G1"), wrong, broken])
    code, out = _run("datasets", "import", "my-set", str(source))
    assert code == 2, out
    assert f"{source}:2: item 'G2': arguments name parameters of the tool" in out
    assert "get_order has no parameter 'order'" in out
    assert f"{source}:3: item 'G3': tool schemas are valid" in out
    assert default_dataset_store().versions("golden/my-set") == []


def test_the_format_comes_from_the_extension_or_is_asked_for(tmp_path: Path) -> None:
    source = tmp_path / "items.txt"
    source.write_text("{}\n")
    code, out = _run("datasets", "import", "my-set", str(source))
    assert code == 2 and "--format" in out and str(source) in out, out


def test_a_tools_file_with_a_broken_schema_is_named(tmp_path: Path) -> None:
    source = _jsonl(tmp_path / "items.jsonl", [_item("H1")])
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([TOOLS[0], {"name": "x", "parameters": {"type": "objekt"}}]))
    code, out = _run("datasets", "import", "my-set", str(source), "--tools", str(tools))
    assert code == 2 and f"{tools}: [1]: x: parameters" in out, out
    tools.write_text(json.dumps([{"description": "no name"}]))
    code, out = _run("datasets", "import", "my-set", str(source), "--tools", str(tools))
    assert code == 2 and f"{tools}: [0]:" in out, out
    assert default_dataset_store().versions("golden/my-set") == []
