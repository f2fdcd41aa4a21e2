"""CLI: ``serve``, the OTLP receiver (HTTP 4318, gRPC 4317) and the real-time plane."""

from pathlib import Path
from typing import TYPE_CHECKING

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home

if TYPE_CHECKING:
    from eval_pipeline.traces.redact.redactor import RedactionPolicy

KEEP_TOOLS_HINT = (
    "to keep tool payloads: --redaction-policy keep-tools (every tool), or a policy file "
    "listing tools under tools.keep"
)


def policy_summary(policy: "RedactionPolicy") -> str:
    """What ``policy`` drops and tokenises, and how to keep tool payloads (serve's first line)."""
    every = ("*",)
    if policy.keep_arguments == every and policy.keep_results == every:
        tools = "keeps every tool's arguments and results"
    elif not policy.keep_arguments and not policy.keep_results:
        tools = "drops every tool's arguments and results"
    else:
        kept = ", ".join(sorted(set(policy.keep_arguments) | set(policy.keep_results)))
        tools = f"drops tool arguments and results except for {kept}"
    return (
        f"redaction policy {policy.name!r}: {tools}; tokenises "
        f"{', '.join(policy.detectors) or 'no personal data'} in what it keeps; {KEEP_TOOLS_HINT}"
    )


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Bind address.")
@click.option("--port", default=4318, show_default=True, help="OTLP/HTTP port.")
@click.option("--grpc-port", default=4317, show_default=True, help="OTLP/gRPC port.")
@click.option("--no-grpc", is_flag=True, help="Serve OTLP/HTTP only.")
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Bearer tokens, one a line: 'TOKEN [production|evaluation]' (needed off loopback; "
    "or $EVAL_PIPELINE_RECEIVER_TOKEN).",
)
@click.option(
    "--stream",
    "stream_url",
    default=None,
    help="Span stream: nats://HOST:PORT for NATS JetStream (default: the embedded log).",
)
@click.option("--alert-webhook", default=None, help="POST each alert here.")
@click.option(
    "--detect/--no-detect",
    default=True,
    show_default=True,
    help="Run the detector workers, in a process of their own beside the receiver; alerts go "
    "to the state database and as JSON lines to stdout.",
)
@click.option(
    "--detector-config",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Detector settings (patterns, forbidden tools, budgets, quiet period).",
)
@click.option("--detector-workers", default=1, show_default=True)
@click.option(
    "--session-idle-s",
    "session_idle_s",
    type=click.FloatRange(min=0.0, min_open=True),
    default=None,
    help="Seconds without a turn after which a conversation has ended and its session "
    "detectors run (default: the detector config's sessions.idle_timeout_s, 1800).",
)
@click.option(
    "--redaction-policy",
    "policy_path",
    default=None,
    help="Redaction policy file, or a shipped one: default (drops every tool's arguments and "
    "results, tokenises personal data in the rest), keep-tools (keeps tool payloads, personal "
    "data in them still tokenised).",
)
@click.option("--ssl-certfile", type=click.Path(exists=True, path_type=Path), default=None)
@click.option("--ssl-keyfile", type=click.Path(exists=True, path_type=Path), default=None)
@click.option("--ingest-workers", default=2, show_default=True, help="Write path processes.")
@click.option(
    "--ingest-threads", is_flag=True, help="Ingest on threads of this process, not processes."
)
@click.option("--ingest-queue", default=8, show_default=True, help="Requests that may wait.")
@click.option("--max-body-mb", default=32, show_default=True, help="Largest body on the wire.")
@click.option(
    "--max-inflight-mb",
    default=256,
    show_default=True,
    type=click.IntRange(1),
    help="Request bytes held at once, over every connection (429 past it); at least twice "
    "--max-body-mb (the largest inflated body).",
)
@click.option(
    "--stream-max-age-h",
    default=24.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Hours the span stream keeps a message.",
)
@click.option(
    "--stream-max-messages",
    default=1_000_000,
    show_default=True,
    type=click.IntRange(1),
    help="Messages the span stream keeps (the oldest go first).",
)
@click.option("--header-timeout", default=10.0, show_default=True, help="Seconds for headers.")
@click.option("--body-timeout", default=30.0, show_default=True, help="Seconds for a body.")
def serve(
    host: str,
    port: int,
    grpc_port: int,
    no_grpc: bool,
    token_file: Path | None,
    stream_url: str | None,
    alert_webhook: str | None,
    detect: bool | None,
    detector_config: Path | None,
    detector_workers: int,
    session_idle_s: float | None,
    policy_path: str | None,
    ssl_certfile: Path | None,
    ssl_keyfile: Path | None,
    ingest_workers: int,
    ingest_threads: bool,
    ingest_queue: int,
    max_body_mb: int,
    max_inflight_mb: int,
    stream_max_age_h: float,
    stream_max_messages: int,
    header_timeout: float,
    body_timeout: float,
) -> None:
    """Receive OTLP traces, store them durably, publish them to the stream, then acknowledge.

    The detectors run beside the receiver unless --no-detect. OTLP logs (`/v1/logs`, the gRPC
    LogsService) take `gen_ai.evaluation.result` events: they are stored as imported scores
    (what `export scores --otlp-endpoint` sends).

    Redaction: the default policy drops every tool's arguments and results and tokenises
    personal data in what it keeps; to keep tool payloads, --redaction-policy keep-tools (every
    tool) or a policy file listing tools under tools.keep. The first line logged says which.

    Live traffic is stored under the `production` build, partitioned by UTC day; a build id in
    the eval context is honoured only for an `evaluation` token, never into a pinned baseline.
    """
    from eval_pipeline.bounded_read import read_bounded
    from eval_pipeline.builds import BuildRegistry
    from eval_pipeline.importers.backends.otel_events import EvaluationEventHandler
    from eval_pipeline.realtime.alerts.plane_process import PlaneProcess
    from eval_pipeline.realtime.detectors.config import load_detector_config
    from eval_pipeline.realtime.detectors.registry import default_detectors
    from eval_pipeline.realtime.receiver.auth import Authenticator, TokenError, load_tokens
    from eval_pipeline.realtime.receiver.http_body import BodyLimits
    from eval_pipeline.realtime.receiver.inflight import InflightBudget
    from eval_pipeline.realtime.receiver.server import Endpoints, Receiver
    from eval_pipeline.realtime.receiver.write_path import WritePath
    from eval_pipeline.realtime.receiver.writer import Writer, WriterSpec
    from eval_pipeline.realtime.stream import StreamUnavailable, open_stream
    from eval_pipeline.realtime.stream.retention import Retention
    from eval_pipeline.traces.redact.redactor import PolicyError, load_policy
    from eval_pipeline.traces.store.trace_store import TraceStore

    try:
        policy = load_policy(policy_path)
    except PolicyError as exc:
        raise InputError(f"--redaction-policy: {exc}") from None
    try:
        authenticator = Authenticator(load_tokens(token_file), host=host)
    except TokenError as exc:
        raise InputError(str(exc)) from None  # names the file and line, or the variable
    for option, tls_file in (("--ssl-certfile", ssl_certfile), ("--ssl-keyfile", ssl_keyfile)):
        try:
            if tls_file is not None:
                read_bounded(tls_file)
        except OSError as exc:
            raise InputError(f"{option}: {tls_file}: cannot be read: {exc.strerror}") from None
    if max_inflight_mb < 2 * max_body_mb:
        raise InputError(
            f"--max-inflight-mb {max_inflight_mb}: below twice --max-body-mb ({max_body_mb}), "
            "the largest inflated body would never be taken"
        )
    retention = Retention(max_age_s=stream_max_age_h * 3600, max_messages=stream_max_messages)
    home = current_home().ensure()
    try:
        stream = open_stream(home, stream_url, retention=retention)
    except (ValueError, StreamUnavailable) as exc:
        raise InputError(f"--stream: {exc}") from None
    writer: Writer | WriterSpec = WriterSpec(home.root, stream_url, policy_path, retention)
    if ingest_threads:
        writer = Writer(
            TraceStore(home.store),
            registry=BuildRegistry(home.state_url),
            stream=stream,
            policy=policy,
        )
    write_path = WritePath(writer, workers=ingest_workers, queue=ingest_queue)
    limits = BodyLimits(
        max_body_bytes=max_body_mb * 1024 * 1024,
        max_decompressed_bytes=2 * max_body_mb * 1024 * 1024,
        body_timeout_s=body_timeout,
    )
    endpoints = Endpoints(host, port, None if no_grpc else grpc_port, ssl_certfile, ssl_keyfile)
    plane = None
    if alert_webhook is not None and not detect:
        stream.close()
        raise InputError("--alert-webhook: alerts come from the detectors; drop --no-detect")
    if session_idle_s is not None and not detect:
        stream.close()
        raise InputError(
            "--session-idle-s: session detectors run with the detectors; drop --no-detect"
        )
    if detect:
        try:
            default_detectors(load_detector_config(detector_config))  # bad: exit 2 now
        except ValueError as exc:
            stream.close()
            raise InputError(f"--detector-config: {exc}") from None
        if alert_webhook is not None and not alert_webhook.startswith(("http://", "https://")):
            stream.close()
            raise InputError(f"--alert-webhook: expected an http(s):// URL, got {alert_webhook!r}")
        plane = PlaneProcess.start(
            stream_url=stream_url,
            webhook=alert_webhook,
            workers=detector_workers,
            config=detector_config,
            session_idle_s=session_idle_s,
        )
    receiver = Receiver(
        write_path,
        authenticator,
        endpoints,
        limits=limits,
        header_timeout_s=header_timeout,
        on_logs=EvaluationEventHandler(
            home.store, pinned=lambda: BuildRegistry(home.state_url).baselines().values()
        ),
        policy=policy,
        budget=InflightBudget(max_inflight_mb * 1024 * 1024),
    )
    click.echo(policy_summary(policy), err=True)
    click.echo(
        f"OTLP/HTTP on {receiver.http_url}"
        + ("" if receiver.grpc_port is None else f", OTLP/gRPC on port {receiver.grpc_port}"),
        err=True,
    )
    try:
        receiver.run()
    finally:
        if plane is not None:
            plane.stop()  # it reports its counts and CPU on its way out
        stream.close()


COMMANDS: list[click.Command] = [serve]
