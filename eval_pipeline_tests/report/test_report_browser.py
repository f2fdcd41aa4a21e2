"""The standalone report and the gate asset's partition page, read in headless Chromium.

Contract (issue 20): for a real build gated against its baseline (a suite with a calibrated
judge), ``eval-pipeline report`` writes a page that Chromium, opened from ``file://``, shows
with the verdict, one row per metric and per slice (all of them), the forest, distribution and
calibration plots loaded (``naturalWidth > 0``), evidence links that open the trace's page (its
span tree with the scores on their spans) and the NIST AI RMF section; and the Dagster UI's
partition page of the build's gate asset shows the plots it carries. Issue 32: the page's "What
changed" section reads in the browser (the per-metric counts, the failing metric's regressed
items with both builds' runs, a run's trace link opening its page) and so does the history
plot over the suite's builds. Screenshots are written to ``docs/screenshots/`` when
``EVAL_PIPELINE_SAVE_SCREENSHOTS=1`` (``make screenshots``).
"""

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from eval_pipeline.cli import main
from eval_pipeline.report.stored import load_gate_report
from eval_pipeline_tests.conftest import REPO_ROOT
from eval_pipeline_tests.defs.chromium import CHROMIUM, Chromium
from eval_pipeline_tests.report.judged_home import dagster_webserver, evaluate_judged_builds

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        CHROMIUM is None, reason="chromium is not installed (make test installs it)"
    ),
]


def js(browser: Chromium, expression: str) -> Any:
    """The value of a JavaScript expression in the page."""
    reply = browser.call("Runtime.evaluate", expression=expression, returnByValue=True)
    return reply.get("result", {}).get("value")


def table_rows(browser: Chromium, table_id: str) -> list[list[str]]:
    return list(
        js(
            browser,
            f"[...document.getElementById({json.dumps(table_id)}).rows].slice(1)"
            ".map(r => [...r.cells].map(c => c.innerText.trim()))",
        )
    )


def shot(browser: Chromium, folder: Path, name: str, element_id: str | None = None) -> Path:
    if element_id is not None:
        js(browser, f"document.getElementById({json.dumps(element_id)}).scrollIntoView()")
        js(browser, "window.scrollBy(0, -80)")  # keep the section's heading in the picture
    return browser.screenshot(folder / name)


def write_report(monkeypatch: pytest.MonkeyPatch, build: str, out: Path) -> Path:
    monkeypatch.setattr(
        sys, "argv", ["eval-pipeline", "report", "--build", build, "--out", str(out)]
    )
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code in (0, None)
    return out / f"{build}.html"


def read_report(browser: Chromium, page: Path, report: dict[str, Any], shots: Path) -> list[Path]:
    text = browser.goto(page.as_uri(), wait_for_text="NIST AI RMF")
    assert "FAIL: no-go" in text
    metrics = table_rows(browser, "metrics")
    assert [(r[0], r[1]) for r in metrics] == [
        (m["metric_id"], m["verdict"]) for m in report["metrics"]
    ]
    expected = [
        (m["metric_id"], f"{s['slice']}={s['value']}", s["verdict"])
        for m in report["metrics"]
        for s in m["slices"]
    ]
    assert [tuple(r[:3]) for r in table_rows(browser, "slices")] == expected
    images = js(
        browser, "Object.fromEntries([...document.images].map(i => [i.id, i.naturalWidth]))"
    )
    assert set(images) == {"forest-plot", "distribution-plot", "calibration-plot", "history-plot"}
    assert all(width > 0 for width in images.values()), images
    nist = table_rows(browser, "nist-table")
    assert {row[0] for row in nist} == {"GOVERN", "MAP", "MEASURE", "MANAGE"}
    assert any(row[1].startswith("MEASURE 2.13") for row in nist)
    shots_taken = [shot(browser, shots, "report-verdict.png")]
    shots_taken.append(shot(browser, shots, "report-plots.png", "distribution-plot"))
    shots_taken.append(shot(browser, shots, "report-nist.png", "nist"))
    shots_taken += read_changes_and_history(browser, report, shots)

    # The failing metric's worst item opens its trace page: the span tree with its scores.
    failing = next(m for m in report["metrics"] if m["verdict"] == "fail")
    trace_id = failing["evidence"][0]["trace_ids"][0]
    assert (
        js(browser, f"getComputedStyle(document.getElementById('trace-{trace_id}')).display")
        == "none"
    )
    clicked = js(
        browser,
        f"(() => {{ const a = [...document.querySelectorAll('a.trace')]"
        f".find(a => a.textContent.trim() === '{trace_id}'); a.click(); return a.hash; }})()",
    )
    assert clicked == f"#trace-{trace_id}"
    section = f"document.getElementById('trace-{trace_id}')"
    assert js(browser, f"getComputedStyle({section}).display") == "block"
    assert js(browser, f"{section}.querySelectorAll('li.span').length") > 1
    badges = js(browser, f"[...{section}.querySelectorAll('li.span .score')].map(b => b.innerText)")
    assert any(b.startswith(f"{failing['metric_id']}=") for b in badges), badges
    assert "Span tree" in js(browser, "document.body.innerText")
    # A score's span link stays on the trace page and highlights the span it names.
    span_hash = js(
        browser,
        f"(() => {{ const a = {section}.querySelector('table a[href^=\"#span-\"]');"
        " a.click(); return a.hash; })()",
    )
    assert js(browser, f"getComputedStyle({section}).display") == "block"
    target = f"document.getElementById({json.dumps(span_hash[1:])})"
    assert js(browser, f"{target}.matches(':target') && {section}.contains({target})")
    shots_taken.append(shot(browser, shots, "report-trace.png", f"trace-{trace_id}"))
    return shots_taken


