"""The report's "What changed" section, on real builds (``report/changes_section.py``).

Contract (issue 32): where the build has a baseline with scores, the report lists per metric
the items that regressed and improved, largest effect first, never an unchanged item (the old
evidence list showed those with delta +0.0000), each with its input, its reference and every
run of both builds (score, reason, stored answer and tool calls), each run's trace linking to
its page in the report, baseline traces included; unchanged and unpaired items are counted.
The history section draws each metric over the suite's builds and lists the flaky items.
"""

import re

import pytest

from eval_pipeline.defs.gate_assets import stage_report_inputs
from eval_pipeline.evaluation.stage import load_stage
from eval_pipeline.home import current_home
from eval_pipeline.report.html import render_html
from eval_pipeline_tests.cli.test_report import Page
from eval_pipeline_tests.compare.story_home import StoryHome, build_story_home


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> StoryHome:
    return build_story_home(tmp_path_factory.mktemp("story-report"), items=3)


def test_what_changed_lists_moved_items_with_both_builds_runs_linked(
    story: StoryHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(story.root))
    inputs = stage_report_inputs(load_stage(current_home(), story.defect))
    comparison = inputs.comparison
    assert comparison is not None and comparison.baseline == story.baseline
    html = render_html(inputs)
    page = Page()
    page.feed(html)

    assert "evidence" not in page.tables  # replaced
    summary = {row[0]: row[1:] for row in page.tables["changes-summary"][1:]}
    actions = next(m for m in comparison.metrics if m.metric_id == "hallucinated_actions")
    assert summary["hallucinated_actions"] == [str(actions.count(d)) for d in actions.totals]
    assert actions.count("regressed") >= 1
    rows = page.tables["changes-hallucinated_actions"][1:]
    heads = [r[0] for r in rows if len(r) == 1]
    assert heads and all(h.split()[0] in {"regressed", "improved"} for h in heads)
    assert not any("(+0.0000" in h for h in heads)  # no unchanged item listed
    worst = actions.groups["regressed"][0]
    assert heads[0].startswith(f"regressed {worst.item_id}") and "input:" in heads[0]
    run_rows = [r for r in rows if len(r) == 7]
    sides = {r[0].split()[0] for r in run_rows}
    assert sides == {"baseline", "candidate"}
    assert all(r[4] != "(trace not in this home)" for r in run_rows)  # answers shown

    linked = set(re.findall(r'<a class="trace" href="#trace-([0-9a-f]+)"', html))
    expected = {t for _, t in comparison.traces()}
    assert linked == expected and {f"trace-{t}" for t in linked} <= page.ids
    baseline_trace = next(t for b, t in comparison.traces() if b == story.baseline)
    section = html.split(f'id="trace-{baseline_trace}"')[1].split("</section>")[0]
    assert f"build <code>{story.baseline}</code>" in section and "Span tree" in section
    assert 'href="#what-changed"' in section

    # History: the trend plot over the suite's builds, pinned baseline first.
    assert page.images["history-plot"].startswith("data:image/png;base64,")
    points = inputs.history["hallucinated_actions"]
    assert [p.build for p in points] == [story.baseline, story.defect] and points[0].pinned
