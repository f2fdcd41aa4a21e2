"""CLI: `datasets` commands (see the package docstring for exit codes).

``datasets import NAME FILE...`` (your JSONL/CSV items) and ``datasets import --format
tau2|taubench|bfcl|agentdojo PATH... --name N --version V`` (**contract**) validate and publish
a new dataset version in the home's store (``datasets_import``). ``datasets list`` and
``datasets show NAME VERSION`` read the home's store and the datasets shipped with the package.
``datasets validate NAME VERSION`` runs the same checks as publishing (exit 1 on failure).
"""

from typing import Any

import click

from eval_pipeline.cli.datasets_import import import_command
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_table
from eval_pipeline.datasets.artefact import DatasetError
from eval_pipeline.datasets.codec import item_to_dict
from eval_pipeline.datasets.store import DatasetStore, default_dataset_store


def _store() -> DatasetStore:
    from eval_pipeline.home import current_home

    current_home().ensure()
    return default_dataset_store()


@click.group("datasets")
def datasets() -> None:
    """Import, list, show and validate versioned datasets."""


datasets.add_command(import_command)


@datasets.command("list")
@format_option()
def list_command(fmt: str) -> None:
    """Every dataset version in the home's store and the shipped data."""
    store = _store()
    rows: list[dict[str, Any]] = []
    for name, version in store.list():
        dataset = store.load(name, version)
        rows.append(
            {
                "name": name,
                "version": version,
                "kind": dataset.kind,
                "owner": dataset.owner,
                "items": len(dataset.items),
                "content_hash": dataset.content_hash,
            }
        )
    if fmt == "json":
        echo_json(rows)
        return
    print_table(
        ("dataset", "kind", "owner", "items", "content hash"),
        (
            (
                f"{r['name']}@{r['version']}",
                r["kind"],
                r["owner"],
                r["items"],
                r["content_hash"][:19],
            )
            for r in rows
        ),
    )


@datasets.command("show")
@click.argument("name")
@click.argument("version")
@format_option()
def show_command(name: str, version: str, fmt: str) -> None:
    """One dataset version: manifest and items."""
    try:
        dataset = _store().load(name, version)
    except DatasetError as exc:
        raise InputError(f"{exc}") from None
    if fmt == "json":
        document = {
            "name": dataset.name,
            "version": dataset.version,
            "kind": dataset.kind,
            "owner": dataset.owner,
            "description": dataset.description,
            "content_hash": dataset.content_hash,
            "provenance": dataset.provenance,
            "tool_schemas": list(dataset.tool_schemas),
            "items": [item_to_dict(item) for item in dataset.items],
        }
        echo_json(document)
        return
    print_table(
        ("item", "expected tools", "slices"),
        (
            (
                item.item_id,
                [c.name for c in item.expected_tool_calls],
                [f"{k}={v}" for k, v in item.slices.items()],
            )
            for item in dataset.items
        ),
        title=f"{dataset.ref}  {dataset.kind}  owner={dataset.owner}  {dataset.content_hash}",
    )


@datasets.command("validate")
@click.argument("name")
@click.argument("version")
@click.option("--require-slice", "slices", multiple=True, help="A slice key every item needs.")
@format_option()
def validate_command(name: str, version: str, slices: tuple[str, ...], fmt: str) -> None:
    """Run the great_expectations schema checks on one dataset version (exit 1 on failure)."""
    from eval_pipeline.datasets.validation import validate_dataset

    try:
        dataset = _store().load(name, version)
    except DatasetError as exc:
        raise InputError(f"{exc}") from None
    result = validate_dataset(dataset, required_slices=slices)
    if fmt == "json":
        echo_json(
            {
                "dataset": dataset.ref,
                "valid": result.success,
                "failures": list(result.failures),
                "statistics": result.statistics,
            }
        )
    else:
        for failure in result.failures:
            click.echo(f"fail: {failure}")
        click.echo(f"{dataset.ref}: {'valid' if result.success else 'INVALID'} {result.statistics}")
    if not result.success:
        raise SystemExit(1)


COMMANDS: list[click.Command] = [datasets]
