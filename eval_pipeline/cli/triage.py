"""CLI: `triage` (see the package docstring for exit codes).

``eval-pipeline triage TRACE_ID --dataset regression/NAME --note TEXT`` (**contract**) turns a
stored failing run into a regression case with its trace attached, published as a new version
of ``regression/NAME`` (the previous version stays readable). For a production trace the
reviewer may add ``--expected-calls`` and ``--reference-answer`` (what a correct run does),
``--input`` (what the user asked, when the trace was recorded without message content),
``--must-not-recur`` (instead of the trace's failing calls), ``--slice KEY=VALUE`` and
``--tool-schemas-from DATASET`` (a trace carries no tool schemas). The new version is
validated before it is published: a case ``datasets validate`` would mark invalid (no user
input, a tool without a schema, ...) is refused with exit 2, one line per problem, and nothing
is published. ``review label --verdict defect --dataset ...`` calls the same ``triage_trace``.
"""

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import click

from eval_pipeline import json_input
from eval_pipeline.bounded_read import read_bounded_text
from eval_pipeline.cli.errors import InputError
from eval_pipeline.datasets import case_references
from eval_pipeline.datasets.artefact import Dataset, DatasetError
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.publishing import DatasetRefusedError
from eval_pipeline.datasets.store import DatasetStore, default_dataset_store
from eval_pipeline.datasets.triage import add_regression_case, regression_case, source_item
from eval_pipeline.datasets.validation import TOOLS_DEFINED_RULE, USER_TEXT_RULE
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


def _schemas_source(store: DatasetStore, ref: str) -> Dataset:
    """The dataset ``--tool-schemas-from NAME[@VERSION]`` names (its latest without a version)."""
    name, _, version = ref.partition("@")
    versions = store.versions(name)
    if not versions:
        raise InputError(f"--tool-schemas-from {ref}: no such dataset")
    try:
        return store.load(name, version or versions[-1])
    except LookupError as exc:
        raise InputError(f"--tool-schemas-from {ref}: {exc}") from None


JSON_OPTION_LIMIT_BYTES = 16 * 1024 * 1024
"""The largest JSON file an option takes (tool schemas, expected calls)."""


def json_option(value: str | None, option: str) -> Any:
    """An option holding inline JSON (``[``/``{`` first) or the path of a JSON file."""
    if value is None:
        return None
    text = value
    if value.lstrip()[:1] not in ("[", "{"):
        try:
            text = read_bounded_text(value, JSON_OPTION_LIMIT_BYTES)
        except OSError as exc:
            raise InputError(f"{option} {value}: cannot be read: {exc.strerror}") from None
        except UnicodeDecodeError as exc:
            raise InputError(f"{option} {value}: not UTF-8 text ({exc.reason})") from None
    try:
        return json_input.loads(text)
    except ValueError as exc:
        raise InputError(f"{option}: not valid JSON: {exc}") from None


def parse_slices(values: Sequence[str]) -> list[tuple[str, str]]:
    """``KEY=VALUE`` pairs of ``--slice``."""
    pairs = []
    for value in values:
        key, sep, label = value.partition("=")
        if not sep or not key.strip() or not label.strip():
            raise InputError(f"--slice {value!r}: expected KEY=VALUE (e.g. intent=return)")
        pairs.append((key.strip(), label.strip()))
    return pairs


_HINTS = {
    TOOLS_DEFINED_RULE: (
        "--tool-schemas-from",
        "a trace carries no tool schemas: name a dataset that defines the case's tools "
        "with --tool-schemas-from DATASET",
    ),
    USER_TEXT_RULE: (
        "--input",
        "the trace holds no user input (recorded without message content?): give what the "
        "user asked with --input TEXT",
    ),
}


def _hints(exc: DatasetRefusedError, given: dict[str, str | None]) -> str:
    """How the reviewer can fix what refused the case, for the options not given yet."""
    return "".join(
        f"\nhint: {text}"
        for rule, (option, text) in _HINTS.items()
        if given.get(option) is None and any(rule in line for line in exc.problems)
    )


