"""Redaction contract.

Redaction contract: tool arguments/results are dropped unless the tool is opted in (from
the tool span and from messages), personal data is replaced by stable keyed tokens (checked
card numbers and IBANs only), the span records what was redacted, and a bad policy fails at
load naming the field.
"""

import pytest

from eval_pipeline.traces.model import Message, Operation
from eval_pipeline.traces.redact.catalogue import CATALOGUE
from eval_pipeline.traces.redact.pii import Tokeniser
from eval_pipeline.traces.redact.redactor import (
    DROPPED,
    REPLACED,
    PolicyError,
    RedactionPolicy,
    Redactor,
    load_policy,
)
from eval_pipeline.traces.redact.validators import iban_ok, luhn_ok
from eval_pipeline_tests.traces.builders import assistant, make_span, tool_call


def _tool_span(**fields):
    return make_span(
        "3",
        "1",
        operation=Operation.EXECUTE_TOOL,
        tool_name="get_user",
        tool_arguments={"email": "Jane.Roe@Example.org", "id": 7},
        tool_result={"card": "4111 1111 1111 1111", "note": "ok"},
        **fields,
    )


def _policy(**tools):
    return RedactionPolicy.from_mapping({"version": 1, "tools": tools}, "test-policy")


def test_default_policy_drops_tool_arguments_and_results_and_says_so():
    span = Redactor(load_policy()).redact(_tool_span())
    assert span.tool_arguments is None and span.tool_result is None
    assert span.attributes[DROPPED] == ["tool_arguments", "tool_result"]
    untouched = make_span("4", operation=Operation.EXECUTE_TOOL, tool_name="get_user")
    assert DROPPED not in Redactor(load_policy()).redact(untouched).attributes  # never sent


def test_opted_in_tool_keeps_arguments_with_stable_pii_tokens():
    redactor = Redactor(_policy(keep_arguments=["get_*"], keep_results=["get_user"]))
    first = redactor.redact(_tool_span())
    again = Redactor(_policy(keep=["*"])).redact(_tool_span())
    email_token = first.tool_arguments["email"]
    assert email_token.startswith("[EMAIL:") and "Jane" not in email_token
    assert again.tool_arguments["email"] == email_token  # same value, same key -> same token
    assert first.tool_arguments["id"] == 7
    assert first.tool_result["card"].startswith("[CARD:")
    assert first.attributes[REPLACED] == {
        "tool_arguments.email:EMAIL": 1,
        "tool_result.card:CARD": 1,
    }


def test_token_key_changes_tokens(monkeypatch):
    monkeypatch.setenv("MY_KEY", "secret-1")
    data = {"version": 1, "tools": {"keep": ["*"]}, "pii": {"token_key_env": "MY_KEY"}}
    keyed = Redactor(RedactionPolicy.from_mapping(data, "p")).redact(_tool_span())
    default = Redactor(_policy(keep=["*"])).redact(_tool_span())
    assert keyed.tool_arguments["email"] != default.tool_arguments["email"]


def test_message_tool_calls_follow_the_tool_policy():
    span = make_span(
        "2",
        operation=Operation.CHAT,
        output_messages=(
            assistant(
                tool_call("c1", "get_user", {"email": "a@b.co"}),
                tool_call("c2", "search", {"q": "shoes"}),
            ),
        ),
        input_messages=(
            Message(
                role="tool",
                parts=({"type": "tool_call_response", "id": "c9", "response": "secret"},),
            ),
        ),
    )
    out = Redactor(_policy(keep_arguments=["search"])).redact(span)
    calls = out.output_messages[0].tool_calls
    assert "arguments" not in calls[0] and calls[1]["arguments"] == {"q": "shoes"}
    assert "response" not in out.input_messages[0].parts[0]
    assert "output_messages.tool_call.arguments" in out.attributes[DROPPED]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("call me on +44 20 7946 0958", "PHONE"),
        ("or (555) 123-4567", "PHONE"),
        ("IBAN GB82 WEST 1234 5698 7654 32", "IBAN"),
        ("ssn 123-45-6789", "SSN"),
        ("pay with 5500 0000 0000 0004", "CARD"),
    ],
)
def test_detectors_find_personal_data(text, kind):
    span = make_span("5", attributes={"note": text})
    out = Redactor(load_policy()).redact(span)
    assert f"[{kind}:" in out.attributes["note"]


