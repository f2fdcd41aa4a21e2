"""Library metrics reach the project's OpenAI-compatible judge endpoint.

A judge-needing DeepEval adapter, given the project's cached HTTP judge, builds a DeepEval LLM
over the same endpoint and model, and scores through real HTTP requests to a small
OpenAI-compatible server on loopback that answers every structured request with schema-valid
JSON; the score carries the judge's fingerprint and backend. A RAGAS adapter builds its
instructor LLM over the same endpoint. The offline (non-generative) judge gives ``unscored``.
"""

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.http_judge import HttpJudge
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.scoring.adapters.llm_bridge import endpoint_of
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.builders import call, make_item, make_run

RUN = make_run(
    [call("get_order", {"id": "W1"}, result={"status": "shipped"})],
    answer="Order W1 has shipped.",
    user_input="Where is W1?",
)
ITEM = make_item("e", input_messages=({"role": "user", "content": "Where is W1?"},))


def _fill(schema: dict[str, Any], defs: dict[str, Any]) -> Any:
    if "$ref" in schema:
        return _fill(defs[schema["$ref"].split("/")[-1]], defs)
    if "enum" in schema:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if s.get("type") != "null"]
            return _fill(options[0], defs)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {k: _fill(v, defs) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [_fill(schema.get("items", {}), defs)]
    if kind == "integer":
        return 1
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return True
    return "yes"


class _Handler(BaseHTTPRequestHandler):
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema")
        content = json.dumps(_fill(schema, schema.get("$defs", {}))) if schema else "yes"
        reply = {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content},
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def endpoint() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Handler.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _http_judge(base_url: str, tmp_path: Any) -> CachedJudge:
    inner = HttpJudge("judge-model-1", base_url=base_url, api_key="k")
    return CachedJudge(inner, f"sqlite:///{tmp_path / 'cache.db'}")


def test_endpoint_is_found_through_the_cache(tmp_path: Any) -> None:
    judge = _http_judge("http://127.0.0.1:9/v1", tmp_path)
    assert endpoint_of(judge) == ("http://127.0.0.1:9/v1", "judge-model-1", "k")
    assert endpoint_of(OfflineJudge()) is None


def test_deepeval_metric_scores_over_the_http_endpoint(endpoint: str, tmp_path: Any) -> None:
    judge = _http_judge(endpoint, tmp_path)
    score = build_scorer("deepeval.faithfulness", judge=judge).score(RUN, ITEM)
    assert score.status == "scored", score.reason
    assert score.judge_fingerprint == judge.fingerprint.digest
    assert score.judge_backend == judge.backend
    assert _Handler.requests and all(r["model"] == "judge-model-1" for r in _Handler.requests)


def test_ragas_llm_is_built_over_the_endpoint(tmp_path: Any) -> None:
    scorer = build_scorer(
        "ragas.faithfulness", judge=_http_judge("http://127.0.0.1:9/v1", tmp_path)
    )
    llm = scorer.resolve_llm()  # type: ignore[attr-defined]
    assert not isinstance(llm, str)
    assert llm.model == "judge-model-1"


def test_offline_judge_leaves_library_judge_metrics_unscored() -> None:
    score = build_scorer("deepeval.task_completion", judge=OfflineJudge()).score(RUN, ITEM)
    assert score.status == "unscored" and "offline" in score.reason
