"""The session-level scorer protocol, alongside the per-run one (``scoring.protocol``).

A per-run scorer sees one run; what goes wrong over a conversation (the agent forgets what it
was told, the user repeats a request, the task finishes turns later or never) is visible only
in the whole session. A session scorer is the same kind of object as a run scorer (id,
version, direction, declared inputs, not-applicable rule, arguments, all read into the
metric's catalogue card by ``scoring.catalogue.card_of``) but judges
``session_verdict(session, item)``; ``item`` is the dataset item the session was run for, or
None for live traffic. Its ``run_fields`` name the session fields it reads
(``turns.user_input``, ``turns.answer``, ``turns.tool_calls``).

``score_session`` builds the same ``Score`` rows as ``registry.score_run``, keyed by the
session as the unit: ``build`` is the session's build; ``item_id`` the item's id (else the
turns' eval-context item, else the session id, so each live session is its own cluster);
``run_index`` the session's repetition of the item (its turns' eval-context run index);
``trace_id`` the last turn's trace (where the session's end is); ``evidence`` carries
``session_id`` and the turns' ``trace_ids``. A scorer that raises gives an ``error`` row.
"""

from collections.abc import Sequence
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.scoring.base import ScorerBase
from eval_pipeline.scoring.error_reason import error_reason
from eval_pipeline.scoring.protocol import Layer
from eval_pipeline.scoring.score import Score, ScoreStatus
from eval_pipeline.scoring.verdict import Verdict
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.sessions.model import Session


class SessionScorerBase(ScorerBase):
    """Base of the session metrics: ``ScorerBase``'s identity and verdicts, over a session."""

    layer = Layer.SESSION

    def session_verdict(self, session: Session, item: DatasetItem | None) -> Verdict:
        """Judge one session against its item (implemented by subclasses)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement session_verdict()")

    def verdict(self, run: AgentRun, item: DatasetItem) -> Verdict:
        """A session metric scores sessions: asked for one run, it says so (an error row)."""
        return self.errored(f"{self.id} scores sessions (score_session), not single runs")


def session_key(session: Session, item: DatasetItem | None) -> tuple[str, int | None]:
    """``(item_id, run_index)`` a session's rows carry (see the module docstring)."""
    item_id = item.item_id if item is not None else (session.item_id or session.session_id)
    return item_id, session.run_index


def score_session(
    session: Session,
    item: DatasetItem | None,
    scorers: Sequence[SessionScorerBase],
) -> list[Score]:
    """One row per scorer for ``session`` (keyed as the module docstring says)."""
    item_id, run_index = session_key(session, item)
    last = session.turns[-1].trace_id if session.turns else None
    context: dict[str, Any] = {
        "session_id": session.session_id,
        "trace_ids": [t.trace_id for t in session.turns],
    }
    rows = []
    for scorer in scorers:
        try:
            verdict = scorer.session_verdict(session, item)
        except Exception as exc:
            verdict = Verdict(ScoreStatus.ERROR, None, error_reason(exc), (), {}, None, None)
        verdict = verdict._replace(evidence={**verdict.evidence, **context})
        rows.append(
            verdict.row(
                scorer.id,
                scorer.version,
                last,
                build=session.build,
                item_id=item_id,
                run_index=run_index,
                slices=item.slices if item is not None else None,
                scorer_args=scorer.arguments,
            )
        )
    return rows
