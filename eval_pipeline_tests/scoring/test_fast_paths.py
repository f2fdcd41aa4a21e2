"""The scoring hot path's short cuts give exactly what the general code they skip gives.

Each short cut is checked against the general path on generated inputs: the alignment by tool
name against the augmenting search, a string's comparison against the typed comparison, the
claim finder's word tests against the patterns they skip, the canary search's one text against
each call's; a run's argument checks are made once for all the scorers that align it. The
whole suite, scored as a build (one pass, the scorers of a run sharing its alignments), gives
row for row what each scorer gives alone on a fresh copy of the run, on the benchmark's runs.
"""

import copy
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.score import _cases
from eval_pipeline.datasets.item import ExpectedToolCall
from eval_pipeline.scoring import alignment
from eval_pipeline.scoring.action_claims import DEFAULT_ACTION_VERBS, _compiled
from eval_pipeline.scoring.alignment import aligned as _align
from eval_pipeline.scoring.alignment import aligned_by_name as _align_by_name
from eval_pipeline.scoring.argument_values import _string_error, _typed_value_error
from eval_pipeline.scoring.arguments import check_arguments
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.claim_frames import (
    _COMPLETION_WORDS,
    _GENERIC_VERB_WORDS,
    _VERB_NOUN,
    _may_hold,
)
from eval_pipeline.scoring.registry import build_scorer, score_run, select_metric_ids
from eval_pipeline.scoring.scorers.injection_resistance import (
    _argument_text,
    _together,
)
from eval_pipeline.traces.redact.tokens import tokenised
from eval_pipeline_tests.scoring.builders import call

_NAMES = st.sampled_from(["get_order", "cancel_order", "refund", "transfer_to_human"])


@settings(max_examples=300, deadline=None)
@given(
    called=st.lists(_NAMES, max_size=8),
    expected=st.lists(st.tuples(_NAMES, st.booleans()), max_size=8),
)
def test_the_alignment_by_name_is_the_augmenting_search(
    called: list[str], expected: list[tuple[str, bool]]
) -> None:
    calls = tuple(call(name) for name in called)
    steps = tuple(ExpectedToolCall(name, optional=optional) for name, optional in expected)
    assert _align_by_name(calls, steps, 2) == _align(calls, steps, {}, 2)


_TOKEN = "<the address, redacted>"
_WORDS = st.sampled_from(
    ["Paris", "paris", "PA-RIS", "new york", "NewYork", "", " ", "#W1", "mia@example.com", _TOKEN]
)
_STRINGS = st.one_of(_WORDS, st.text(max_size=6))


@settings(max_examples=400, deadline=None)
@given(
    value=_STRINGS,
    candidates=st.lists(
        st.one_of(_STRINGS, st.integers(), st.booleans(), st.none()), min_size=1, max_size=4
    ).filter(lambda c: isinstance(c[0], str)),
    stated=st.sampled_from([None, "string", "any"]),
    explain=st.booleans(),
)
def test_a_string_is_compared_as_the_typed_path_compares_it(
    value: str, candidates: list[object], stated: str | None, explain: bool
) -> None:
    token = tokenised("mia@example.com")
    value = token if value == _TOKEN else value
    candidates = [token if c == _TOKEN else c for c in candidates]
    schema = None if stated is None else {"type": stated}
    typed = _typed_value_error(value, candidates, candidates, stated, schema, explain)
    assert _string_error(value, candidates, explain) == typed


def test_verdict_only_checks_agree_with_explained_checks_on_the_benchmark_calls() -> None:
    pairs = [
        (c, step)
        for run, item in _cases(240)
        for step in item.expected_tool_calls
        for c in run.tool_calls
        if c.name == step.name
    ]
    assert len(pairs) > 500
    verdicts = [check_arguments(c.arguments, s.arguments, explain=False).valid for c, s in pairs]
    assert verdicts == [check_arguments(c.arguments, s.arguments).valid for c, s in pairs]
    assert 0 < sum(verdicts) < len(verdicts)


def test_a_build_scored_at_once_gives_each_scorers_rows_alone() -> None:
    cases = _cases(120)  # one run of each benchmark item
    scorers = [build_scorer(metric) for metric in select_metric_ids(needs_judge=False)]
    runs = [run for run, _ in cases]
    items = [item for _, item in cases]
    built = score_build("b1", runs, items, scorers, runs_per_item=3)
    scored = [row for row in built.scores if row.trace_id is not None]
    alone = [
        replace(row, run_index=run.eval_context.run_index)
        for run, item in cases
        for scorer in scorers
        # A fresh copy of the run: nothing one scorer computed for it is shared.
        for row in score_run(copy.deepcopy(run), item, [scorer], build="b1")
    ]
    by_key = {(r.item_id, r.run_index, r.metric_id): r for r in alone}
    assert len(scored) == len(alone) == len(by_key) == 120 * len(scorers)
    assert {(r.item_id, r.run_index, r.metric_id): r for r in scored} == by_key
    assert {r.status for r in scored} >= {"scored", "not_applicable"}


_CLAIM_WORDS = st.sampled_from(
    [
        "I",
        "we've",
        "have",
        "has",
        "been",
        "your",
        "refund",
        "order",
        "of",
        "$20",
        "now",
        "just",
        "successfully",
        "Issued",
        "PROCESSED",
        "put_through",
        "made",
        "done",
        "ſ",
        ",",
        ".",
    ]
)
_CLAIM_TEXTS = st.lists(st.one_of(_CLAIM_WORDS, st.text(max_size=4)), max_size=8).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(text=_CLAIM_TEXTS)
def test_the_claim_patterns_are_skipped_only_where_they_cannot_match(text: str) -> None:
    text = text.replace("_", " ")
    frames = _compiled(DEFAULT_ACTION_VERBS)[2]
    assert frames is not None and frames.generic is not None
    if _VERB_NOUN.search(text):
        assert _may_hold(text, _GENERIC_VERB_WORDS)
    for start in range(len(text) + 1):
        match = frames.generic.match(text, start)
        if match is not None and match.group("g1"):
            assert _may_hold(text[start:], _COMPLETION_WORDS)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(arguments=st.lists(st.dictionaries(st.text(max_size=5), _JSON, max_size=3), max_size=4))
def test_the_text_of_all_calls_holds_each_calls_text(arguments: list[dict[str, object]]) -> None:
    calls = [call("tool", a) for a in arguments]
    together = _together(calls)
    if together is not None:
        assert all(_argument_text(c.arguments) in together for c in calls)


def test_a_runs_argument_checks_are_made_once_across_the_scorers_aligning_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[tuple[int, int]] = []
    check = alignment.check_arguments

    def counted(actual: Any, expected: Any, schema: Any = None, *, explain: bool = True) -> Any:
        asked.append((id(actual), id(expected)))
        return check(actual, expected, schema, explain=explain)

    monkeypatch.setattr(alignment, "check_arguments", counted)
    metrics = ("argument_correctness", "tool_call_f1", "trajectory_match")
    scorers = [build_scorer(metric) for metric in metrics]
    cases = _cases(60)
    for run, item in cases:
        score_run(run, item, scorers)
    assert len(asked) > 100
    assert len(asked) == len(set(asked))
