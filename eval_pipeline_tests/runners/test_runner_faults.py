"""Runner faults become failed runs with a reason, and the gate counts them as missing.

Contract: an agent that raises, hangs past its timeout, or emits no spans yields a run marked
failed with the reason; the other runs complete; the failure is stored in the trace store as
a synthetic error root span (so the run is not silently absent); scoring gives every metric an
``error`` row for it (never a 0); and the gate reports those scores as missing and fails.
"""

import time

from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.defects.evaluation import SuiteEvaluation
from eval_pipeline.gate.engine import evaluate_gate
from eval_pipeline.gate.rules import GateConfig, MetricRule
from eval_pipeline.home import current_home
from eval_pipeline.runners.failure import FAILURE_KIND, FAILURE_REASON, FailureKind
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline.traces.redact.redactor import load_policy
from eval_pipeline.traces.store.trace_store import TraceStore

AGENTS = "eval_pipeline_tests.runners.fault_agents"
GOOD = [f"ok-{i}" for i in range(6)]
FAULTY = ["raise-1", "hang-1", "silent-1"]


def _items(ids: list[str]) -> list[DatasetItem]:
    return [
        DatasetItem(
            item_id=i,
            input_messages=({"role": "user", "content": i},),
            expected_tool_calls=(ExpectedToolCall("lookup", {"q": [i]}),),
        )
        for i in ids
    ]


def _runner(sink: TraceStoreSink) -> PythonEntryPointRunner:
    return PythonEntryPointRunner(f"{AGENTS}:faulty", sink=sink, timeout_s=1.0, progress=False)


def test_raise_hang_and_silence_fail_with_reasons_while_others_complete() -> None:
    sink = TraceStoreSink(TraceStore(current_home().store))
    started = time.perf_counter()
    result = _runner(sink).run_items(
        _items(GOOD + FAULTY), build="cand", runs_per_item=2, concurrency=4
    )
    assert time.perf_counter() - started < 10  # the hung runs were abandoned at 1 s
    assert {(o.item_id, o.status) for o in result.completed} == {(i, "completed") for i in GOOD}
    reasons = {o.item_id: o.failure_reason for o in result.failed}
    assert len(result.failed) == 6
    assert reasons["raise-1"] == "agent raised RuntimeError: tool backend unreachable"
    assert reasons["hang-1"] == "timed out after 1 s"
    assert reasons["silent-1"] == "agent emitted no spans"
    stored = [s for s in sink.spans("cand") if FAILURE_REASON in s.attributes]
    assert sorted(s.attributes[FAILURE_KIND] for s in stored) == sorted(
        [FailureKind.RAISED, FailureKind.TIMEOUT, FailureKind.NO_SPANS] * 2
    )
    assert all(s.status_code == "error" and s.operation == "invoke_agent" for s in stored)


def test_failed_runs_are_error_scores_and_the_gate_counts_them_missing() -> None:
    home = current_home()
    # An offline evaluation's policy keeps tool arguments, which argument_correctness reads.
    sink = TraceStoreSink(TraceStore(home.store), policy=load_policy("keep-tools"))
    scorers = [build_scorer("tool_correctness"), build_scorer("argument_correctness")]
    items = _items(GOOD + FAULTY)
    evaluation = SuiteEvaluation(
        items=items,
        scorers=scorers,
        sink=sink,
        runs_per_item=2,
        runner_factory=lambda build, params: _runner(sink),
    )
    baseline = evaluation.evaluate("base-ok", seed_base="b")
    candidate = evaluation.evaluate("cand", seed_base="c")
    errors = candidate.frame[candidate.frame["status"] == "error"]
    assert sorted(set(errors["item_id"])) == sorted(FAULTY)
    assert len(errors) == len(FAULTY) * 2 * len(scorers)
    assert errors["value"].isna().all()
    assert errors["reason"].str.startswith("run failed: ").all()
    scored = candidate.frame[candidate.frame["status"] == "scored"]
    assert set(scored["item_id"]) == set(GOOD) and (scored["value"] == 1.0).all()

    config = GateConfig(
        metrics=(
            MetricRule("tool_correctness", 0.5, 0.1),
            MetricRule("argument_correctness", 0.5, 0.1),
        ),
        n_resamples=500,
        runs_per_item=2,
    )
    report = evaluate_gate(config, candidate.frame, baseline.frame)
    for metric in ("tool_correctness", "argument_correctness"):
        decision = report.metric(metric)
        assert decision.verdict == "fail"
        assert decision.missing.error == len(FAULTY) * 2
        assert decision.candidate_mean == 1.0  # the failed runs were not averaged in as 0
    assert report.blocking
    # Without the faulty items the same runs pass: the failure is what failed the gate.
    ok = candidate.frame[~candidate.frame["item_id"].isin(FAULTY)]
    base_ok = baseline.frame[~baseline.frame["item_id"].isin(FAULTY)]
    assert not evaluate_gate(config, ok, base_ok).blocking
