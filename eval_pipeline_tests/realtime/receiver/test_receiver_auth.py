"""Who may send, and which builds a sender may write.

Contract: a receiver bound off loopback refuses to start without a token; with tokens, a
request without one (or with a wrong one) is 401 over HTTP and ``UNAUTHENTICATED`` over gRPC;
a production token's spans are stored under ``production`` even when their root names a
registered build (the response says the build id was not honoured); an evaluation token
writes the build its eval context names, but never a pinned baseline.
"""

from pathlib import Path

import grpc
import httpx
import pytest

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import current_home
from eval_pipeline.realtime.receiver.auth import Authenticator, Scope, TokenError, load_tokens
from eval_pipeline.realtime.receiver.grpc_receiver import TRACE_SERVICE
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore
from eval_pipeline_tests.realtime.receiver.receivers import running_receiver, traces_request, url

PRODUCTION_TOKEN = "prod-" + "p" * 20
EVALUATION_TOKEN = "eval-" + "e" * 20
TOKENS = {PRODUCTION_TOKEN: Scope.PRODUCTION, EVALUATION_TOKEN: Scope.EVALUATION}


def _post(receiver_url: str, body: bytes, token: str | None) -> httpx.Response:
    headers = {"content-type": "application/x-protobuf"}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    return httpx.post(receiver_url, content=body, headers=headers, timeout=10)


def _builds() -> dict[str, int]:
    store = TraceStore(current_home().store)
    return {build: len(store.read_spans(build)) for build in store.builds()}


def test_off_loopback_needs_a_token_and_requests_without_one_are_401() -> None:
    with pytest.raises(TokenError, match="needs a token"):
        Authenticator({}, host="0.0.0.0")
    with running_receiver(tokens=TOKENS, host="0.0.0.0", grpc=True) as receiver:
        missing = _post(url(receiver), traces_request(0, 1), None)
        assert missing.status_code == 401 and missing.headers["www-authenticate"]
        assert _post(url(receiver), traces_request(0, 1), "prod-" + "x" * 20).status_code == 401
        assert _post(url(receiver), traces_request(0, 1), PRODUCTION_TOKEN).status_code == 200
        with grpc.insecure_channel(f"127.0.0.1:{receiver.grpc_port}") as channel:
            export = channel.unary_unary(f"/{TRACE_SERVICE}/Export")
            with pytest.raises(grpc.RpcError) as refused:
                export(traces_request(1, 1), timeout=10)
            assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED
            export(
                traces_request(1, 1),
                timeout=10,
                metadata=(("authorization", f"Bearer {EVALUATION_TOKEN}"),),
            )
    assert _builds() == {PRODUCTION: 4}


def test_a_production_token_cannot_write_a_registered_build_nor_anyone_a_baseline() -> None:
    registry = BuildRegistry(current_home().ensure().state_url)
    registry.register("candidate", suite="support")
    registry.register("baseline", suite="support")
    registry.pin_baseline("support", "baseline")
    with running_receiver(tokens=TOKENS) as receiver:
        claimed = _post(url(receiver), traces_request(0, 1, build="candidate"), PRODUCTION_TOKEN)
        assert claimed.status_code == 200
        assert "not honoured" in claimed.content.decode(errors="replace")
        pinned = _post(url(receiver), traces_request(1, 1, build="baseline"), EVALUATION_TOKEN)
        assert pinned.status_code == 200
        allowed = _post(url(receiver), traces_request(2, 1, build="candidate"), EVALUATION_TOKEN)
        assert allowed.status_code == 200
    assert _builds() == {PRODUCTION: 4, "candidate": 2}


def test_tokens_come_from_a_file_and_the_environment(tmp_path: Path) -> None:
    file = tmp_path / "tokens"
    file.write_text(f"# receiver tokens\n{EVALUATION_TOKEN} evaluation\n\n{PRODUCTION_TOKEN}\n")
    environment = {"EVAL_PIPELINE_RECEIVER_TOKEN": "env-" + "v" * 20}
    assert load_tokens(file, environment) == TOKENS | {"env-" + "v" * 20: Scope.PRODUCTION}
    file.write_text(f"{EVALUATION_TOKEN} admin\n")
    with pytest.raises(TokenError, match=r"tokens:1: expected"):
        load_tokens(file, {})
    file.write_text("short\n")
    with pytest.raises(TokenError, match="16 characters"):
        load_tokens(file, {})


def test_a_short_token_in_the_environment_is_refused_naming_the_variable() -> None:
    with pytest.raises(TokenError, match=r"\$EVAL_PIPELINE_RECEIVER_TOKEN: .*16 characters"):
        load_tokens(None, {"EVAL_PIPELINE_RECEIVER_TOKEN": "x"})
