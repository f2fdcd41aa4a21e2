"""CLI: ``serve``, the OTLP/HTTP receiver (``POST /v1/traces``) on the embedded home."""

import click

from eval_pipeline.cli.errors import InputError
from eval_pipeline.home import current_home


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=4318, show_default=True, help="OTLP/HTTP's default port.")
@click.option(
    "--redaction-policy",
    "policy_path",
    default=None,
    help="Redaction policy file, or a shipped one: default, keep-tools.",
)
def serve(host: str, port: int, policy_path: str | None) -> None:
    """Receive OTLP traces (protobuf or JSON) and store them before acknowledging.

    Live traffic without a build in its eval context is stored under the `production` build,
    partitioned by UTC day, where the `production_sample` asset samples it.
    """
    import uvicorn

    from eval_pipeline.realtime.receiver import make_app
    from eval_pipeline.traces.redact.redactor import PolicyError, load_policy

    try:
        policy = load_policy(policy_path)
    except PolicyError as exc:
        raise InputError(f"--redaction-policy: {exc}") from None
    app = make_app(current_home().ensure().store, policy=policy)
    uvicorn.run(app, host=host, port=port, log_level="info")


COMMANDS: list[click.Command] = [serve]
