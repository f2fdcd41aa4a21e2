"""CLI: ``export scores`` (see the package docstring for exit codes).

``eval-pipeline export scores --build B`` and exactly one target:

- ``--otlp-endpoint URL [--protocol http|grpc]``: ``gen_ai.evaluation.result`` log events to
  any OTLP endpoint (``backends.otel_events_out``);
- ``--phoenix URL [--project P] [--with-traces]``: Phoenix span annotations
  (``backends.phoenix_out``); ``--with-traces`` first sends the build's spans to the project
  over OTLP and waits until Phoenix holds them;
- ``--langfuse URL [--with-traces]``: Langfuse scores (``backends.langfuse_out``), keys from
  ``LANGFUSE_PUBLIC_KEY`` / ``LANGFUSE_SECRET_KEY``.

Phoenix and Langfuse get each evaluation labelled ``pass``/``fail`` against its metric's floor,
with score and explanation, and a gated build's release verdict (``backends.export_labels``);
spans sent go with ``input.value``/``output.value`` so their UIs show what went in and out.

A build with no scores, a malformed URL or two targets is bad input (exit 2), and so is a
back end that lacks the traces the scores are on (the message says to add ``--with-traces``);
an endpoint that cannot be reached or refuses the request is an ``error:`` line with exit 3
(nothing of ours is wrong, and nothing stored changes either way).
"""

import os
import time
from collections.abc import Sequence

import click
import httpx

from eval_pipeline.backends.export_labels import ExportLabels, export_labels
from eval_pipeline.backends.langfuse_out import LangfuseError, MissingTracesError, export_langfuse
from eval_pipeline.backends.otel_events_out import PROTOCOLS, ExportError, export_scores
from eval_pipeline.backends.otlp_traces_out import send_traces
from eval_pipeline.backends.phoenix_out import MissingSpansError, PhoenixError, export_annotations
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option, print_fields
from eval_pipeline.home import current_home
from eval_pipeline.importers.backends.phoenix import ProjectNotFound, read_spans
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.store.trace_store import TraceStore

PHOENIX_PROJECT_ATTRIBUTE = "openinference.project.name"
SPANS_WAIT_S = 120.0
"""How long ``--with-traces`` waits for Phoenix to store the spans it was sent."""


class EndpointError(click.ClickException):
    """The back end failed (unreachable, refused): ``error: ...`` with exit code 3."""

    exit_code = 3

    def show(self, file: object = None) -> None:
        """Print ``error: <message>`` to stderr."""
        click.echo(f"error: {self.format_message()}", err=True)


def _scores(build: str) -> list[Score]:
    scores = ScoreStore(current_home().store).read(build)
    if not scores:
        raise InputError(f"--build: no scores stored for build {build!r}")
    return scores


def _run_roots(spans: Sequence[Span]) -> dict[str, str]:
    """Trace id -> root span id: where a score naming no span is attached."""
    return {s.trace_id: s.span_id for s in spans if s.parent_span_id is None}


def _wait_for_spans(url: str, project: str, expected: set[str], api_key: str | None) -> None:
    deadline = time.monotonic() + SPANS_WAIT_S
    while True:
        try:
            held = set(read_spans(url, project, api_key=api_key).runs)
        except ProjectNotFound:
            held = set()
        if expected <= held:
            return
        if time.monotonic() > deadline:
            missing = len(expected - held)
            raise EndpointError(f"{url}: Phoenix holds {missing} of the sent spans not yet")
        time.sleep(0.5)


def _missing_traces(build: str, back_end: str, exc: Exception) -> InputError:
    return InputError(
        f"{back_end} lacks the traces of build {build!r} that its scores are on: send them "
        f"with the scores (add --with-traces) or export the traces first. ({exc})"
    )


