"""CLI: ``datasets import``: your own JSONL or CSV file, or a benchmark's files, as a version.

``eval-pipeline datasets import NAME FILE...`` reads your items (the format from the extension,
``.jsonl`` or ``.csv``, unless ``--format jsonl|csv``; the item format is
``datasets/item.schema.json``, documented in ``docs/datasets.md``) and publishes them as
``golden/NAME`` (``--kind`` for another prefix) at the next free version (``--version`` to
choose it); the same content again keeps the latest version. ``--format tau2|taubench|bfcl|
agentdojo PATH... --name N --version V`` (**contract**) imports a benchmark's files;
``--format tau2 --multi-turn`` makes multi-turn items, each task's user scenario played by a
scripted user (``importers.benchmarks.tau2_conversation``). Either way
the version is validated before it is published: any problem refuses it whole, one line per
problem naming file and line (or item), exit 2, nothing published.
"""

from pathlib import Path
from typing import cast

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json
from eval_pipeline.datasets.artefact import KINDS, DatasetError, DatasetKind, kind_of_name
from eval_pipeline.datasets.publishing import Published, publish_checked
from eval_pipeline.datasets.store import DatasetStore, default_dataset_store
from eval_pipeline.importers.datasets import (
    DEFAULT_KINDS,
    FORMATS,
    MULTI_TURN,
    SourceError,
    dataset_name,
    import_dataset,
)
from eval_pipeline.importers.datasets.user_files import format_of, read_tools


def _store() -> DatasetStore:
    from eval_pipeline.home import current_home

    current_home().ensure()
    return default_dataset_store()


def _name_and_paths(args: tuple[str, ...], name: str | None) -> tuple[str, list[Path]]:
    if name is not None:
        return name, [Path(a) for a in args]
    if len(args) < 2:
        raise InputError(
            "expected NAME FILE... (e.g. `datasets import my-set items.jsonl`), "
            "or --name NAME with the files"
        )
    return args[0], [Path(a) for a in args[1:]]


def _format(paths: list[Path], given: str | None) -> str:
    if given is not None:
        return given
    try:
        found = {format_of(p) for p in paths}
    except SourceError as exc:
        raise InputError(str(exc)) from None
    if len(found) > 1:
        raise InputError(f"the files are of different formats ({', '.join(sorted(found))})")
    return found.pop()


def _print(published: Published, output_format: str) -> None:
    dataset = published.dataset
    slices = sorted({key for item in dataset.items for key in item.slices})
    if output_format == "json":
        echo_json(
            {
                "name": dataset.name,
                "version": dataset.version,
                "kind": dataset.kind,
                "owner": dataset.owner,
                "items": len(dataset.items),
                "tool_schemas": len(dataset.tool_schemas),
                "slices": slices,
                "content_hash": dataset.content_hash,
                "unchanged": published.unchanged,
            }
        )
        return
    verb = "unchanged:" if published.unchanged else "published"
    click.echo(
        f"{verb} {dataset.ref} ({dataset.kind}, owner {dataset.owner}): "
        f"{len(dataset.items)} item(s), {len(dataset.tool_schemas)} tool schema(s), "
        f"slices: {', '.join(slices) or '-'}; {dataset.content_hash}"
    )


@click.command("import")
@click.argument("args", nargs=-1, required=True, metavar="[NAME] FILE...")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default=None,
    help="jsonl|csv: your items (default: from the extension); or a benchmark's files.",
)
@click.option(
    "--multi-turn",
    "multi_turn",
    is_flag=True,
    default=False,
    help="tau2: multi-turn items, the user scenario played by a scripted user.",
)
@click.option("--name", default=None, help="Dataset name (instead of the NAME argument).")
@click.option("--version", default=None, help="Version to publish (default: the next free).")
@click.option(
    "--kind",
    type=click.Choice(KINDS),
    default=None,
    help="Dataset kind (default: from the name's prefix, else golden for your own files).",
)
@click.option("--owner", default="unowned", show_default=True, help="Owning team or person.")
@click.option("--description", default="", help="One line on what the dataset is for.")
@click.option(
    "--tools",
    "tools_path",
    type=click.Path(path_type=Path),
    default=None,
    help="A JSON list of tool schemas (OpenAI function form) shared by every item.",
)
@click.option(
    "--output-format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line; json: the published version's manifest.",
)
def import_command(
    args: tuple[str, ...],
    fmt: str | None,
    multi_turn: bool,
    name: str | None,
    version: str | None,
    kind: str | None,
    owner: str,
    description: str,
    tools_path: Path | None,
    output_format: str,
) -> None:
    """Import FILEs (your JSONL/CSV items, or a benchmark's) as a validated dataset version."""
    given_name, paths = _name_and_paths(args, name)
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    chosen_format = _format(paths, fmt)
    if multi_turn:
        if chosen_format not in MULTI_TURN:
            raise InputError(
                f"--multi-turn: only with --format {'|'.join(MULTI_TURN)}, not {chosen_format}"
            )
        chosen_format = MULTI_TURN[chosen_format]
    store = _store()
    named = kind_of_name(given_name)
    full_name = dataset_name(given_name, kind or named or DEFAULT_KINDS[chosen_format])
    try:
        tools = read_tools(tools_path) if tools_path is not None else ()
        imported = import_dataset(
            chosen_format,
            paths,
            name=full_name,
            version=version or store.next_version(full_name),
            owner=owner,
            kind=cast("DatasetKind | None", kind),
            description=description,
            tool_schemas=tools,
        )
        published = publish_checked(
            store, imported.dataset, imported.locations, latest_if_unchanged=version is None
        )
    except (SourceError, DatasetError) as exc:
        raise InputError(f"{exc}") from None
    _print(published, output_format)
