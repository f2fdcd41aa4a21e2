"""CLI: ``import --from phoenix|langfuse|nat|openai-evals`` (exit codes: the package docstring).

- ``--from phoenix --url URL [--project P]``: a Phoenix project's spans and span annotations
  (``importers.backends.phoenix``; ``PHOENIX_API_KEY`` when the server has authentication on);
- ``--from langfuse PATH...``: Langfuse trace exports (``GET /api/public/traces/{id}`` bodies,
  one or a list, or a ``{"data": [...]}`` page; JSON or JSON Lines) with their observations and
  scores (``importers.backends.langfuse``);
- ``--from nat PATH...``: NeMo Agent Toolkit span exports (OTLP JSON files or lines, as its
  OpenTelemetry, Phoenix and file exporters write them) and ``nat eval`` output files
  (``workflow_output.json``, ``<evaluator>_output.json``) (``importers.backends.nat``);
- ``--from openai-evals PATH... --name N --version V``: OpenAI Evals exports (items JSONL, run
  output items with grader results) as a versioned dataset and imported scores
  (``importers.backends.openai_evals``).

Spans go through the one ingest function; scores into the score store
(``backends.imported_scores``). Good data is always stored; any rejected span, score row or
unreadable file is an ``error:`` line naming the file and field, and exit 2 at the end.
``--format json`` prints the import's summary as one object; a terminal's stderr shows a
spinner with the elapsed time while the import runs (``--quiet``: none).
"""

from collections.abc import Sequence
from pathlib import Path

import click

from eval_pipeline.backends.imported_scores import store_imported_scores
from eval_pipeline.backends.phoenix_out import PhoenixError
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.export import EndpointError
from eval_pipeline.cli.output import echo_json, format_option, progress, quiet_option
from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.home import current_home
from eval_pipeline.importers.backends import langfuse, nat, openai_evals
from eval_pipeline.importers.backends.phoenix import ProjectNotFound, import_project
from eval_pipeline.importers.report import ImportReport
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.ingest.guard import build_problem
from eval_pipeline.traces.redact.redactor import PolicyError, RedactionPolicy, load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

SOURCES = ("phoenix", "langfuse", "nat", "openai-evals")


def _policy(value: str | None) -> RedactionPolicy:
    try:
        return load_policy(value)
    except PolicyError as exc:
        raise InputError(f"--redaction-policy: {exc}") from None


def _finish(report: ImportReport, fmt: str, extra: dict[str, object] | None = None) -> None:
    summary = report.summary()
    try:
        written = store_imported_scores(ScoreStore(current_home().store), report.scores)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    builds = sorted(set(summary["builds"]) | set(written))
    if fmt == "json":
        echo_json({**summary, "scores": len(report.scores), "builds": builds, **(extra or {})})
    else:
        dataset = f"; dataset {extra['dataset']} ({extra['items']} item(s))" if extra else ""
        click.echo(
            f"imported {summary['spans_stored']} span(s) ({summary['spans_duplicate']} already "
            f"stored, {summary['spans_rejected']} rejected), {summary['traces']} trace(s), "
            f"{len(report.scores)} score(s); builds: {', '.join(builds) or '-'}{dataset}"
        )
    if report.errors:
        for error in report.errors:
            click.echo(f"error: {error}", err=True)
        raise InputError(f"{len(report.errors)} problem(s) in the input; the good data was stored")


def _paths(paths: Sequence[Path], source: str) -> list[Path]:
    if not paths:
        raise InputError(f"--from {source}: give the export files to read")
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        raise InputError(f"{missing[0]}: no such file or directory")
    return list(paths)


@click.command("import")
@click.option("--from", "source", type=click.Choice(SOURCES), required=True)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--url", default=None, help="Phoenix server base URL (--from phoenix).")
@click.option("--project", default="default", show_default=True, help="Phoenix project.")
@click.option("--build", default=None, help="Build id for everything imported (else its own).")
@click.option("--name", default=None, help="Dataset name (--from openai-evals).")
@click.option("--version", "version", default=None, help="Dataset version (--from openai-evals).")
@click.option("--redaction-policy", "policy_path", default=None, help="Redaction policy.")
@format_option()
@quiet_option
def import_(
    source: str,
    paths: tuple[Path, ...],
    url: str | None,
    project: str,
    build: str | None,
    name: str | None,
    version: str | None,
    policy_path: str | None,
    fmt: str,
    quiet: bool,
) -> None:
    """Import traces and scores from Phoenix, Langfuse, NeMo Agent Toolkit or OpenAI Evals."""
    if build is not None and (problem := build_problem(build)) is not None:
        raise InputError(f"--build: {problem}")
    policy = _policy(policy_path)
    with progress(f"import from {source}", quiet=quiet):
        report, extra = _import(source, paths, url, project, build, name, version, policy)
    _finish(report, fmt, extra)


def _import(
    source: str,
    paths: tuple[Path, ...],
    url: str | None,
    project: str,
    build: str | None,
    name: str | None,
    version: str | None,
    policy: RedactionPolicy,
) -> tuple[ImportReport, dict[str, object] | None]:
    """Read and store what ``source`` holds: the import report, and the dataset it made."""
    home = current_home().ensure()
    store = TraceStore(home.store)
    if source == "phoenix":
        if not url or not url.startswith(("http://", "https://")):
            raise InputError("--url: the Phoenix server's http(s) base URL is required")
        try:
            return import_project(url, project, store=store, build=build, policy=policy), None
        except ProjectNotFound as exc:
            raise InputError(str(exc)) from None
        except PhoenixError as exc:
            raise EndpointError(str(exc)) from None
    if source == "langfuse":
        files = _paths(paths, source)
        return langfuse.import_files(files, store=store, build=build, policy=policy), None
    if source == "nat":
        files = _paths(paths, source)
        return nat.import_files(files, store=store, build=build, policy=policy), None
    if not name or not version:
        raise InputError("--from openai-evals: --name and --version name the dataset version")
    files = _paths(paths, source)
    try:
        result = openai_evals.import_files(
            files,
            datasets=DatasetStore(home.datasets),
            store=store,
            policy=policy,
            name=name,
            version=version,
            build=build,
        )
    except openai_evals.EvalsInputError as exc:
        raise InputError(str(exc)) from None
    return result.report, {"dataset": result.dataset, "items": result.items}


COMMANDS: list[click.Command] = [import_]
