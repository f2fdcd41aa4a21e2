"""The benchmark harness's command line: ``python -m benchmarks <name> [--format json]``.

Each subcommand runs ``benchmarks.<name>.run`` and prints its result (ratios against a
reference measured in the same run). The harness lives beside the package, not in it: it is a
tool for developers, run from a clone, and nothing in ``eval_pipeline`` imports it.
"""

import json
from pathlib import Path
from typing import Any

import click


@click.group("bench", context_settings={"help_option_names": ["-h", "--help"]})
def bench() -> None:
    """Benchmarks that report a ratio against an in-run reference."""


def _emit(result: dict[str, Any], fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(result, indent=2))
        return
    for key, value in result.items():
        click.echo(f"{key}: {value}")


@bench.command("ingest")
@click.option(
    "--spans",
    "n_spans",
    type=click.IntRange(min=100),
    default=20000,
    show_default=True,
    help="Spans in the synthetic OTLP payload.",
)
@click.option(
    "--redaction-policy",
    "policy",
    type=click.Choice(["default", "keep-tools"]),
    default="default",
    show_default=True,
    help="Shipped redaction policy (keep-tools keeps and scrubs tool payloads).",
)
@click.option(
    "--encoding",
    type=click.Choice(["protobuf", "json"]),
    default="protobuf",
    show_default=True,
    help="OTLP encoding of the payload (the reference parses the same encoding).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_ingest(n_spans: int, policy: str, encoding: str, fmt: str) -> None:
    """Spans/s through decode -> normalise -> redact -> store vs a plain parse->Parquet walk."""
    from benchmarks.ingest import run

    _emit(run(n_spans=n_spans, policy_name=policy, encoding=encoding), fmt)


@bench.command("poison-row")
@click.option(
    "--spans",
    "n_spans",
    type=click.IntRange(min=100),
    default=80000,
    show_default=True,
    help="Good spans in the request (one bad span is added to the second).",
)
@click.option(
    "--bad",
    type=click.Choice(["name-surrogate", "scope-int"]),
    default="name-surrogate",
    show_default=True,
    help="The bad span: a lone surrogate in its name (the store finds it), or an integer scope "
    "name (the decoder does).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_poison_row(n_spans: int, bad: str, fmt: str) -> None:
    """CPU time of a request with one bad span over the same request without it (goal < 3)."""
    from benchmarks.poison_row import run

    _emit(run(n_spans=n_spans, bad=bad), fmt)


@bench.command("score")
@click.option(
    "--runs",
    "n_runs",
    type=click.IntRange(min=10),
    default=10000,
    show_default=True,
    help="Synthetic real-shaped runs to score.",
)
@click.option(
    "--peer-runs",
    type=click.IntRange(min=1),
    default=2000,
    show_default=True,
    help="Of those runs, how many the peers (RAGAS, DeepEval) score.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_score(n_runs: int, peer_runs: int, fmt: str) -> None:
    """Runs/s of the deterministic suite vs a tool-name recall loop and RAGAS / DeepEval."""
    from benchmarks.score import run

    _emit(run(n_runs=n_runs, peer_runs=peer_runs), fmt)


@bench.command("gate")
@click.option(
    "--resamples",
    "n_resamples",
    type=click.IntRange(min=100),
    default=10000,
    show_default=True,
    help="Bootstrap resamples of the gate.",
)
@click.option(
    "--reference-metrics",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Metrics the slow reference runs on (the rest is extrapolated).",
)
@click.option(
    "--reference-resamples",
    type=click.IntRange(min=100),
    default=1000,
    show_default=True,
    help="Resamples of the reference (extrapolated linearly).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_gate(
    n_resamples: int, reference_metrics: int, reference_resamples: int, fmt: str
) -> None:
    """A full gate (15 metrics x 10 slices x 150 items x 3 runs) vs the reference bootstrap."""
    from benchmarks.gate import run

    _emit(
        run(
            n_resamples=n_resamples,
            reference_metrics=reference_metrics,
            reference_resamples=reference_resamples,
        ),
        fmt,
    )


@bench.command("gate-files")
@click.option(
    "--rows",
    type=click.IntRange(min=30),
    default=1_000_000,
    show_default=True,
    help="Rows per score file (10 metrics x items x 3 runs).",
)
@click.option(
    "--output-dir",
    type=click.Path(path_type=Path, file_okay=False),
    required=True,
    help="Where the suite and the two score files are written.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_gate_files(rows: int, output_dir: Path, fmt: str) -> None:
    """Write a suite and two score files of ROWS rows, to time `gate` on them (see its output)."""
    from benchmarks.gate_scale import write_scale_inputs

    _emit(write_scale_inputs(rows, output_dir), fmt)


@bench.command("export")
@click.option(
    "--scores", "n_scores", type=click.IntRange(min=100), default=50000, show_default=True
)
@click.option("--repeats", type=click.IntRange(min=1), default=3, show_default=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_export(n_scores: int, repeats: int, fmt: str) -> None:
    """Evaluation events/s exported over OTLP HTTP and gRPC vs sending pre-serialised bodies."""
    from benchmarks.export import run

    _emit(run(n_scores=n_scores, repeats=repeats), fmt)


@bench.command("serve")
@click.option("--requests", type=click.IntRange(min=4), default=60, show_default=True)
@click.option("--spans-per-request", type=click.IntRange(min=8), default=2000, show_default=True)
@click.option("--connections", type=click.IntRange(min=1), default=4, show_default=True)
@click.option("--alert-rate", type=click.IntRange(min=100), default=5000, show_default=True)
@click.option(
    "--duration",
    type=click.FloatRange(min=1),
    default=60.0,
    show_default=True,
    help="Seconds of sustained load for the alert latency.",
)
@click.option(
    "--stream",
    "stream_url",
    default=None,
    help="nats://HOST:PORT: serve on NATS JetStream (a fresh stream, deleted after).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_serve(
    requests: int,
    spans_per_request: int,
    connections: int,
    alert_rate: int,
    duration: float,
    stream_url: str | None,
    fmt: str,
) -> None:
    """Persisted spans/s through `serve` vs the plain walk; alert latency ack -> webhook."""
    from benchmarks.serve import run

    _emit(
        run(
            requests=requests,
            spans_per_request=spans_per_request,
            connections=connections,
            alert_rate=alert_rate,
            duration_s=duration,
            stream_url=stream_url,
        ),
        fmt,
    )


@bench.command("redact")
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Scans of each 1 MB input (the median is reported).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_redact(repeats: int, fmt: str) -> None:
    """Milliseconds to scan one 1 MB attribute of each hostile shape vs the 50 ms budget."""
    from benchmarks.redact import run

    _emit(run(repeats=repeats), fmt)


@bench.command("judge")
@click.option("--cases", "n_cases", type=click.IntRange(min=1), default=37, show_default=True)
@click.option(
    "--latency",
    type=click.FloatRange(min=0.0),
    default=0.5,
    show_default=True,
    help="Seconds the fake endpoint takes per request.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    help="The limit each tool is given (eval-pipeline's max_concurrency, DeepEval's "
    "max_concurrent, RAGAS's max_workers).",
)
@click.option(
    "--reject-above",
    type=click.IntRange(min=1),
    default=None,
    help="The endpoint answers 429 (Retry-After: 1) above this many requests in flight.",
)
@click.option("--rounds", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--tool",
    "tools",
    multiple=True,
    type=click.Choice(
        [
            "eval-pipeline",
            "eval-pipeline deepeval.faithfulness",
            "eval-pipeline ragas.faithfulness",
            "deepeval",
            "ragas",
        ]
    ),
    help="Measure only these tools (repeatable; default: all).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_judge(
    n_cases: int,
    latency: float,
    concurrency: int,
    reject_above: int | None,
    rounds: int,
    tools: tuple[str, ...],
    fmt: str,
) -> None:
    """Judged test cases/s and calls per case: eval-pipeline vs DeepEval and RAGAS, one endpoint."""
    from benchmarks.judge import TOOLS, run

    _emit(
        run(
            n_cases=n_cases,
            latency=latency,
            concurrency=concurrency,
            reject_above=reject_above,
            rounds=rounds,
            tools=tools or tuple(TOOLS),
        ),
        fmt,
    )


@bench.command("tau2-conversations")
@click.option("--runs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N covered tasks.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def bench_tau2_conversations(runs: int, limit: int | None, fmt: str) -> None:
    """Covered tau2 retail tasks as scripted conversations with the sample agent, scored."""
    from benchmarks.tau2_conversations import run

    _emit(run(runs=runs, limit=limit), fmt)


@bench.command("table-formats")
@click.option("--appends", type=click.IntRange(min=4), default=40, show_default=True)
@click.option("--rows", type=click.IntRange(min=1), default=500, show_default=True)
@click.option(
    "--concurrent-appends",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="Appends by each of the two concurrent writer processes.",
)
@click.option("--s3/--no-s3", default=True, help="Also on a loopback SeaweedFS (if installed).")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default="markdown")
def bench_table_formats(
    appends: int, rows: int, concurrent_appends: int, s3: bool, fmt: str
) -> None:
    """Delta Lake vs Iceberg on span batches: append, files, compaction, 2 writers, one build."""
    from benchmarks.table_formats import markdown, run

    result = run(appends=appends, rows=rows, concurrent_appends=concurrent_appends, s3=s3)
    click.echo(json.dumps(result, indent=2) if fmt == "json" else markdown(result))
