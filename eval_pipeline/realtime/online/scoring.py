"""The sampled production traces of a day, scored by the production suite's scorers.

Scoring goes through the offline path's pieces: the suite's stage (``open_stage``: its
scorers, with its judge) and ``score_build``, with the same cost and failure hooks as
``score_runs``, into the score store. Each sampled trace is its own item (item id = trace id,
one run), so two production traces of one request are two observations, not two runs of an
item. When the trace's eval context names an item of the suite (traffic replaying a dataset,
as the sample agent's production-like traffic does), the trace is scored against that item's
reference and carries its slices; otherwise its item holds only what the trace shows (the user
input), and its slices are ``unmatched``: a metric that needs a reference is then unscored or
not applicable for it, as its scorer says, and the slice mix shows traffic no dataset covers.

The rows are stored under the build ``production@<day>``; traces scored already are not
scored again (a sensor-requested rerun scores only the newly sampled traces). The judge's calls
are on the record as for a build (``judges.judge_trace``: one trace per scoring step, under
``judge:production@<day>``), the rows naming theirs.
"""

from collections import Counter
from dataclasses import replace
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.evaluation.stage import Stage, SuiteItem, open_stage
from eval_pipeline.home import Home
from eval_pipeline.judges.judge_trace import judge_trace
from eval_pipeline.realtime.online.sample import load_sample, production_runs
from eval_pipeline.runners.failure import failure_reason
from eval_pipeline.scoring.batch import score_build
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.suites.prices import PriceTable, known_cost_of_run
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore

UNMATCHED = "unmatched"
"""The slice value of a production trace no dataset item of the suite describes."""


def production_build(day: str) -> str:
    """The score-store build holding the scores of one day's production sample."""
    return f"{PRODUCTION}@{day}"


def production_stage(home: Home, day: str, suite: str) -> Stage:
    """The stage that scores ``day``'s sample: the production suite's scorers and judge."""
    return open_stage(home, production_build(day), suite)


def production_item(run: AgentRun, stage: Stage, known: dict[str, SuiteItem]) -> DatasetItem:
    """The item a production trace is scored against (see the module docstring)."""
    entry = known.get(run.eval_context.item_id or "")
    if entry is not None:
        return replace(entry.item, item_id=run.trace_id)
    user_input = run.user_input or ""
    return DatasetItem(
        item_id=run.trace_id,
        input_messages=({"role": "user", "content": user_input},) if user_input else (),
        slices={dimension: UNMATCHED for dimension in stage.suite.slices},
        provenance={"origin": "production", "trace_id": run.trace_id},
    )


def _as_own_item(run: AgentRun) -> AgentRun:
    """The run keyed as the only run of its own item (item id = trace id, run index 0)."""
    return replace(run, eval_context=replace(run.eval_context, item_id=run.trace_id, run_index=0))


def score_production_day(home: Home, day: str, suite: str) -> dict[str, Any]:
    """Score the traces of ``day``'s production sample not scored yet; counts for metadata."""
    stage = production_stage(home, day, suite)
    sampled = {s.trace_id for s in load_sample(home, day)}
    scores = ScoreStore(home.store)
    build = stage.build
    done = set(scores.read_frame(build)["item_id"].astype(str))
    runs = [r for r in production_runs(home, day) if r.trace_id in sampled - done]
    known = {entry.item.item_id: entry for entry in stage.items}
    items = [production_item(run, stage, known) for run in runs]
    source = {
        run.trace_id: known[key] for run in runs if (key := run.eval_context.item_id or "") in known
    }
    prices = PriceTable.load()
    judge = stage.judge
    traces = TraceStore(home.store)
    with judge_trace(judge, build, traces, stage.redaction_policy) as calls:
        result = score_build(
            build,
            [_as_own_item(run) for run in runs],
            items,
            list(stage.scorers),
            runs_per_item=1,
            cost=lambda run: known_cost_of_run(run, prices),
            failure=lambda run: failure_reason(run.spans),
        )
        rows = [
            replace(
                s,
                dataset=source[s.item_id].dataset,
                dataset_version=source[s.item_id].dataset_version,
            )
            if s.item_id in source
            else s
            for s in result.scores
        ]
        if rows:
            scores.write(build, rows, run_metrics=result.run_metrics)
    return {
        "day": day,
        "suite": stage.suite.suite,
        "score_build": build,
        "sampled_traces": len(sampled),
        "scored_now": len(runs),
        "scored_before": len(sampled & done),
        "missing_traces": len(sampled - done - {r.trace_id for r in runs}),
        "matched_dataset_items": len(source),
        "unmatched_traces": len(runs) - len(source),
        "rows_by_status": dict(Counter(s.status for s in rows)),
        "judge_fingerprint": judge.fingerprint.digest if judge is not None else None,
        "judge_calls": calls.calls,
        "judge_trace_id": calls.trace_id if calls.calls else None,
    }
