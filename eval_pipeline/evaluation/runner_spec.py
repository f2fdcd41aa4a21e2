"""Parse the ``--runner`` of a registered build into a Runner.

Forms:
- ``python:MODULE:FUNCTION[?key=value&...]``: call a Python entry point in process; the query
  becomes the entry point's ``params`` (the sample agent reads ``agent_build``).
- ``http://HOST:PORT/PATH`` or ``https://...``: POST items to an agent endpoint.
- ``replay:BUILD``: replay the runs recorded under another build (imports, ingested traces).
- no runner: the build's traces are already in the store (ingested or imported).
"""

from urllib.parse import parse_qsl

from eval_pipeline.runners.base import Runner
from eval_pipeline.runners.sink import TraceStoreSink


class RunnerSpecError(ValueError):
    """The runner spec is not one of the accepted forms."""


def runner_from_spec(spec: str, sink: TraceStoreSink, *, timeout_s: float = 60.0) -> Runner:
    """Build the runner a spec names, writing into ``sink``."""
    if spec.startswith("python:"):
        from eval_pipeline.runners.python_entry import PythonEntryPointRunner

        target, _, query = spec.removeprefix("python:").partition("?")
        if target.count(":") != 1:
            raise RunnerSpecError(f"runner {spec!r}: expected python:MODULE:FUNCTION")
        return PythonEntryPointRunner(
            target, params=dict(parse_qsl(query)), sink=sink, timeout_s=timeout_s
        )
    if spec.startswith(("http://", "https://")):
        from eval_pipeline.runners.http_endpoint import HttpEndpointRunner

        return HttpEndpointRunner(spec, sink=sink, timeout_s=timeout_s)
    if spec.startswith("replay:"):
        from eval_pipeline.runners.replay import ReplayRunner

        return ReplayRunner(sink, spec.removeprefix("replay:"), sink=sink, timeout_s=timeout_s)
    raise RunnerSpecError(
        f"runner {spec!r}: expected python:MODULE:FUNCTION, http(s)://..., or replay:BUILD"
    )
