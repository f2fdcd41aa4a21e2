"""Runner faults become failed runs with a reason, and the gate counts them as missing.

Contract: an agent that raises, hangs past its timeout, or emits no spans yields a run marked
failed with the reason; the other runs complete; the failure is stored in the trace store as
a synthetic error root span (so the run is not silently absent); scoring gives every metric an
``error`` row for it (never a 0); and the gate reports those scores as missing and fails.
"""

import time
from pathlib import Path

import pytest

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.datasets.artefact import Dataset
from eval_pipeline.datasets.item import DatasetItem, ExpectedToolCall
from eval_pipeline.datasets.store import DatasetStore
from eval_pipeline.evaluation.gate_config import suite_gate_config
from eval_pipeline.evaluation.stages import collect_runs, decide_gate, open_stage, score_runs
from eval_pipeline.gate.engine import evaluate_gate
from eval_pipeline.home import current_home
from eval_pipeline.runners.failure import FAILURE_KIND, FAILURE_REASON, FailureKind
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.scoring.store import ScoreStore
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
            slices={"intent": "lookup"},  # a valid dataset labels its items (or it cannot run)
        )
        for i in ids
    ]


def _runner(sink: TraceStoreSink) -> PythonEntryPointRunner:
    return PythonEntryPointRunner(f"{AGENTS}:faulty", sink=sink, timeout_s=1.0)


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


SUITE = """\
suite: faults
risk_tier: low
datasets:
  - name: golden/faults-v1
runs_per_item: 2
redaction_policy: keep-tools
metrics:
  - {id: tool_correctness, threshold: 0.5, max_regression: 0.1}
  - {id: argument_correctness, threshold: 0.5, max_regression: 0.1}
"""


def test_failed_runs_are_error_scores_and_the_gate_counts_them_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = current_home().ensure()
    DatasetStore(home.datasets).publish(
        Dataset(
            name="golden/faults",
            version="v1",
            owner="t",
            kind="golden",
            items=tuple(_items(GOOD + FAULTY)),
            tool_schemas=({"name": "lookup", "parameters": {"type": "object"}},),
        )
    )
    (tmp_path / "faults.yaml").write_text(SUITE)
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(tmp_path))
    registry = BuildRegistry(home.state_url)
    for build in ("base-ok", "cand"):
        registry.register(build, suite="faults", runner=f"python:{AGENTS}:faulty")
    frames = {}
    for build in ("base-ok", "cand"):
        stage = open_stage(home, build)
        collect_runs(stage, timeout_s=1.0)
        score_runs(stage)
        frames[build] = ScoreStore(home.store).read_frame(build)
    candidate, baseline = frames["cand"], frames["base-ok"]
    errors = candidate[candidate["status"] == "error"]
    assert sorted(set(errors["item_id"])) == sorted(FAULTY)
    assert len(errors) == len(FAULTY) * 2 * 2
    assert errors["value"].isna().all()
    assert errors["reason"].str.startswith("run failed: ").all()
    scored = candidate[candidate["status"] == "scored"]
    assert set(scored["item_id"]) == set(GOOD) and (scored["value"] == 1.0).all()

    report = decide_gate(open_stage(home, "cand", baseline="base-ok"), n_resamples=500).report
    for metric in ("tool_correctness", "argument_correctness"):
        decision = report.metric(metric)
        assert decision.verdict == "fail"
        assert decision.missing.error == len(FAULTY) * 2
        assert decision.candidate_mean == 1.0  # the failed runs were not averaged in as 0
    assert report.blocking
    # Without the faulty items the same runs pass: the failure is what failed the gate.
    config = suite_gate_config(open_stage(home, "cand").suite, n_resamples=500)
    ok = candidate[~candidate["item_id"].isin(FAULTY)]
    base_ok = baseline[~baseline["item_id"].isin(FAULTY)]
    assert not evaluate_gate(config, ok, base_ok).blocking
