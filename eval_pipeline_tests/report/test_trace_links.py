"""Trace links (``report/trace_links.py``): the report's own pages, or a tracing UI's template.

Contract: without a template a trace links to ``#trace-<id>`` and a span to ``#span-<t>-<s>``;
a template replaces ``{trace_id}``, ``{span_id}`` and ``{build}`` literally (URL-quoted ids),
leaving other braces (Grafana's JSON) alone; ``--trace-url`` wins over the environment; a
template without ``{trace_id}`` or not http(s) is refused naming where it came from.
"""

import pytest

from eval_pipeline.report.trace_links import (
    ENV_VAR,
    EXAMPLES,
    TraceLinks,
    TraceUrlTemplateError,
    trace_links,
)


def test_the_default_links_inside_the_report() -> None:
    links = TraceLinks()
    assert not links.external
    assert links.trace("abc123") == "#trace-abc123"
    assert links.trace("abc123", span_id="ff01") == "#span-abc123-ff01"


def test_every_documented_template_links_the_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    for name, template in EXAMPLES.items():
        url = trace_links(template).trace("4bf92f3577b34da6", build="cand 1", span_id="00f0")
        assert "4bf92f3577b34da6" in url and "{trace_id}" not in url, name
    jaeger = trace_links(EXAMPLES["jaeger"]).trace("4bf9", span_id="00f0")
    assert jaeger == "http://localhost:16686/trace/4bf9?uiFind=00f0"
    tempo = trace_links(EXAMPLES["tempo"]).trace("4bf9")
    assert "%22query%22:%224bf9%22" in tempo  # the Explore state kept, the id put in
    build = trace_links("https://ui.example/{build}/{trace_id}").trace("a/b", build="cand 1")
    assert build == "https://ui.example/cand%201/a%2Fb"


def test_the_option_wins_over_the_environment_and_bad_templates_are_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_VAR, "http://env.example/{trace_id}")
    assert trace_links().trace("t1") == "http://env.example/t1"
    assert trace_links("http://option.example/{trace_id}").trace("t1") == "http://option.example/t1"
    with pytest.raises(TraceUrlTemplateError, match=r"^--trace-url: .*no \{trace_id\}"):
        trace_links("http://option.example/")
    monkeypatch.setenv(ENV_VAR, "file:///tmp/{trace_id}")
    with pytest.raises(TraceUrlTemplateError, match=f"^{ENV_VAR}: .*not an http"):
        trace_links()
