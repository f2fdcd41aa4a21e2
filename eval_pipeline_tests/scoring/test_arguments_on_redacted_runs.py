"""Argument correctness on runs whose tool arguments the redaction policy dropped or tokenised.

Contract: under the default policy the trace store holds no tool arguments (``DROPPED`` names
them on the span), so ``argument_correctness`` cannot score them: ``unscored``, naming the
policy, never 0 and never "missing required parameter". Under ``keep-tools`` the arguments
are kept with personal data tokenised by the home's key; the dataset's plain expected values
are tokenised with the same key before comparing, so the BFCL runs score as unredacted.
"""

import json
from collections import Counter
from pathlib import Path

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.importers.benchmarks.bfcl import import_bfcl
from eval_pipeline.importers.benchmarks.bfcl_results import ingest_bfcl_results, parse_output
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.traces.redact.redactor import load_policy
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.scoring.builders import call, make_run

DATA = Path(__file__).resolve().parents[2] / "data/bfcl_questions"
QUESTIONS = DATA / "BFCL_v4_simple_python.jsonl.gz"
ANSWERS = DATA / "BFCL_v4_simple_python_possible_answer.jsonl.gz"
RESULTS = DATA / "synthetic_results/BFCL_v4_simple_python_result.json"


def _scores(tmp_path: Path, policy: str) -> dict[str, tuple[str, float | None, str]]:
    store = TraceStore(tmp_path / policy)
    report = ingest_bfcl_results(
        [RESULTS],
        questions=QUESTIONS,
        answers=ANSWERS,
        build="b",
        store=store,
        policy=load_policy(policy),
    )
    assert report.ok, report.errors
    items = {item.item_id: item for item in import_bfcl([QUESTIONS, ANSWERS]).items}
    scorer = build_scorer("argument_correctness")
    out = {}
    for run in store.runs("b"):
        row = scorer.score(run, items[run.eval_context.item_id or ""])
        out[run.eval_context.item_id or ""] = (row.status, row.value, row.reason)
    assert len(out) == 400
    return out


def test_dropped_arguments_are_unscored_naming_the_policy(tmp_path: Path) -> None:
    scores = _scores(tmp_path, "default")
    statuses = Counter(status for status, _, _ in scores.values())
    assert statuses["scored"] == 0, [s for s in scores.items() if s[1][0] == "scored"][:3]
    for item_id, (status, value, reason) in scores.items():
        assert value is None
        assert "missing required parameter" not in reason
        if status == "unscored" and item_id not in ("simple_python_7", "simple_python_19"):
            assert "redaction policy 'default'" in reason, (item_id, reason)


def test_kept_arguments_score_as_their_plain_calls(tmp_path: Path) -> None:
    stored = _scores(tmp_path, "keep-tools")
    items = {item.item_id: item for item in import_bfcl([QUESTIONS, ANSWERS]).items}
    scorer = build_scorer("argument_correctness")
    for line in RESULTS.read_text().splitlines():
        row = json.loads(line)
        calls = [call(name, args) for name, args in parse_output(row["result"]) or []]
        plain = scorer.score(make_run(calls), items[row["id"]])
        assert stored[row["id"]][:2] == (plain.status, plain.value), (row["id"], plain.reason)
    assert stored["simple_python_0"][:2] == ("scored", 1.0)
    assert stored["simple_python_3"][:2] == ("scored", 0.0)  # a deliberate wrong value


def test_a_call_sent_without_arguments_is_still_wrong() -> None:
    item = DatasetItem(item_id="i", expected_tool_calls=(ExpectedToolCall("f", {"x": [1]}),))
    row = build_scorer("argument_correctness").score(make_run([call("f", None)]), item)
    assert (row.status, row.value) == ("scored", 0.0)
    assert "missing parameter 'x'" in row.reason
