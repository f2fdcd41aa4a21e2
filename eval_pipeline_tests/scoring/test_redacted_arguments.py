"""Argument checks see through PII tokens: a redacted call equals its redacted expected value.

Contract: the redactor replaces personal data inside kept tool arguments by stable keyed
tokens, while datasets list the plain expected values. ``check_arguments`` (so
``argument_correctness``, ``tool_correctness`` and ``trajectory_match``) compares a value
holding tokens with the expected value tokenised the same way: the same address is accepted,
another address is still rejected, and the sample agent's redacted runs score what its
captured (unredacted) runs score.
"""

from typing import Any

import pytest

from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.runners.sink import MemorySink
from eval_pipeline.sample_agent.items import adversarial_items
from eval_pipeline.scoring.arguments import check_arguments
from eval_pipeline.scoring.scorers.argument_correctness import ArgumentCorrectness
from eval_pipeline.traces.model import Operation
from eval_pipeline.traces.redact.policy import KEY_ENV
from eval_pipeline.traces.redact.redactor import Redactor, load_policy
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline_tests.scoring.builders import make_span


def _redacted(arguments: dict[str, Any]) -> dict[str, Any]:
    span = make_span(
        Operation.EXECUTE_TOOL, tool_name="find_user_id_by_email", tool_arguments=arguments
    )
    redacted = Redactor(load_policy("keep-tools")).redact(span).tool_arguments
    assert isinstance(redacted, dict)
    return redacted


def test_a_tokenised_email_matches_the_plain_expected_address() -> None:
    actual = _redacted({"email": "Mia.Garcia2723@example.com"})
    assert str(actual["email"]).startswith("[EMAIL:")
    assert check_arguments(actual, {"email": ["mia.garcia2723@example.com"]}).valid
    check = check_arguments(actual, {"email": ["someone.else@example.com"]})
    assert not check.valid and "is not one of" in check.errors[0]


def test_the_comparison_follows_the_configured_token_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "another-key")
    actual = _redacted({"email": "mia@example.com"})
    assert actual != _plain_key_token("mia@example.com")
    assert check_arguments(actual, {"email": ["mia@example.com"]}).valid


def _plain_key_token(email: str) -> dict[str, Any]:
    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.delenv(KEY_ENV, raising=False)
    try:
        return _redacted({"email": email})
    finally:
        monkeypatch.undo()


def test_text_around_a_token_still_has_to_match() -> None:
    actual = _redacted({"note": "reach me at mia@example.com today"})
    assert check_arguments(actual, {"note": ["Reach me at mia@example.com today"]}).valid
    assert not check_arguments(actual, {"note": ["reach me at mia@example.com tomorrow"]}).valid


def test_redacted_sample_runs_score_as_their_captured_spans() -> None:
    items = adversarial_items()[:3]
    sink = MemorySink(policy=load_policy("keep-tools"))
    result = PythonEntryPointRunner(
        "eval_pipeline.sample_agent.app:run_item",
        params={"agent_build": "baseline"},
        sink=sink,
    ).run_items(items, build="tokens")
    captured = {run.eval_context.item_id: run for run in assemble_runs(result.spans)}
    stored = {run.eval_context.item_id: run for run in assemble_runs(sink.spans("tokens"))}
    scorer = ArgumentCorrectness()
    for item in items:
        email_call = next(c for c in stored[item.item_id].tool_calls if "email" in c.name)
        assert str(email_call.arguments["email"]).startswith("[EMAIL:")
        plain = scorer.score(captured[item.item_id], item)
        redacted = scorer.score(stored[item.item_id], item)
        assert (redacted.status, redacted.value) == (plain.status, plain.value) == ("scored", 1.0)
