"""JSON nested deeper than Python can parse is bad input: exit 2 naming the file, never 3.

Before the fix, a 100,000-deep JSON score file given to ``gate --candidate-scores`` (and any
file given to ``import --from langfuse|nat|openai-evals`` or ``datasets import``) raised
``RecursionError`` out of ``json.loads``: an internal error (exit 3). Every reader of a file
someone hands in parses through ``json_input.loads``, which says the nesting is too deep as a
``JSONDecodeError``, so each reader's own bad-JSON error names the file. ``ingest --format
otlp`` and the receiver's JSON bodies (400, never 500) are checked here too.
"""

from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from eval_pipeline.cli import cli
from eval_pipeline.home import current_home
from eval_pipeline.importers.backends.otel_events import EvaluationEventHandler
from eval_pipeline.realtime.receiver.http_receiver import make_app

DEPTH = 100_000
DEEP_ARRAY = "[" * DEPTH + "]" * DEPTH
DEEP_OBJECT = '{"a":' * DEPTH + "1" + "}" * DEPTH

COMMANDS = {
    "gate scores": (
        "scores.json",
        [
            "gate",
            "--suite",
            "support-agent",
            "--candidate-scores",
            "{file}",
            "--baseline-scores",
            "{file}",
        ],
    ),
    "import langfuse": ("export.json", ["import", "--from", "langfuse", "{file}"]),
    "import langfuse lines": ("export.jsonl", ["import", "--from", "langfuse", "{file}"]),
    "import nat": ("spans.json", ["import", "--from", "nat", "{file}"]),
    "import openai-evals": (
        "items.jsonl",
        ["import", "--from", "openai-evals", "{file}", "--name", "n", "--version", "v"],
    ),
    "datasets import jsonl": (
        "items.jsonl",
        ["datasets", "import", "n", "{file}", "--version", "v"],
    ),
    "datasets import tau2": (
        "tau2.json",
        ["datasets", "import", "--format", "tau2", "{file}", "--name", "n", "--version", "v"],
    ),
    "datasets import bfcl": (
        "bfcl.jsonl",
        ["datasets", "import", "--format", "bfcl", "{file}", "--name", "n", "--version", "v"],
    ),
    "ingest otlp": ("request.json", ["ingest", "--format", "otlp", "{file}"]),
    "ingest tau2": ("tau2.json", ["ingest", "--format", "tau2", "{file}"]),
}


@pytest.mark.parametrize("document", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
@pytest.mark.parametrize("case", sorted(COMMANDS))
def test_a_deep_json_file_exits_2_naming_it(case: str, document: str, tmp_path: Path) -> None:
    name, args = COMMANDS[case]
    path = tmp_path / name
    path.write_text(document)
    result = CliRunner().invoke(cli, [a.replace("{file}", str(path)) for a in args])
    assert result.exit_code == 2, (case, result.output, result.exception)
    assert name in result.output, result.output
    assert "internal error" not in result.output


def test_deep_json_bodies_are_a_400_on_every_receiver_route() -> None:
    store = current_home().ensure().store
    app = make_app(store, on_logs=EvaluationEventHandler(store))
    with TestClient(app) as client:
        for route in ("/v1/traces", "/v1/logs", "/v1/feedback"):
            for body in (DEEP_ARRAY, '{"resourceSpans":' + DEEP_ARRAY + "}"):
                reply = client.post(
                    route, content=body.encode(), headers={"content-type": "application/json"}
                )
                assert reply.status_code == 400, (route, reply.content[:200])