@pytest.mark.parametrize(
    "text",
    [
        "card 4111 1111 1111 1112",  # fails Luhn
        "IBAN GB82 WEST 1234 5698 7654 33",  # fails mod-97
        "order #W2378156 on 2024-05-15 15:00:00, trace 1796031787080259635",
        "user_id noah_muller_9847, flight HAT136, gift_card_1712795",
    ],
)
def test_lookalikes_are_left_alone(text):
    span = make_span("6", attributes={"note": text})
    assert Redactor(load_policy()).redact(span).attributes["note"] == text


def test_checksums():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")
    assert iban_ok("DE89370400440532013000") and not iban_ok("DE89370400440532013001")


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"version": 1, "tools": {"keep_argumnts": []}}, "test-policy.tools.keep_argumnts"),
        ({"version": 1, "pii": {"detectors": ["email", "dna"]}}, "test-policy.pii.detectors[1]"),
        ({"version": 1, "tools": {"keep": "all"}}, "test-policy.tools.keep"),
        ({"version": 2}, "test-policy.version"),
    ],
)
def test_bad_policy_fails_fast_naming_the_field(data, field):
    with pytest.raises(PolicyError, match=field.replace("[", r"\[").replace("]", r"\]")):
        RedactionPolicy.from_mapping(data, "test-policy")


def test_policy_files_load_and_a_missing_one_is_named(tmp_path):
    assert load_policy("keep-tools").keeps_arguments("anything")
    assert not load_policy().keeps_arguments("anything")
    bad = tmp_path / "p.yaml"
    bad.write_text("version: 1\ntools: [1, 2]\n")
    with pytest.raises(PolicyError, match=r"p\.yaml\.tools: must be a mapping"):
        load_policy(bad)
    with pytest.raises(PolicyError, match="cannot read"):
        load_policy(tmp_path / "missing.yaml")


def test_tokens_are_the_keyed_hmac_of_kind_and_value():
    # Token format version 2 (96 bits); it changes only with a version change, on purpose:
    # stored data is compared across builds.
    import hashlib
    import hmac

    tokeniser = Tokeniser(CATALOGUE, b"k" * 32)
    expected = hmac.new(b"k" * 32, b"EMAIL:ann@example.com", hashlib.sha256).hexdigest()[:24]
    assert tokeniser.token("EMAIL", "ann@example.com") == f"[EMAIL:{expected}]"
    text, kinds = tokeniser.redact("write to Ann@Example.com or ann@example.com")
    assert text == f"write to [EMAIL:{expected}] or [EMAIL:{expected}]"
    assert kinds == ("EMAIL", "EMAIL")


def test_scanning_hostile_runs_never_reaches_the_exact_patterns():
    # 100 KB of "%" took 28.6 s before (quadratic backtracking). Now the linear gate
    # (``redact.gate``, RE2) finds no candidate in such runs, so the patterns never run.
    from eval_pipeline.traces.redact.gate import Gate

    for text in ("%" * 100_000, "a." * 50_000 + "@x", "1" * 100_000, "a@" * 50_000):
        assert Gate(CATALOGUE).hot_spans(text) == {}, text[:10]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("call 415 555 2671", "PHONE"),
        ("uk 07700 900123", "PHONE"),
        ("card 4111.1111.1111.1111", "CARD"),
        ("iban gb82west12345698765432", "IBAN"),
        ("mail ada%40example.com", "EMAIL"),
        ("mail ada\\u0040example.com", "EMAIL"),
    ],
)
def test_formats_that_leaked_are_tokenised(text, kind):
    redacted, kinds = Tokeniser(CATALOGUE, b"k").redact(text)
    assert kinds == (kind,)
    assert not any(ch.isdigit() for ch in redacted.split("[")[0]) and "@" not in redacted


def test_the_key_is_a_per_home_secret_unless_the_environment_names_one(monkeypatch, tmp_path):
    import stat

    from eval_pipeline.traces.redact.keys import home_key_path
    from eval_pipeline.traces.redact.policy import KEY_ENV
    from eval_pipeline.traces.redact.tokens import tokenised

    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(tmp_path / "one"))
    first = tokenised("ada@example.com")
    path = home_key_path()
    from eval_pipeline.home import current_home

    assert path == current_home().root / "secrets" / "redaction.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(path.read_bytes()) == 64
    assert "store" not in path.relative_to(tmp_path).parts
    assert tokenised("ada@example.com") == first  # stable within a home
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(tmp_path / "two"))
    assert tokenised("ada@example.com") != first  # another home, another secret
    monkeypatch.setenv(KEY_ENV, "shared")
    shared = tokenised("ada@example.com")
    monkeypatch.setenv("EVAL_PIPELINE_HOME", str(tmp_path / "one"))
    assert tokenised("ada@example.com") == shared
    assert len(shared) == len("[EMAIL:]") + 24  # 96 bits
