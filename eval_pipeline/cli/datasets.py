"""CLI: `datasets` commands (see the package docstring for exit codes).

``datasets import --format tau2|taubench|bfcl|agentdojo PATH... --name N --version V``
(**contract**) publishes the imported items as a new dataset version in the home's store.
``datasets list`` and ``datasets show NAME VERSION`` read the home's store and the datasets
shipped with the package. ``datasets validate NAME VERSION`` runs the great_expectations schema
checks (exit 1 on failure).
"""

from pathlib import Path
from typing import Any, cast

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_table
from eval_pipeline.datasets.artefact import KINDS, DatasetError, DatasetKind
from eval_pipeline.datasets.codec import item_to_dict
from eval_pipeline.datasets.store import DatasetStore, default_dataset_store
from eval_pipeline.importers.datasets import FORMATS, SourceError, import_dataset


def _store() -> DatasetStore:
    from eval_pipeline.home import current_home

    current_home().ensure()
    return default_dataset_store()


@click.group("datasets")
def datasets() -> None:
    """Import, list and show versioned datasets."""


@datasets.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), required=True)
@click.option("--name", required=True, help="Dataset name, e.g. benchmark/tau2-retail.")
@click.option("--version", required=True, help="Version to publish, e.g. v1.")
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    default=None,
    help="Dataset kind (default: from the name's prefix, else from the format).",
)
@click.option("--owner", default="unowned", show_default=True, help="Owning team or person.")
@click.option("--description", default="", help="One line on what the dataset is for.")
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line; json: the published version's manifest.",
)
def import_command(
    paths: tuple[Path, ...],
    fmt: str,
    name: str,
    version: str,
    kind: str | None,
    owner: str,
    description: str,
    output_format: str,
) -> None:
    """Import benchmark files as a dataset version and publish it to the home's store."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    try:
        dataset = import_dataset(
            fmt,
            list(paths),
            name=name,
            version=version,
            owner=owner,
            kind=cast("DatasetKind | None", kind),
            description=description,
        )
        published = _store().publish(dataset)
    except (SourceError, DatasetError) as exc:
        raise InputError(f"{exc}") from None
    slices = sorted({key for item in published.items for key in item.slices})
    if output_format == "json":
        echo_json(
            {
                "name": published.name,
                "version": published.version,
                "kind": published.kind,
                "owner": published.owner,
                "items": len(published.items),
                "tool_schemas": len(published.tool_schemas),
                "slices": slices,
                "content_hash": published.content_hash,
            }
        )
        return
    click.echo(
        f"published {published.ref} ({published.kind}, owner {published.owner}): "
        f"{len(published.items)} item(s), {len(published.tool_schemas)} tool schema(s), "
        f"slices: {', '.join(slices) or '-'}; {published.content_hash}"
    )


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
