"""``eval-pipeline report --build B [--out DIR]``: one standalone HTML file per gated build.

Contract (issue 20): the page holds the verdict, a row per metric, a row per slice (passing
ones too), the budgets, the evidence items linking to their trace pages inside the page, the
forest and distribution plots inlined as PNG data URIs and the NIST AI RMF section, and refers
to nothing outside itself (no script, stylesheet, image or link to fetch; every ``#`` link has
its target in the page). With a trace URL template (``--trace-url`` or
``EVAL_PIPELINE_TRACE_URL``) the traces also link out through it. A build never gated, or a
template without ``{trace_id}``, is bad input (exit 2, one ``error:`` line naming what is at
fault); a damaged stored report is the tool's own data (exit 3).
"""

import base64
import io
import json
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from eval_pipeline.cli import main
from eval_pipeline.home import current_home
from eval_pipeline.report.stored import gate_report_path
from eval_pipeline_tests.report.gate_reports import real_gate_report


class Page(HTMLParser):
    """The tables (by id, rows of cell texts), the images and every external reference."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.images: dict[str, str] = {}
        self.external: list[str] = []
        self.fragments: list[str] = []
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "a" and a.get("href"):
            self.links.append(str(a["href"]))
        for name in ("src", "href"):
            value = str(a.get(name) or "")
            if value.startswith("#"):
                self.fragments.append(value[1:])
            elif value and not value.startswith("data:"):
                self.external.append(value)
        if tag == "script":
            self.external.append("<script>")
        if tag == "table":
            self._table = str(a.get("id"))
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self.tables[self._table].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "img":
            self.images[str(a.get("id"))] = str(a.get("src"))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table:
            self.tables[self._table][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def _main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["eval-pipeline", *args])
    with pytest.raises(SystemExit) as stopped:
        main()
    code = stopped.value.code
    return code if isinstance(code, int) else (0 if code is None else 1)


def store_report() -> dict[str, Any]:
    report = {**real_gate_report(), "build": "cand", "baseline": "base"}
    target = gate_report_path(current_home().ensure(), "cand")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report))
    return report


def evidence_traces(report: dict[str, Any]) -> set[str]:
    return {t for m in report["metrics"] for e in m["evidence"] for t in e["trace_ids"]}


def test_the_report_is_one_standalone_page_of_the_stored_gate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = store_report()

    assert _main(monkeypatch, "report", "--build", "cand", "--out", str(tmp_path / "out")) == 0
    written = Path(capsys.readouterr().out.strip())
    assert written == tmp_path / "out" / "cand.html"
    page = Page()
    page.feed(written.read_text(encoding="utf-8"))

    assert page.external == []
    assert page.fragments and set(page.fragments) <= page.ids
    assert "FAIL" in "".join(page.text) and "no-go" in "".join(page.text)
    metrics = page.tables["metrics"][1:]
    assert [(r[0], r[1]) for r in metrics] == [
        (m["metric_id"], m["verdict"]) for m in report["metrics"]
    ]
    slices = page.tables["slices"][1:]
    expected = [
        (m["metric_id"], f"{s['slice']}={s['value']}", s["verdict"])
        for m in report["metrics"]
        for s in m["slices"]
    ]
    assert [(r[0], r[1], r[2]) for r in slices] == expected
    assert {"pass", "fail"} <= {r[2] for r in slices}
    traces = evidence_traces(report)
    shown = {t for row in page.tables["evidence"][1:] for t in row[-1].split()}
    assert traces and shown == traces
    # Each trace has its page in the report; this home holds no spans or scores of them.
    assert {f"trace-{t}" for t in traces} <= page.ids
    assert "This trace is not in this home's trace store." in "".join(page.text)
    nist = page.tables["nist-table"][1:]
    assert {row[0] for row in nist} == {"GOVERN", "MAP", "MEASURE", "MANAGE"}
    assert "No judge calibration" in "".join(page.text)  # a build nobody registered

    prefix = "data:image/png;base64,"
    assert set(page.images) == {"forest-plot", "distribution-plot"}
    for uri in page.images.values():
        with Image.open(io.BytesIO(base64.b64decode(uri.removeprefix(prefix)))) as image:
            assert uri.startswith(prefix) and image.format == "PNG"


def test_a_trace_url_template_links_every_trace_out_and_a_bad_one_exits_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = store_report()
    jaeger = "http://localhost:16686/trace/{trace_id}"
    assert (
        _main(
            monkeypatch, "report", "--build", "cand", "--out", str(tmp_path), "--trace-url", jaeger
        )
        == 0
    )
    page = Page()
    page.feed(Path(capsys.readouterr().out.strip()).read_text(encoding="utf-8"))
    out = {link for link in page.links if link.startswith("http")}
    assert out == {jaeger.replace("{trace_id}", t) for t in evidence_traces(report)}
    assert {f"trace-{t}" for t in evidence_traces(report)} <= page.ids  # its own pages remain

    monkeypatch.setenv("EVAL_PIPELINE_TRACE_URL", "http://tempo.example/no-placeholder")
    assert _main(monkeypatch, "report", "--build", "cand") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: EVAL_PIPELINE_TRACE_URL: ") and "{trace_id}" in err
    assert _main(monkeypatch, "report", "--build", "cand", "--trace-url", "ftp://x/{trace_id}") == 2
    assert capsys.readouterr().err.startswith("error: --trace-url: ")


def test_a_build_never_gated_exits_2_and_a_damaged_report_exits_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(monkeypatch, "report", "--build", "never-gated") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "never-gated.json" in err
    target = gate_report_path(current_home().ensure(), "broken")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("{not json")
    assert _main(monkeypatch, "report", "--build", "broken") == 3
    assert capsys.readouterr().err.startswith("internal error: ")
