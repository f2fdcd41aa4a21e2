"""CLI: the detectors of the real-time plane, live and in replay.

``detect --build B [--config F] [--record] [--format json|text]`` replays the detectors over
a stored build: the same detectors, on the same spans, give the alerts the live plane gave
(same ids); ``--record`` stores them (deduplicated, owing no webhook call). ``detectors run``
consumes the span stream with N workers until SIGINT/SIGTERM, storing alerts, POSTing them to
``--webhook`` and printing them as JSON lines on stdout.
"""

import gc
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

import click

from eval_pipeline.cli.alerts import print_alerts
from eval_pipeline.cli.errors import InputError
from eval_pipeline.cli.output import echo_json, format_option
from eval_pipeline.home import current_home

if TYPE_CHECKING:
    from eval_pipeline.realtime.detectors.config import DetectorConfig
    from eval_pipeline.realtime.detectors.flag import Detector


def _config(path: Path | None) -> "tuple[DetectorConfig, tuple[Detector, ...]]":
    """The settings at ``path`` and the detectors they configure (bad settings: exit 2)."""
    from eval_pipeline.realtime.detectors.config import DetectorConfigError, load_detector_config
    from eval_pipeline.realtime.detectors.registry import default_detectors
    from eval_pipeline.suites.prices import PriceTableError

    try:
        config = load_detector_config(path)
        return config, default_detectors(config)
    except (DetectorConfigError, PriceTableError) as exc:
        raise InputError(f"--config: {exc}") from None


_CONFIG = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Detector settings YAML (patterns, forbidden tools/calls, canaries, budgets).",
)


@click.command("detect")
@click.option("--build", required=True, help="The stored build to replay the detectors over.")
@_CONFIG
@click.option("--record", is_flag=True, help="Store the alerts (deduplicated) in the state db.")
@format_option()
def detect(build: str, config_path: Path | None, record: bool, fmt: str) -> None:
    """Replay the real-time detectors over a stored build; print its alerts."""
    from eval_pipeline.realtime.alerts.alert import Alert
    from eval_pipeline.realtime.alerts.detector_runs import REPLAY, DetectorRuns
    from eval_pipeline.realtime.alerts.store import AlertStore
    from eval_pipeline.realtime.detectors.registry import detect as detect_run
    from eval_pipeline.traces.store.trace_store import TraceStore

    _, detectors = _config(config_path)
    home = current_home()
    store = TraceStore(home.store)
    builds = store.builds()
    if build not in builds:
        raise InputError(
            f"--build {build}: no traces stored for this build "
            f"(known: {', '.join(builds) or 'none'})"
        )
    runs = store.runs(build)
    alerts = [Alert.from_flag(flag, build) for run in runs for flag in detect_run(run, detectors)]
    if record:
        AlertStore(home.state_url).record(alerts, deliver=False)
        replay = DetectorRuns(home.state_url)
        replay.checked(
            replay.start(REPLAY, build=build),
            spans=sum(len(r.spans) for r in runs),
            traces=len(runs),
        )
    if fmt == "json":
        echo_json([a.as_json() for a in alerts])
        return
    print_alerts(alerts, f"{len(alerts)} alert(s) over build {build}")


def tune_gc() -> None:
    """Collect less often in a process that only runs detectors.

    Decoding a batch allocates hundreds of thousands of objects that live until the batch is
    judged: the default thresholds ran a young collection every 700 of them, walking the same
    survivors again and again. What the process holds long (modules, config) is frozen.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


@click.group("detectors")
def detectors() -> None:
    """Run the real-time plane's detector workers."""


@detectors.command("run")
@click.option("--stream", "stream_url", default=None, help="nats://host:port (default: embedded).")
@click.option("--prefix", default="evalpipe", show_default=True, help="Subject prefix / stream.")
@click.option("--webhook", default=None, help="POST each new alert here (retried with backoff).")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option("--batch", default=1000, show_default=True, type=click.IntRange(1, 10_000))
@click.option("--ack-wait", "ack_wait_s", default=30.0, show_default=True, type=float)
@click.option("--json-lines/--no-json-lines", default=True, help="New alerts on stdout.")
@click.option(
    "--session-idle-s",
    "session_idle_s",
    type=click.FloatRange(min=0.0, min_open=True),
    default=None,
    help="Seconds without a turn after which a conversation has ended (over the config's).",
)
@_CONFIG
def run(
    stream_url: str | None,
    prefix: str,
    webhook: str | None,
    workers: int,
    batch: int,
    ack_wait_s: float,
    json_lines: bool,
    session_idle_s: float | None,
    config_path: Path | None,
) -> None:
    """Consume the span stream until SIGINT or SIGTERM; alerts to the state db, webhook, stdout."""
    from eval_pipeline.realtime.alerts.plane import RealtimePlane
    from eval_pipeline.realtime.stream.events import StreamUnavailable

    config, _ = _config(config_path)
    if session_idle_s is not None:
        sessions = config.sessions.model_copy(update={"idle_timeout_s": session_idle_s})
        config = config.model_copy(update={"sessions": sessions})
    if webhook is not None and not webhook.startswith(("http://", "https://")):
        raise InputError(f"--webhook: expected an http(s):// URL, got {webhook!r}")
    if stream_url is not None and not stream_url.startswith(("nats://", "tls://")):
        raise InputError(f"--stream: expected nats://host:port, got {stream_url!r}")
    stop = threading.Event()

    def _on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    tune_gc()
    started = time.process_time()
    try:
        plane = RealtimePlane.start(
            current_home().ensure(),
            stream_url=stream_url,
            prefix=prefix,
            workers=workers,
            webhook=webhook,
            json_lines=sys.stdout if json_lines else None,
            config=config,
            ack_wait_s=ack_wait_s,
            batch=batch,
        )
    except StreamUnavailable as exc:
        raise InputError(f"--stream: {exc}") from None
    click.echo(
        f"detectors running: {workers} worker(s) on {stream_url or 'the embedded stream'}",
        err=True,
    )
    try:
        stop.wait()
    finally:
        plane.stop()
        stats = plane.stats
        click.echo(
            f"detectors stopped: {stats.spans} spans, {stats.traces} traces, "
            f"{stats.alerts} alerts, {stats.cpu_s:.3f} s CPU "
            f"({time.process_time() - started:.3f} s process CPU)",
            err=True,
        )


COMMANDS: list[click.Command] = [detect, detectors]