def _phoenix(
    build: str, scores: list[Score], url: str, project: str, traces: bool, labels: ExportLabels
) -> dict:
    api_key = os.environ.get("PHOENIX_API_KEY")
    result: dict[str, object] = {"target": "phoenix", "project": project}
    spans = TraceStore(current_home().store).read_spans(build)
    roots = _run_roots(spans)
    try:
        if traces:
            auth = {"Authorization": f"Bearer {api_key}"} if api_key else {}
            result["spans"] = send_traces(
                spans,
                url.rstrip("/") + "/v1/traces",
                headers=auth,
                extra_resource={PHOENIX_PROJECT_ATTRIBUTE: project},
                display=True,
            )
            _wait_for_spans(url, project, {s.span_id for s in spans}, api_key)
        report = export_annotations(scores, url, api_key=api_key, run_roots=roots, labels=labels)
    except MissingSpansError as exc:
        raise _missing_traces(build, "Phoenix", exc) from None
    except (PhoenixError, httpx.HTTPError) as exc:
        raise EndpointError(str(exc)) from None
    result.update(
        annotations=report.annotations,
        without_span=report.without_span,
        release_gate=report.release_gate,
    )
    return result


@click.group("export")
def export() -> None:
    """Send what the product holds to another back end."""


@export.command("scores")
@click.option("--build", required=True, help="The build whose score rows are sent.")
@click.option("--otlp-endpoint", default=None, help="OTLP endpoint for evaluation events.")
@click.option("--protocol", type=click.Choice(PROTOCOLS), default="http", show_default=True)
@click.option("--phoenix", "phoenix_url", default=None, help="Phoenix server base URL.")
@click.option("--project", default="default", show_default=True, help="Phoenix project.")
@click.option("--langfuse", "langfuse_url", default=None, help="Langfuse server base URL.")
@click.option(
    "--with-traces", is_flag=True, help="Send the build's spans first (Phoenix, Langfuse)."
)
@format_option()
def scores(
    build: str,
    otlp_endpoint: str | None,
    protocol: str,
    phoenix_url: str | None,
    project: str,
    langfuse_url: str | None,
    with_traces: bool,
    fmt: str,
) -> None:
    """Export a build's score rows to an OTLP endpoint, Phoenix or Langfuse."""
    targets = [t for t in (otlp_endpoint, phoenix_url, langfuse_url) if t]
    if len(targets) != 1:
        raise InputError("give exactly one of --otlp-endpoint, --phoenix, --langfuse")
    for name, value in (("--phoenix", phoenix_url), ("--langfuse", langfuse_url)):
        if value and not value.startswith(("http://", "https://")):
            raise InputError(f"{name}: not an http(s) URL: {value!r}")
    rows = _scores(build)
    result: dict[str, object] = {"build": build, "scores": len(rows)}
    if otlp_endpoint:
        try:
            roots = _run_roots(TraceStore(current_home().store).read_spans(build))
            report = export_scores(rows, otlp_endpoint, protocol=protocol, run_roots=roots)
        except ValueError as exc:
            raise InputError(str(exc)) from None
        except ExportError as exc:
            raise EndpointError(str(exc)) from None
        result.update(
            target=f"otlp-{protocol}",
            events=report.events_sent,
            rejected=report.rejected,
            messages=report.messages,
            seconds=round(report.seconds, 4),
            events_per_second=round(report.events_per_second, 1),
        )
    elif phoenix_url:
        labels = export_labels(current_home(), build)
        result.update(_phoenix(build, rows, phoenix_url, project, with_traces, labels))
    else:
        assert langfuse_url is not None
        spans = TraceStore(current_home().store).read_spans(build) if with_traces else []
        try:
            result.update(
                export_langfuse(rows, spans, langfuse_url, export_labels(current_home(), build))
            )
        except MissingTracesError as exc:
            raise _missing_traces(build, "Langfuse", exc) from None
        except (LangfuseError, httpx.HTTPError) as exc:
            raise EndpointError(str(exc)) from None
    if fmt == "json":
        echo_json(result, indent=None, sort_keys=True)
    else:
        print_fields({k: v for k, v in result.items() if k != "messages"}, title="exported")
    if result.get("rejected"):
        raise EndpointError(
            f"the endpoint rejected {result['rejected']} event(s): {result['messages']}"
        )


COMMANDS: list[click.Command] = [export]
