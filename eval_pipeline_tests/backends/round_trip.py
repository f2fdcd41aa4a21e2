"""What a round trip must keep: the same runs (per item and run index) and the same score rows."""

from dataclasses import replace

from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.store.trace_store import TraceStore


def runs_by_key(store: TraceStore, build: str) -> dict[tuple[str | None, int | None], AgentRun]:
    """The build's runs by (item id, run index), with the span list in a stable order."""
    out = {}
    for run in store.runs(build):
        spans = tuple(sorted(run.spans, key=lambda s: s.span_id))
        out[(run.eval_context.item_id, run.eval_context.run_index)] = replace(run, spans=spans)
    return out


def rows_by_key(scores: list[Score], build: str) -> dict[tuple[str | None, int | None, str], Score]:
    """Score rows by (item, run, metric), the build set to ``build`` (the import's)."""
    return {(s.item_id, s.run_index, s.metric_id): replace(s, build=build) for s in scores}