def visible(browser: Chromium, element_id: str) -> bool:
    """Whether the element is laid out on the page (displayed, with a size)."""
    return bool(
        js(
            browser,
            f"(() => {{ const e = document.getElementById({json.dumps(element_id)});"
            " return !!e && e.offsetHeight > 0 && getComputedStyle(e).display !== 'none'; })()",
        )
    )


def read_changes_and_history(browser: Chromium, report: dict[str, Any], shots: Path) -> list[Path]:
    """The "What changed" section and the history plot, as a reader sees them."""
    failing = next(m for m in report["metrics"] if m["verdict"] == "fail")["metric_id"]
    assert visible(browser, "what-changed") and visible(browser, "changes-summary")
    heading = js(browser, "document.getElementById('what-changed').innerText")
    assert heading == f"What changed against {report['baseline']}"
    summary = {row[0]: row[1:] for row in table_rows(browser, "changes-summary")}
    assert {m["metric_id"] for m in report["metrics"]} <= set(summary)
    assert int(summary[failing][0]) >= 1  # the failing metric has regressed items
    table = f"changes-{failing}"
    assert visible(browser, table)
    rows = table_rows(browser, table)
    heads = [r[0] for r in rows if len(r) == 1]
    assert heads and heads[0].startswith("regressed ") and "input:" in heads[0]
    assert {r[0].split()[0] for r in rows if len(r) > 1} == {"baseline", "candidate"}
    taken = [shot(browser, shots, "report-what-changed.png", "what-changed")]
    # History: the suite's builds drawn per metric, the plot loaded and titled.
    assert visible(browser, "history") and visible(browser, "history-plot")
    plot = js(
        browser,
        "(() => { const i = document.getElementById('history-plot');"
        " return [i.naturalWidth, i.naturalHeight, i.alt]; })()",
    )
    assert plot[0] > 0 and plot[1] > 0 and "over the suite's builds" in plot[2]
    taken.append(shot(browser, shots, "report-history.png", "history"))
    # A run's trace link in the section opens that run's page in the report.
    opened = js(
        browser,
        f"(() => {{ const a = document.getElementById({json.dumps(table)})"
        ".querySelector('a.trace'); a.click(); return a.hash.slice(1); })()",
    )
    assert visible(browser, opened)
    return taken


def read_gate_partition(browser: Chromium, base: str, shots: Path) -> Path:
    browser.goto(
        f"{base}/assets/gate_decision/mini?view=partitions&partition=liar",
        wait_for_text="score_distributions_image",
    )
    opened = js(
        browser,
        "(() => { const row = [...document.querySelectorAll('tr')].find(r => r.cells[0] && "
        "r.cells[0].innerText.trim() === 'score_distributions_image'); const button = "
        "[...row.querySelectorAll('*')].find(e => e.children.length === 0 && "
        "e.textContent.trim() === '[Show Markdown]'); button.click(); return true; })()",
    )
    assert opened
    width = 0
    for _ in range(40):
        width = js(
            browser,
            "Math.max(0, ...[...document.images].filter(i => i.src.startsWith('data:image/png'))"
            ".map(i => i.naturalWidth))",
        )
        if width:
            break
        browser.call(
            "Runtime.evaluate", expression="new Promise(r => setTimeout(r, 250))", awaitPromise=True
        )
    assert width > 0  # the inline Markdown image renders in the Dagster UI
    return browser.screenshot(shots / "gate-partition-plots.png")


def test_the_report_and_the_gate_partition_page_read_in_chromium(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(tmp_path / "suites"))
    home = evaluate_judged_builds(tmp_path)
    report = load_gate_report(home, "liar")
    page = write_report(monkeypatch, "liar", tmp_path / "out")
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with Chromium() as browser:
        taken = read_report(browser, page, report, shots)
        with dagster_webserver(home) as base:
            taken.append(read_gate_partition(browser, base, shots))
    assert all(path.stat().st_size > 20_000 for path in taken)
    if os.environ.get("EVAL_PIPELINE_SAVE_SCREENSHOTS") == "1":
        target = REPO_ROOT / "docs" / "screenshots"
        target.mkdir(parents=True, exist_ok=True)
        for path in taken:
            shutil.copyfile(path, target / path.name)
