"""CLI: `triage` (see the package docstring for exit codes).

``eval-pipeline triage TRACE_ID --dataset regression/NAME --note TEXT`` (**contract**) turns a
stored failing run into a regression case with its trace attached, published as a new version
of ``regression/NAME`` (the previous version stays readable).
"""

import json

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.datasets.artefact import DatasetError
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import DatasetStore, default_dataset_store
from eval_pipeline.datasets.triage import add_regression_case, regression_case, source_item
from eval_pipeline.home import current_home
from eval_pipeline.traces.model import AgentRun


def _source_item(store: DatasetStore, run: AgentRun) -> DatasetItem | None:
    """The dataset item an offline run evaluated, when its eval context names a stored one."""
    context = run.eval_context
    if not (context.dataset and context.dataset_version and context.item_id):
        return None
    try:
        return source_item(store.load(context.dataset, context.dataset_version), context.item_id)
    except (DatasetError, KeyError):
        return None


@click.command("triage")
@click.argument("trace_id")
@click.option(
    "--dataset",
    "dataset_name",
    required=True,
    help="Regression dataset to add the case to, e.g. regression/support.",
)
@click.option("--note", required=True, help="What went wrong (kept with the case).")
@click.option(
    "--owner",
    default="triage",
    show_default=True,
    help="Owner of the dataset when this creates it.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def triage(trace_id: str, dataset_name: str, note: str, owner: str, fmt: str) -> None:
    """Turn a failing run into a regression case (a new dataset version)."""
    from eval_pipeline.traces.runs.assemble import assemble_run
    from eval_pipeline.traces.store.trace_store import TraceStore

    home = current_home().ensure()
    found = TraceStore(home.store).find_trace(trace_id)
    if found is None:
        raise InputError(f"error: trace {trace_id}: not in the trace store")
    build, spans = found
    run = assemble_run(trace_id.lower(), spans)
    store = default_dataset_store()
    try:
        case = regression_case(
            run, spans, note=note, build=build, source_item=_source_item(store, run)
        )
        published = add_regression_case(store, dataset_name, case, owner=owner)
    except DatasetError as exc:
        raise InputError(f"error: --dataset {dataset_name}: {exc}") from None
    summary = {
        "dataset": published.name,
        "version": published.version,
        "item_id": case.item_id,
        "cases": len(published.items),
        "trace_id": run.trace_id,
        "build": build,
        "inherited_reference": "source_item" in case.provenance,
    }
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(
            f"published {published.ref}: case {case.item_id} from build {build} "
            f"({len(published.items)} case(s); previous versions unchanged)"
        )


COMMANDS: list[click.Command] = [triage]
