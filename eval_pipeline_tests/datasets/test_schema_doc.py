"""``docs/datasets.md`` and ``item.schema.json`` say the same thing, and its examples import.

Every field table rendered from the schema (``schema_doc``) is in the page, every field of the
schema is in a table, the schema is a valid Draft 2020-12 schema, and every example block of
the page (JSONL, CSV, the tools file) is imported by ``datasets import`` and published.
"""

import re
from pathlib import Path

from click.testing import CliRunner
from jsonschema import Draft202012Validator

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import default_dataset_store
from eval_pipeline.datasets.user_items import item_schema
from eval_pipeline_tests.datasets.schema_doc import TABLES, table

PAGE = Path(__file__).resolve().parents[2] / "docs/datasets.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", PAGE.read_text(), flags=re.DOTALL)


def test_the_schema_is_valid_and_every_field_has_a_description() -> None:
    schema = item_schema()
    Draft202012Validator.check_schema(schema)
    for definition in TABLES.values():
        node = schema if definition is None else schema["$defs"][definition]
        assert all(spec.get("description") for spec in node["properties"].values())


def test_the_page_holds_every_table_rendered_from_the_schema() -> None:
    page = PAGE.read_text()
    for title, definition in TABLES.items():
        assert f"### {title}" in page
        for row in table(definition):
            assert row in page, f"docs/datasets.md lacks the schema's row: {row}"


def test_every_example_imports(tmp_path: Path) -> None:
    (tools_text,) = _blocks("json")
    tools = tmp_path / "tools.json"
    tools.write_text(tools_text)
    runner = CliRunner()
    for index, block in enumerate(_blocks("jsonl")):
        source = tmp_path / f"example{index}.jsonl"
        source.write_text(block)
        kind = "adversarial" if '"canaries"' in block else "golden"
        args = ["datasets", "import", f"ex{index}", str(source), "--tools", str(tools)]
        result = runner.invoke(cli, [*args, "--kind", kind])
        assert result.exit_code == 0, result.output
    (csv_text,) = _blocks("csv")
    (tmp_path / "example.csv").write_text(csv_text)
    csv_args = ["datasets", "import", "ex-csv", str(tmp_path / "example.csv"), "--tools"]
    result = runner.invoke(cli, [*csv_args, str(tools)])
    assert result.exit_code == 0, result.output
    csv_items = default_dataset_store().load("golden/ex-csv", "v1").items
    assert csv_items[1].user_input == "Hello,\nare you open on Sunday?"


def test_the_readme_example_imports(tmp_path: Path) -> None:
    readme = PAGE.parents[1] / "README.md"
    section = readme.read_text().split("## Bring your own dataset", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```jsonl\n(.*?)```", section, flags=re.DOTALL)
    (tmp_path / "items.jsonl").write_text(block)
    result = CliRunner().invoke(
        cli, ["datasets", "import", "my-set", str(tmp_path / "items.jsonl")]
    )
    assert result.exit_code == 0 and "published golden/my-set@v1" in result.output, result.output
