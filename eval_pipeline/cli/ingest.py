"""CLI: `ingest` (see the package docstring for exit codes).

``eval-pipeline ingest PATH... [--format otlp|tau2|taubench|spans|bfcl] [--build B]``: decode,
normalise, redact, judge and store traces through the one ingest function (the format
dispatch is ``importers.traces.files``; BFCL results ``importers.benchmarks.bfcl_results``);
good data is always stored, and any rejected span or unreadable file makes the command exit 2
with errors naming file, span and field; so does a file holding no span at all (``{"hello":
"world"}``, an empty file: ``no span in FILE``), which would otherwise store nothing and look
like success. Incomplete traces are reported, not rejected. A
terminal's stderr shows a bar over the files (``--quiet``: none); ``--output-format json``
prints the summary as one object (``--format`` names the input format here).
"""

from collections.abc import Sequence
from pathlib import Path

import click

from eval_pipeline.backends.imported_scores import store_imported_scores
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, progress, quiet_option
from eval_pipeline.home import current_home
from eval_pipeline.importers.benchmarks.bfcl_results import ingest_bfcl_results
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.importers.traces.files import FORMATS, expand, ingest_files
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.ingest.guard import build_problem
from eval_pipeline.traces.ingest.ingest import RowStore
from eval_pipeline.traces.redact.redactor import PolicyError, RedactionPolicy, load_policy
from eval_pipeline.traces.store.span_table import Row
from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore

SHOWN_INCOMPLETE = 5
"""Incomplete traces named on the terminal (the count covers them all)."""


def _policy(value: str | None) -> RedactionPolicy:
    try:
        return load_policy(value)
    except PolicyError as exc:
        raise InputError(f"--redaction-policy: {exc}") from None


class _SpansPerFile:
    """The trace store, counting the spans ingest hands it from each file.

    ``ingest_files`` reports progress as it reaches each file, only once the previous file's
    batches were taken (its documented order), so the rows handed over between two reports
    are the earlier file's. A file with no rows and no error held no span at all.
    """

    def __init__(self, store: RowStore, files: Sequence[Path]) -> None:
        self.store = store
        self.files = list(files)
        self.rows = [0] * len(self.files)
        self.current = 0

    def reached(self, done: int, total: int) -> None:
        """Progress callback: file ``done`` is the one being read now."""
        self.current = done

    def builds_for_rows(
        self, rows: Sequence[Row], build: str | None = None, default: str = UNASSIGNED
    ) -> list[str]:
        """Count the rows, then ask the store (``RowStore.builds_for_rows``)."""
        if self.current < len(self.rows):
            self.rows[self.current] += len(rows)
        return self.store.builds_for_rows(rows, build, default)

    def write_rows(
        self,
        rows: Sequence[Row],
        *,
        build: str | None = None,
        day: str | None = None,
        targets: Sequence[str] | None = None,
    ) -> int:
        """``RowStore.write_rows`` of the store."""
        return self.store.write_rows(rows, build=build, day=day, targets=targets)

    def empty_files(self, result: ImportReport) -> list[Path]:
        """Files that gave no span and no error (an error already names its file)."""
        named = {str(e.source).split(":", 1)[0] for e in result.errors}
        named |= {str(e.source) for e in result.errors}
        return [
            path
            for path, rows in zip(self.files, self.rows, strict=True)
            if rows == 0 and str(path) not in named
        ]


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
    counted = _SpansPerFile(store, expand(list(paths)))
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

            def advance(done: int, total: int) -> None:
                counted.reached(done, total)
                tracker.advance(done, total)

            result = ingest_files(
                list(paths),
                store=counted,
                build=build,
                fmt=input_format,
                policy=policy,
                progress=advance,
            )
    # the benchmark's own recorded scores (e.g. tau2's reward), kept beside ours
    store_imported_scores(ScoreStore(current_home().store), result.scores)
    _print(result, fmt)
    empty = counted.empty_files(result) if input_format != "bfcl" else []
    for path in empty:
        click.echo(f"error: no span in {path} (nothing stored from it)", err=True)
    if result.errors:
        for error in result.errors:
            click.echo(f"error: {error}", err=True)
    problems = len(result.errors) + len(empty)
    if problems:
        stored = "the good data was stored" if result.ingest.spans_stored else "nothing was stored"
        raise InputError(f"{problems} problem(s) in the input; {stored}")


COMMANDS: list[click.Command] = [ingest]
