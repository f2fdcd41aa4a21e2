"""Importer contract (tau2-bench, tau-bench).

Importer contract: tau2-bench results and tau-bench trajectories become one run per
simulation with the eval context (build, item = task id, run index = trial), chat spans with
recorded usage, tool spans with arguments and results, and the recorded reward as an imported
``task_success`` score.
"""

import json

from eval_pipeline.importers.benchmarks import tau2, taubench
from eval_pipeline.traces.model import Operation
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline_tests.traces.builders import TAU

TAU2_FILE = TAU / "tau2_gpt-4.1_airline_3sims.json"
TAUBENCH_FILE = TAU / "taubench_airline_task0_2trials.json"


def test_tau2_simulations_become_runs_with_their_recorded_data():
    document = json.loads(TAU2_FILE.read_text())
    runs = {
        r.eval_context.item_id: r
        for r in assemble_runs(tau2.import_tau2(document, source=str(TAU2_FILE)))
    }
    assert set(runs) == {s["task_id"] for s in document["simulations"]}
    for sim in document["simulations"]:
        run = runs[sim["task_id"]]
        requested = [
            c["name"]
            for m in sim["messages"]
            if m["role"] == "assistant"
            for c in (m["tool_calls"] or [])
        ]
        assert list(run.tool_names) == requested
        assert run.eval_context.build_id == "tau2:gpt-4.1"
        assert run.eval_context.dataset == "tau2-bench/airline"
        assert run.eval_context.run_index == sim["trial"]
        usage = [m["usage"] for m in sim["messages"] if m["role"] == "assistant" and m["usage"]]
        assert run.output_tokens == sum(u["completion_tokens"] for u in usage)
        last_text = [
            m["content"] for m in sim["messages"] if m["role"] == "assistant" and m["content"]
        ][-1]
        assert run.final_answer == last_text
        assert run.complete, run.completeness_reasons
        first_call = next(
            c for m in sim["messages"] if m["role"] == "assistant" for c in (m["tool_calls"] or [])
        )
        assert run.tool_calls[0].arguments == first_call["arguments"]
        assert run.tool_calls[0].call_id == first_call["id"]
        assert run.tool_calls[0].result is not None


def test_tau2_rewards_are_imported_scores():
    document = json.loads(TAU2_FILE.read_text())
    scores = tau2.imported_scores(document, source=str(TAU2_FILE), build="cand")
    assert [(s.item_id, s.value) for s in scores] == [
        (sim["task_id"], sim["reward_info"]["reward"]) for sim in document["simulations"]
    ]
    assert {(s.scorer_id, s.metric_id, s.status, s.build) for s in scores} == {
        ("imported:tau2", "task_success", "scored", "cand")
    }
    spans = tau2.import_tau2(document, source=str(TAU2_FILE), build="cand")
    roots = {s.trace_id for s in spans if s.operation == Operation.INVOKE_AGENT}
    assert {s.trace_id for s in scores} == roots


def test_taubench_trajectories_become_runs_and_scores():
    document = json.loads(TAUBENCH_FILE.read_text())
    spans = taubench.import_taubench(document, source=str(TAUBENCH_FILE))
    runs = sorted(assemble_runs(spans), key=lambda r: r.eval_context.run_index)
    assert [r.eval_context.run_index for r in runs] == [0, 1]
    assert {r.eval_context.dataset for r in runs} == {"tau-bench/airline"}
    assert runs[1].tool_names == (
        "get_user_details",
        "search_direct_flight",
        "search_onestop_flight",
        "book_reservation",
    )
    expected = document[1]["info"]["task"]["actions"][0]["kwargs"]
    assert runs[1].tool_calls[-1].arguments == expected
    # the files record no token usage: completeness says so rather than inventing numbers
    assert not runs[1].complete
    assert all("no token usage" in r for r in runs[1].completeness_reasons)
    scores = taubench.imported_scores(document, source=str(TAUBENCH_FILE))
    assert [(s.run_index, s.value) for s in scores] == [(0, 0.0), (1, 1.0)]
    assert scores[0].build == "taubench:taubench_airline_task0_2trials"


def test_importing_twice_gives_the_same_spans():
    document = json.loads(TAU2_FILE.read_text())
    assert tau2.import_tau2(document, source="x") == tau2.import_tau2(document, source="x")
