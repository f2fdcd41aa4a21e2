"""Replay turns recorded results (here: real tau2-bench runs, imported) into runs of a build.

Contract: replaying the importer's build onto itself stores nothing twice and reports every
recorded (item, run) as already stored; replaying into another build copies each recorded
trace under that build with its eval context; an item with no recording is a failed run
("not recorded"), stored with its reason so the gate counts it as missing.
"""

import json

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.home import current_home
from eval_pipeline.importers.benchmarks.tau2 import import_tau2
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.runners.replay import ReplayRunner
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.conftest import DATA_DIR

FIXTURE = DATA_DIR / "taubench_trajectories" / "tau2_gpt-4.1_airline_3sims.json"


def _imported(sink: TraceStoreSink) -> list[str]:
    document = json.loads(FIXTURE.read_text())
    sink.write(import_tau2(document, source=str(FIXTURE), build="tau2-gpt41"), build="tau2-gpt41")
    return [str(sim["task_id"]) for sim in document["simulations"]]


def test_replay_of_imported_tau2_runs() -> None:
    sink = TraceStoreSink(TraceStore(current_home().store))
    task_ids = _imported(sink)
    items = [DatasetItem(item_id=t) for t in task_ids] + [DatasetItem(item_id="never-run")]
    stored_before = len(sink.spans("tau2-gpt41"))

    same = ReplayRunner(sink, "tau2-gpt41").run_items(items, build="tau2-gpt41")
    assert {o.item_id for o in same.skipped} == set(task_ids)
    assert [(o.item_id, o.failure_reason) for o in same.failed] == [
        ("never-run", "no recorded run of item never-run (run 0) in build tau2-gpt41")
    ]
    assert len(sink.spans("tau2-gpt41")) == stored_before + 1  # only the failure root

    copied = ReplayRunner(sink, "tau2-gpt41").run_items(items, build="replayed")
    assert {o.item_id for o in copied.completed} == set(task_ids)
    runs = assemble_runs(sink.spans("replayed"))
    assert {r.eval_context.item_id for r in runs if not failure_reason(r.spans)} == set(task_ids)
    assert {r.eval_context.build_id for r in runs} == {"replayed"}
    recorded = {
        r.eval_context.item_id: r.tool_names for r in assemble_runs(sink.spans("tau2-gpt41"))
    }
    for run in runs:
        if run.eval_context.item_id in recorded:
            assert run.tool_names == recorded[run.eval_context.item_id]
