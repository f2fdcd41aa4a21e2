"""Run a Python entry point (``module:function``) in process, capturing spans via the OTel SDK.

The entry point is called as ``function(item, context)`` with a ``DatasetItem`` and a
``RunContext`` (eval context, tracer, seed, build params). It must create its spans with
``context.tracer`` or the global tracer; the spans are encoded with the OTLP exporter's encoder
and decoded by the project's decoder, so they are normalised exactly like ingested traces, and
the sink stores them through the one ingest function (redacted by its policy).
"""

import importlib
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.runners import otel_capture
from eval_pipeline.runners.base import Runner, RunSpec
from eval_pipeline.runners.context import RunContext
from eval_pipeline.runners.otlp_spans import decode_request, encode_readable
from eval_pipeline.runners.sink import RunSink
from eval_pipeline.traces.model import Span

EntryPoint = Callable[[DatasetItem, RunContext], Any]


def import_module(name: str) -> ModuleType:
    """Import ``name`` the way ``python -m`` resolves it: also from the working directory.

    Console scripts do not put the working directory on ``sys.path``; agents under test (the
    sample in ``examples/``) usually live in the user's project, so it is added on a miss.
    """
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        top = name.split(".", 1)[0]
        cwd = str(Path.cwd())
        if exc.name not in (top, name) or cwd in sys.path:
            raise
        sys.path.append(cwd)
        return importlib.import_module(name)


def load_entry_point(spec: str) -> EntryPoint:
    """Import ``module:function`` (attribute paths allowed after the colon).

    Raises:
        ValueError: the spec is malformed or does not name a callable.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"entry point {spec!r} must look like 'package.module:function'")
    target: Any = import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise ValueError(f"entry point {spec!r}: {module_name} has no attribute {attribute}")
    if not callable(target):
        raise ValueError(f"entry point {spec!r} is not callable")
    return target  # type: ignore[no-any-return]


class PythonEntryPointRunner(Runner):
    """Calls ``function(item, context)`` once per run and captures the spans it creates."""

    def __init__(
        self,
        entry_point: str | EntryPoint,
        *,
        params: Mapping[str, Any] | None = None,
        sink: RunSink | None = None,
        timeout_s: float = 60.0,
        agent: str | None = None,
    ) -> None:
        super().__init__(sink=sink, timeout_s=timeout_s)
        self.entry_point = entry_point
        self.function = (
            load_entry_point(entry_point) if isinstance(entry_point, str) else entry_point
        )
        self.params = dict(params or {})
        self._agent = agent

    def agent_name(self) -> str | None:
        """The root agent name given at construction, if any."""
        return self._agent

    def execute(self, spec: RunSpec) -> list[Span]:
        """One call of the entry point under a span collector."""
        provider = otel_capture.runner_provider()
        context = RunContext(
            build=spec.build,
            eval_context=spec.context,
            seed=spec.seed,
            tracer=provider.get_tracer("eval_pipeline.runners.python"),
            params=self.params,
            timeout_s=spec.timeout_s,
            cancelled=spec.cancelled,
            conversation_id=spec.conversation_id,
            turn=spec.turn,
        )
        with otel_capture.capture() as collector:
            try:
                self.function(spec.item, context)
            finally:
                otel_capture.release(collector)
        finished = collector.spans()
        if not finished:
            return []
        return decode_request(encode_readable(finished), source=f"runner:{spec.build}")
