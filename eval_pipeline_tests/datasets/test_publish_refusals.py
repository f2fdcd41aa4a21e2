"""Nothing invalid is published: validation runs before a version exists (issue 31).

A benchmark file with a duplicated task, a user file with a schema error, and a manifest whose
``content_hash`` is empty are refused with an error naming the file (and line where the format
has lines), exit 2, and no version appears in the store. The same rules as ``datasets
validate``: what import publishes, validate passes.
"""

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.datasets.artefact import DatasetError
from eval_pipeline.datasets.store import DatasetStore, default_dataset_store, write_dataset
from eval_pipeline_tests.datasets.builders import make_dataset

DATA = Path(__file__).resolve().parents[2] / "data"


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_a_tau2_file_with_a_duplicated_task_publishes_nothing(tmp_path: Path) -> None:
    with gzip.open(DATA / "taubench/tau2/airline_tasks.json.gz", "rt") as handle:
        tasks = json.load(handle)[:3]
    source = tmp_path / "tasks.json"
    source.write_text(json.dumps([*tasks, tasks[1]]))
    code, out = _run(
        "datasets",
        "import",
        "--format",
        "tau2",
        str(source),
        str(DATA / "taubench/v1/tools_airline.json.gz"),
        "--name",
        "benchmark/dup",
        "--version",
        "v1",
    )
    assert code == 2, out
    assert str(source) in out, out
    assert ": item 4: item 'tau2-airline-1': item_id is unique" in out, out
    assert "nothing published" in out
    assert default_dataset_store().versions("benchmark/dup") == []


def test_a_tau2_file_without_its_tool_schemas_publishes_nothing() -> None:
    code, out = _run(
        "datasets",
        "import",
        "--format",
        "tau2",
        str(DATA / "taubench/tau2/airline_tasks.json.gz"),
        "--name",
        "benchmark/no-tools",
        "--version",
        "v1",
    )
    assert code == 2 and "expected tools exist in the tool schema" in out, out
    assert default_dataset_store().versions("benchmark/no-tools") == []


def test_a_manifest_with_an_empty_content_hash_is_refused_when_read(tmp_path: Path) -> None:
    store = DatasetStore(tmp_path)
    folder = tmp_path / "golden/support/v1"
    write_dataset(make_dataset(), folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    (folder / "manifest.json").write_text(json.dumps({**manifest, "content_hash": ""}))
    try:
        store.load("golden/support", "v1")
    except DatasetError as exc:
        assert f"{folder / 'manifest.json'}" in str(exc) and "content_hash" in str(exc)
    else:
        raise AssertionError("a manifest without its content hash was read")
