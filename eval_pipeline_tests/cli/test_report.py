"""``eval-pipeline report --build B [--out DIR]``: one standalone HTML file per gated build.

Contract (issue 20): the page holds the verdict, a row per metric, a row per slice (passing
ones too), the budgets, the evidence items with their trace ids and the forest plot inlined as
a PNG data URI, and refers to nothing outside itself (no script, stylesheet, image or link to
fetch). A build never gated is bad input (exit 2, one ``error:`` line); a damaged stored report
is the tool's own data (exit 3).
"""

import base64
import io
import json
import sys
from html.parser import HTMLParser
from pathlib import Path

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
        self.text: list[str] = []
        self._table: str | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for name in ("src", "href"):
            if a.get(name) and not str(a[name]).startswith("data:"):
                self.external.append(str(a[name]))
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


def test_the_report_is_one_standalone_page_of_the_stored_gate(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = {**real_gate_report(), "build": "cand", "baseline": "base"}
    target = gate_report_path(current_home().ensure(), "cand")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(report))

    assert _main(monkeypatch, "report", "--build", "cand", "--out", str(tmp_path / "out")) == 0
    written = Path(capsys.readouterr().out.strip())
    assert written == tmp_path / "out" / "cand.html"
    page = Page()
    page.feed(written.read_text(encoding="utf-8"))

    assert page.external == []
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
    traces = {t for m in report["metrics"] for e in m["evidence"] for t in e["trace_ids"]}
    shown = {t for row in page.tables["evidence"][1:] for t in row[-1].split()}
    assert traces and shown == traces

    prefix = "data:image/png;base64,"
    assert page.images["forest-plot"].startswith(prefix)
    png = base64.b64decode(page.images["forest-plot"].removeprefix(prefix))
    with Image.open(io.BytesIO(png)) as image:
        assert image.format == "PNG"


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