def triage_trace(
    trace_id: str,
    dataset_name: str,
    note: str,
    *,
    owner: str = "triage",
    expected_calls: str | None = None,
    reference_answer: str | None = None,
    must_not_recur: str | None = None,
    slices: Sequence[str] = (),
    tool_schemas_from: str | None = None,
    user_input: str | None = None,
) -> dict[str, Any]:
    """Publish the regression case of a stored trace; the summary printed by ``triage``.

    Raises:
        InputError: the trace is not stored, a reference is malformed, or the dataset refuses
            the case (wrong kind, already a case).
    """
    from eval_pipeline.traces.runs.assemble import assemble_run
    from eval_pipeline.traces.store.trace_store import TraceStore

    refs_given = {"--tool-schemas-from": tool_schemas_from, "--input": user_input}

    home = current_home().ensure()
    found = TraceStore(home.store).find_trace(trace_id)
    if found is None:
        raise InputError(f"error: trace {trace_id}: not in the trace store")
    build, spans = found
    run = assemble_run(trace_id.lower(), spans)
    store = default_dataset_store()
    try:
        expected = json_option(expected_calls, "--expected-calls")
        forbidden = json_option(must_not_recur, "--must-not-recur")
        case = regression_case(
            run,
            spans,
            note=note,
            build=build,
            source_item=_source_item(store, run),
            expected_calls=None if expected is None else case_references.expected_calls(expected),
            reference_answer=reference_answer,
            must_not_recur=None
            if forbidden is None
            else case_references.must_not_recur(forbidden, note),
            slices=parse_slices(slices),
            user_input=user_input,
        )
        if tool_schemas_from is not None:
            source = _schemas_source(store, tool_schemas_from)
            case = replace(case, tool_schemas=case_references.schemas_for(case, source))
    except DatasetError as exc:  # a malformed reference (names its option), an empty note
        raise InputError(str(exc)) from None
    try:
        published = add_regression_case(store, dataset_name, case, owner=owner)
    except DatasetRefusedError as exc:
        raise InputError(f"--dataset {dataset_name}: {exc}{_hints(exc, refs_given)}") from None
    except DatasetError as exc:
        raise InputError(f"error: --dataset {dataset_name}: {exc}") from None
    return {
        "dataset": published.name,
        "version": published.version,
        "item_id": case.item_id,
        "cases": len(published.items),
        "trace_id": run.trace_id,
        "build": build,
        "inherited_reference": "source_item" in case.provenance,
        "expected_calls": len(case.expected_tool_calls),
        "must_not_recur": [c.name for c in case.forbidden_calls],
        "must_not_recur_skipped": [
            c["tool"] for c in case.provenance.get("must_not_recur_skipped", [])
        ],
        "absent_by_design": case.provenance.get("absent_by_design", []),
    }


def triage_options(command: Any) -> Any:
    """The reviewer's reference options, shared by ``triage`` and ``review label``."""
    for option in reversed(
        [
            click.option(
                "--expected-calls",
                default=None,
                help='Expected calls: inline JSON or a file, [{"name": ..., "arguments": {...}}].',
            ),
            click.option("--reference-answer", default=None, help="What a correct answer says."),
            click.option(
                "--input",
                "user_input",
                default=None,
                help="What the user asked, when the trace holds no input (content not recorded).",
            ),
            click.option(
                "--must-not-recur",
                default=None,
                help="Calls that must not recur (JSON, as --expected-calls); default: the "
                "trace's failing calls; [] for none.",
            ),
            click.option("--slice", "slices", multiple=True, help="A slice label, KEY=VALUE."),
            click.option(
                "--tool-schemas-from",
                default=None,
                help="Dataset NAME[@VERSION] to copy the schemas of the case's tools from.",
            ),
        ]
    ):
        command = option(command)
    return command


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
@triage_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def triage(trace_id: str, dataset_name: str, note: str, owner: str, fmt: str, **refs: Any) -> None:
    """Turn a failing run into a regression case (a new dataset version)."""
    summary = triage_trace(trace_id, dataset_name, note, owner=owner, **refs)
    if fmt == "json":
        click.echo(json.dumps(summary, indent=2))
    else:
        click.echo(
            f"published {summary['dataset']}@{summary['version']}: case {summary['item_id']} "
            f"from build {summary['build']} ({summary['cases']} case(s); previous versions "
            "unchanged)"
        )


COMMANDS: list[click.Command] = [triage]
