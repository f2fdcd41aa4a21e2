"""The `datasets` CLI commands (contract).

`eval-pipeline datasets import|list|show|validate` (contract): import publishes a version to
the home's store and prints its counts; republishing changed content is refused with exit 2.
"""

import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.store import write_dataset
from eval_pipeline.importers.datasets import import_dataset

DATA = Path(__file__).resolve().parents[2] / "data"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_import_list_and_show(isolated_home: Path) -> None:
    code, out = _run(
        "datasets",
        "import",
        "--format",
        "tau2",
        str(DATA / "taubench/tau2/airline_tasks.json.gz"),
        str(DATA / "taubench/v1/tools_airline.json.gz"),
        "--name",
        "benchmark/tau2-airline",
        "--version",
        "v1",
        "--owner",
        "qa",
    )
    assert code == 0, out
    assert "published benchmark/tau2-airline@v1 (benchmark, owner qa): 50 item(s)" in out
    assert (isolated_home / "datasets/benchmark/tau2-airline/v1/items.jsonl").is_file()
    code, out = _run("datasets", "list", "--format", "json")
    rows = {(r["name"], r["version"]): r for r in json.loads(out)}
    assert rows[("benchmark/tau2-airline", "v1")]["items"] == 50
    assert ("golden/retail-refunds", "v1") in rows
    code, out = _run("datasets", "show", "benchmark/tau2-airline", "v1", "--format", "json")
    document = json.loads(out)
    assert document["owner"] == "qa"
    assert len(document["items"]) == 50
    assert document["items"][0]["item_id"] == "tau2-airline-0"


def test_changed_content_under_the_same_version_exits_2() -> None:
    args = [
        "datasets",
        "import",
        "--format",
        "agentdojo",
        "--name",
        "adversarial/dojo",
        "--version",
        "v1",
    ]
    assert _run(*args, str(DATA / "agentdojo/v1/slack"))[0] == 0
    code, out = _run(*args, str(DATA / "agentdojo/v1/banking"))
    assert code == 2
    assert "already published" in out and "next free: v2" in out


def test_validate_exits_1_on_a_broken_dataset(isolated_home: Path) -> None:
    # Import refuses such a version; one written before validation ran before publishing
    # (or by hand) is still read, and validate says what is wrong with it.
    imported = import_dataset(
        "tau2",
        [DATA / "taubench/tau2/airline_tasks.json.gz"],
        name="benchmark/no-tools",
        version="v1",
        owner="qa",
    ).dataset
    write_dataset(imported, isolated_home / "datasets/benchmark/no-tools/v1")
    code, out = _run("datasets", "validate", "benchmark/no-tools", "v1")
    assert code == 1
    assert "expected tools exist in the tool schema" in out
    code, out = _run(
        "datasets", "validate", "golden/retail-refunds", "v1", "--require-slice", "intent"
    )
    assert code == 0, out


def test_bad_input_exits_2() -> None:
    code, out = _run(
        "datasets",
        "import",
        "--format",
        "bfcl",
        "missing.jsonl",
        "--name",
        "benchmark/b",
        "--version",
        "v1",
    )
    assert code == 2 and "missing.jsonl" in out
    code, out = _run("datasets", "show", "golden/nope", "v1")
    assert code == 2 and "not found" in out
