"""CLI: `ingest` (see the package docstring for exit codes).

``eval-pipeline ingest PATH... [--format otlp|tau2|taubench|spans|bfcl] [--build B]``: decode,
normalise, redact, judge and store traces through the one ingest function (the format
dispatch is ``importers.traces.files``; BFCL results ``importers.benchmarks.bfcl_results``);
good data is always stored, and any rejected span or unreadable file makes the command exit 2
with errors naming file, span and field. Incomplete traces are reported, not rejected. A
terminal's stderr shows a bar over the files (``--quiet``: none); ``--output-format json``
prints the summary as one object (``--format`` names the input format here).
"""

from pathlib import Path

import click

from eval_pipeline.backends.imported_scores import store_imported_scores
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, progress, quiet_option
from eval_pipeline.home import current_home
from eval_pipeline.importers.benchmarks.bfcl_results import ingest_bfcl_results
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.importers.traces.files import FORMATS, ingest_files
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.ingest.guard import build_problem
from eval_pipeline.traces.redact.redactor import PolicyError, RedactionPolicy, load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

SHOWN_INCOMPLETE = 5
"""Incomplete traces named on the terminal (the count covers them all)."""


def _policy(value: str | None) -> RedactionPolicy:
    try:
        return load_policy(value)
    except PolicyError as exc:
        raise InputError(f"--redaction-policy: {exc}") from None


def _print(result: ImportReport, fmt: str) -> None:
    summary = result.summary()
    if fmt == "json":
        echo_json({**summary, "incomplete": result.ingest.incomplete})
        return
    click.echo(
        f"ingested {summary['batches']} file(s): {summary['spans_stored']} span(s) stored, "
        f"{summary['spans_duplicate']} already stored, {summary['spans_rejected']} rejected; "
        f"{summary['traces']} trace(s); builds: {', '.join(summary['builds']) or '-'}"
    )
    incomplete = result.ingest.incomplete
    if incomplete:
        click.echo(f"{len(incomplete)} trace(s) incomplete:")
        for trace_id, reasons in list(incomplete.items())[:SHOWN_INCOMPLETE]:
            more = f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else ""
            click.echo(f"  {trace_id}: {reasons[0]}{more}")
        if len(incomplete) > SHOWN_INCOMPLETE:
            click.echo(f"  ... and {len(incomplete) - SHOWN_INCOMPLETE} more")
    if result.scores:
        click.echo(
            f"imported {len(result.scores)} recorded score(s) ({result.scores[0].metric_id})"
        )


@click.command("ingest")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "input_format",
    type=click.Choice([*FORMATS, "bfcl"]),
    default=None,
    help="Input format; auto-detected when omitted.",
)
@click.option("--build", default=None, help="Build id for every span (else from the trace).")
@click.option(
    "--redaction-policy",
    "policy_path",
    default=None,
    help="Redaction policy file, or a shipped one: default, keep-tools.",
)
@click.option(
    "--questions",
    type=click.Path(path_type=Path),
    default=None,
    help="BFCL questions file (--format bfcl).",
)
@click.option(
    "--answers",
    type=click.Path(path_type=Path),
    default=None,
    help="BFCL possible-answer file (--format bfcl).",
)
@format_option(flag="--output-format")
@quiet_option
def ingest(
    paths: tuple[Path, ...],
    input_format: str | None,
    build: str | None,
    policy_path: str | None,
    questions: Path | None,
    answers: Path | None,
    fmt: str,
    quiet: bool,
) -> None:
    """Ingest trace files (OTLP JSON/protobuf, tau2-bench, tau-bench) into the trace store."""
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    if build is not None and (problem := build_problem(build)) is not None:
        raise InputError(f"--build: {problem}")
    policy = _policy(policy_path)
    store = TraceStore(current_home().ensure().store)
    with progress("ingest", quiet=quiet) as tracker:
        if input_format == "bfcl":
            result = ingest_bfcl_results(
                list(paths),
                store=store,
                build=build,
                policy=policy,
                questions=questions,
                answers=answers,
            )
        else:
            result = ingest_files(
                list(paths),
                store=store,
                build=build,
                fmt=input_format,
                policy=policy,
                progress=tracker.advance,
            )
    # the benchmark's own recorded scores (e.g. tau2's reward), kept beside ours
    store_imported_scores(ScoreStore(current_home().store), result.scores)
    _print(result, fmt)
    if result.errors:
        for error in result.errors:
            click.echo(f"error: {error}", err=True)
        raise InputError(f"{len(result.errors)} problem(s) in the input; the good data was stored")


COMMANDS: list[click.Command] = [ingest]
