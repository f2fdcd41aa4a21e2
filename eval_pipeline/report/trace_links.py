"""Where a trace id links to: the report's own trace page, or a tracing UI through a template.

A template is a URL with ``{trace_id}`` (required), and optionally ``{span_id}`` and
``{build}``, replaced literally (not ``str.format``, so a Grafana Explore URL's JSON braces stay
as they are); ids are URL-quoted. Set by ``eval-pipeline report --trace-url TEMPLATE`` or the
``EVAL_PIPELINE_TRACE_URL`` environment variable (one setting for a CI job); without either,
every trace id links to its page inside the report (``#trace-<id>``), which works offline.
The report always keeps its own trace pages; a template adds the link out beside them.
"""

import os
import re
from dataclasses import dataclass
from urllib.parse import quote

ENV_VAR = "EVAL_PIPELINE_TRACE_URL"
PLACEHOLDERS = ("{trace_id}", "{span_id}", "{build}")

EXAMPLES = {
    "jaeger": "http://localhost:16686/trace/{trace_id}?uiFind={span_id}",
    "tempo": "http://localhost:3000/explore?left=%7B%22datasource%22:%22tempo%22,"
    "%22queries%22:%5B%7B%22query%22:%22{trace_id}%22,%22queryType%22:%22traceql%22%7D%5D%7D",
    "phoenix": "http://localhost:6006/projects/<project-id>/traces/{trace_id}",
    "langfuse": "https://cloud.langfuse.com/project/<project-id>/traces/{trace_id}",
}
"""Templates for common tracing UIs (Grafana Explore over Tempo; replace ``<project-id>``)."""


class TraceUrlTemplateError(ValueError):
    """A trace URL template that cannot link a trace (names the setting it came from)."""


def anchor(kind: str, *ids: str) -> str:
    """The id of a trace page or span element in the report (``trace-<t>``, ``span-<t>-<s>``)."""
    return f"{kind}-" + "-".join(re.sub(r"[^A-Za-z0-9_.:-]", "_", i) for i in ids)


@dataclass(frozen=True)
class TraceLinks:
    """Links for trace and span ids; ``template`` None links inside the report."""

    template: str | None = None

    @property
    def external(self) -> bool:
        """Whether links leave the report (a tracing UI)."""
        return self.template is not None

    def trace(self, trace_id: str, build: str = "", span_id: str = "") -> str:
        """The link of a trace (or of one span of it, where the template can say so)."""
        if self.template is None:
            return "#" + (
                anchor("span", trace_id, span_id) if span_id else anchor("trace", trace_id)
            )
        url = self.template.replace("{trace_id}", quote(trace_id, safe=""))
        url = url.replace("{span_id}", quote(span_id, safe=""))
        return url.replace("{build}", quote(build, safe=""))


def trace_links(option: str | None = None) -> TraceLinks:
    """The links configured by ``--trace-url`` (``option``), else by ``EVAL_PIPELINE_TRACE_URL``.

    Raises:
        TraceUrlTemplateError: the template has no ``{trace_id}`` or is not an http(s) URL.
    """
    source, template = ("--trace-url", option) if option else (ENV_VAR, os.environ.get(ENV_VAR))
    if not template:
        return TraceLinks()
    if "{trace_id}" not in template:
        raise TraceUrlTemplateError(
            f"{source}: {template!r} has no {{trace_id}} placeholder (e.g. {EXAMPLES['jaeger']!r})"
        )
    if not template.startswith(("http://", "https://")):
        raise TraceUrlTemplateError(f"{source}: {template!r} is not an http(s) URL")
    return TraceLinks(template)
