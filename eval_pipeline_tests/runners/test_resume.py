"""Runs are resumable: what is stored for (build, item, run index) is never redone.

Contract: a batch interrupted part-way (here: a first process that ran only some runs, then a
fresh runner over the persisted trace store) executes only the missing runs; stored failures
are kept (not retried) unless ``retry_failed``; resumption is per build.
"""

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.home import current_home
from eval_pipeline.runners.python_entry import PythonEntryPointRunner
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.runners import fault_agents

AGENTS = "eval_pipeline_tests.runners.fault_agents"


def _runner() -> PythonEntryPointRunner:
    # A new store object each time: nothing is remembered in memory between "processes".
    sink = TraceStoreSink(TraceStore(current_home().store))
    return PythonEntryPointRunner(f"{AGENTS}:faulty", sink=sink, timeout_s=5)


def _calls(build: str) -> dict[tuple[str, int], int]:
    return {(item, index): n for (b, item, index), n in fault_agents.CALLS.items() if b == build}


def test_only_missing_runs_are_executed_after_an_interruption() -> None:
    items = [DatasetItem(item_id=f"ok-{i}") for i in range(4)]
    first = _runner().run_items(items[:2], build="resume", runs_per_item=2)
    assert first.summary() == {"completed": 4, "failed": 0, "skipped": 0}

    second = _runner().run_items(items, build="resume", runs_per_item=3)
    assert second.summary() == {"completed": 8, "failed": 0, "skipped": 4}
    assert {(o.item_id, o.run_index) for o in second.skipped} == {
        (f"ok-{i}", r) for i in range(2) for r in range(2)
    }
    assert set(_calls("resume").values()) == {1}  # every run executed exactly once
    assert len(_calls("resume")) == 12
    # Another build starts from scratch.
    assert _runner().run_items(items[:1], build="resume-2").summary()["completed"] == 1


def test_failed_runs_are_kept_unless_retried() -> None:
    items = [DatasetItem(item_id="raise-x"), DatasetItem(item_id="ok-x")]
    assert len(_runner().run_items(items, build="retry").failed) == 1
    again = _runner().run_items(items, build="retry")
    assert again.summary() == {"completed": 0, "failed": 0, "skipped": 2}
    retried = _runner().run_items(items, build="retry", retry_failed=True)
    assert retried.summary() == {"completed": 0, "failed": 1, "skipped": 1}
    assert _calls("retry")[("raise-x", 0)] == 2
    assert _calls("retry")[("ok-x", 0)] == 1
