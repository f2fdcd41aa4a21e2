"""Stage 2, for conversations: score a build's sessions on its suite's session metrics.

A suite may list session metrics (``scoring.sessions``) beside per-run ones. Each expected
(item, run index) of the suite is one session: the build's stored turns (runs) of that item and
run index sharing a conversation id, assembled by ``traces.sessions``, ended by the end marker
the conversation runner puts on the last turn (``runners.conversation``) or, for ingested
traffic, by the suite's idle timeout (``sessions: {idle_timeout_s}``) at the time of scoring.
Every expected session gets a row per session metric, as every expected run does per run
metric: ``unscored`` when no session was recorded or it has not ended, ``error`` when the run
failed (the runner's failure record, which replaces a conversation that broke off) or one of
its turns did, else ``score_session``'s row. So the gate
clusters a session metric by item exactly as a run metric (each item's sessions together).

Per-session latency and cost are the sums over the session's turns (``latency_s``,
``cost_usd`` for the budgets); for a multi-turn item they stand for the run's.
"""

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.batch import RunMetrics
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.sessions.base import SessionScorerBase, score_session
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.sessions.assemble import sessions_from_runs
from eval_pipeline.traces.sessions.model import Session


@dataclass(frozen=True)
class SessionScores:
    """The session rows of a build and the per-session latency and cost."""

    scores: list[Score]
    run_metrics: RunMetrics


def _by_key(sessions: Sequence[Session]) -> dict[tuple[str, int], Session]:
    """Each (item, run index)'s session; of two, the later started (a redone run) wins."""
    found: dict[tuple[str, int], Session] = {}
    for session in sessions:  # oldest first
        if session.item_id is not None:
            found[(session.item_id, session.run_index or 0)] = session
    return found


def _missing(
    scorers: Sequence[SessionScorerBase],
    item: DatasetItem,
    index: int,
    *,
    build: str,
    status: str,
    reason: str,
    trace_id: str | None,
) -> list[Score]:
    return [
        Score(
            metric_id=s.id,
            value=None,
            status=status,
            scorer_id=s.id,
            scorer_version=s.version,
            reason=reason,
            trace_id=trace_id,
            build=build,
            item_id=item.item_id,
            run_index=index,
            slices=dict(item.slices),
            scorer_args=dict(s.arguments),
        )
        for s in scorers
    ]


def score_sessions(
    build: str,
    runs: Sequence[AgentRun],
    items: Sequence[DatasetItem],
    scorers: Sequence[SessionScorerBase],
    *,
    runs_per_item: int,
    idle_timeout_s: float,
    now_unix_nano: int | None = None,
    cost: Callable[[AgentRun], float | None] | None = None,
    failure: Callable[[AgentRun], str | None] | None = None,
) -> SessionScores:
    """Every expected session's rows (see the module docstring)."""
    known = {item.item_id for item in items}
    mine = [r for r in runs if r.eval_context.item_id in known]
    now = time.time_ns() if now_unix_nano is None else now_unix_nano
    sessions = _by_key(
        sessions_from_runs(mine, build=build, now=now, idle_timeout_s=idle_timeout_s)
    )
    failed_runs = {
        (str(r.eval_context.item_id), r.eval_context.run_index or 0): reason
        for r in mine
        if failure is not None and (reason := failure(r)) is not None
    }
    rows: list[Score] = []
    metrics: RunMetrics = {}
    for item in items:
        for index in range(runs_per_item):
            session = sessions.get((item.item_id, index))
            crashed = failed_runs.get((item.item_id, index))
            if session is None and crashed is not None:  # the runner's failure record
                rows += _missing(
                    scorers,
                    item,
                    index,
                    build=build,
                    status=ScoreStatus.ERROR,
                    reason=f"run failed: {crashed}",
                    trace_id=None,
                )
                continue
            if session is None:
                rows += _missing(
                    scorers,
                    item,
                    index,
                    build=build,
                    status=ScoreStatus.UNSCORED,
                    reason="no session recorded for this item and run",
                    trace_id=None,
                )
                continue
            last = session.turns[-1].trace_id
            failed = next(
                (f for t in session.turns if failure and (f := failure(t.run)) is not None), None
            )
            if failed is not None or not session.ended:
                ended = f"no end marker and idle for less than {idle_timeout_s:g} s"
                rows += _missing(
                    scorers,
                    item,
                    index,
                    build=build,
                    status=ScoreStatus.ERROR if failed else ScoreStatus.UNSCORED,
                    reason=f"run failed: {failed}" if failed else f"session not ended: {ended}",
                    trace_id=last,
                )
                continue
            rows += score_session(session, item, scorers)
            if item.multi_turn:
                values = {"latency_s": sum(t.duration_s for t in session.turns)}
                costs = [cost(t.run) for t in session.turns] if cost is not None else [None]
                if all(c is not None for c in costs):
                    values["cost_usd"] = float(sum(c for c in costs if c is not None))
                metrics[(item.item_id, index)] = values
    return SessionScores(rows, metrics)
