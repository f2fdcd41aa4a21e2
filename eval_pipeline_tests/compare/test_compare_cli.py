"""``eval-pipeline compare``: formats, the default baseline, filters and bad input.

Contract: ``--candidate B`` alone compares with B's baseline as its gate takes it (the suite's
pinned one), and ``--suite S`` names that suite for a candidate that is not registered (as
``gate --suite`` does); ``--format json`` is one document with every shown item's runs of both
builds, ``markdown`` opens with the summary table for a CI comment, ``text`` one block per item;
``--trace-url`` turns trace ids into links. An unknown metric or slice, a malformed slice, an
unregistered candidate without ``--baseline`` or a build without scores is bad input: exit 2
with one ``error:`` line naming what is at fault.
"""

import json

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline_tests.compare.story_home import StoryHome, build_story_home


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> StoryHome:
    return build_story_home(tmp_path_factory.mktemp("story-cli"), items=3)


@pytest.fixture
def at_story(story: StoryHome, monkeypatch: pytest.MonkeyPatch) -> StoryHome:
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(story.root))
    return story


def _run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, ["compare", *args])
    assert result.exit_code == code, result.output + result.stderr
    return result.stdout if code == 0 else result.stderr


def test_json_markdown_and_text_show_the_same_items_against_the_pinned_baseline(
    at_story: StoryHome,
) -> None:
    document = json.loads(_run("--candidate", at_story.defect, "--format", "json"))
    assert document["baseline"] == at_story.baseline  # the suite's pin, not named
    actions = next(m for m in document["metrics"] if m["metric_id"] == "hallucinated_actions")
    assert actions["counts"]["regressed"] >= 1
    item = actions["items"][0]
    assert item["direction"] == "regressed" and item["delta"] < 0
    assert item["reference"]["answer"] and item["input"]
    run = item["candidate_runs"][0]
    assert run["trace_id"] and run["detail"]["answer"] is not None
    assert {"name", "arguments"} <= set(run["detail"]["tool_calls"][0])

    markdown = _run("--candidate", at_story.defect, "--format", "markdown")
    assert markdown.startswith(
        f"## What changed: `{at_story.defect}` against `{at_story.baseline}`"
    )
    assert "| `hallucinated_actions` |" in markdown and item["item_id"] in markdown
    text = _run("--candidate", at_story.defect, "--metric", "hallucinated_actions")
    assert f"hallucinated_actions REGRESSED {item['item_id']}" in text
    assert "answer:" in text and "calls:" in text

    linked = json.loads(_run("--candidate", at_story.defect, "--format", "json",
                             "--trace-url", "http://jaeger:16686/trace/{trace_id}"))  # fmt: skip
    first = linked["metrics"][0]["items"][0]["candidate_runs"][0]
    assert first["trace_url"] == f"http://jaeger:16686/trace/{first['trace_id']}"


def test_filters_keep_only_what_was_asked(at_story: StoryHome) -> None:
    document = json.loads(
        _run("--candidate", at_story.defect, "--baseline", at_story.baseline, "--format", "json",
             "--metric", "hallucinated_actions", "--direction", "improved")
    )  # fmt: skip
    assert [m["metric_id"] for m in document["metrics"]] == ["hallucinated_actions"]
    assert all(i["direction"] == "improved" for m in document["metrics"] for i in m["items"])


def test_bad_input_exits_2_naming_what_is_wrong(at_story: StoryHome) -> None:
    err = _run("--candidate", at_story.defect, "--metric", "nope", code=2)
    assert err.startswith("error: --metric nope:") and "hallucinated_actions" in err
    err = _run("--candidate", at_story.defect, "--slice", "intent", code=2)
    assert err.startswith("error: --slice 'intent': expected NAME=VALUE")
    err = _run("--candidate", at_story.defect, "--slice", "colour=red", code=2)
    assert "no slice 'colour'" in err
    err = _run("--candidate", "never-registered", code=2)
    assert err.startswith("error: --baseline: not given, and build 'never-registered'")
    err = _run("--candidate", "never-scored", "--baseline", at_story.baseline, code=2)
    assert err.startswith("error: build never-scored has no stored scores")


def test_an_unregistered_candidate_takes_the_pinned_baseline_of_the_suite_named(
    at_story: StoryHome,
) -> None:
    suite = str(at_story.suite)
    document = json.loads(
        _run("--candidate", at_story.defect, "--suite", suite, "--format", "json")
    )
    assert document["baseline"] == at_story.baseline
    # Not registered: the suite named resolves the baseline, so what is missing is its scores.
    err = _run("--candidate", "never-registered", "--suite", suite, code=2)
    assert err.startswith("error: build never-registered has no stored scores"), err
