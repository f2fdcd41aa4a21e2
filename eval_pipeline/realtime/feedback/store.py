"""The feedback store: ratings and the review queue, in the SQL state database.

``record`` stores a rating and, for a thumbs-down, opens the trace's review item in the same
transaction (once: a second thumbs-down adds a rating, not an item). ``label`` records a
verdict on an item that exists, and refuses a trace that was never routed to review.
``thumbs_down_trace_ids`` is what the sampler reads to raise a trace's inclusion probability.
"""

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    Index,
    Integer,
    Row,
    String,
    Table,
    Text,
    select,
    update,
)

from eval_pipeline.realtime.feedback.rating import Feedback, FeedbackError, Rating
from eval_pipeline.realtime.feedback.review import LABELLED, OPEN, STATUSES, VERDICTS, ReviewItem
from eval_pipeline.statedb import METADATA, engine_for, insert_new

FEEDBACK = Table(
    "feedback",
    METADATA,
    Column("feedback_id", Integer, primary_key=True, autoincrement=True),
    Column("trace_id", String(32), nullable=False),
    Column("rating", String(16), nullable=False),
    Column("score", Float, nullable=False),
    Column("negative", Boolean, nullable=False),
    Column("note", Text, nullable=True),
    Column("user_token", String(64), nullable=True),
    Column("session_token", String(64), nullable=True),
    Column("source", String(16), nullable=False),
    Column("received_at", Float, nullable=False),
    Index("feedback_by_trace", "trace_id"),
)

REVIEWS = Table(
    "review_queue",
    METADATA,
    Column("trace_id", String(32), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("reason", Text, nullable=False),
    Column("opened_at", Float, nullable=False),
    Column("verdict", String(16), nullable=True),
    Column("note", Text, nullable=True),
    Column("reviewer", String(200), nullable=True),
    Column("labelled_at", Float, nullable=True),
    Index("review_queue_by_status", "status", "opened_at"),
)


class NotInReview(FeedbackError):
    """A label for a trace that has no review item."""


def _time(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


class FeedbackStore:
    """The feedback and review-queue tables of the state database at ``state_url``."""

    def __init__(self, state_url: str) -> None:
        self.engine: Engine = engine_for(state_url)

    def record(self, feedback: Feedback) -> bool:
        """Store one rating; True when it opened a review item (a first thumbs-down)."""
        with self.engine.begin() as connection:
            connection.execute(
                FEEDBACK.insert().values(
                    trace_id=feedback.trace_id,
                    rating=feedback.rating.label,
                    score=feedback.rating.score,
                    negative=feedback.rating.negative,
                    note=feedback.note,
                    user_token=feedback.user,
                    session_token=feedback.session,
                    source=feedback.source,
                    received_at=feedback.received_at.timestamp(),
                )
            )
            if not feedback.rating.negative:
                return False
            opened = connection.execute(
                insert_new(connection, REVIEWS),
                [
                    {
                        "trace_id": feedback.trace_id,
                        "status": OPEN,
                        "reason": "thumbs-down",
                        "opened_at": feedback.received_at.timestamp(),
                    }
                ],
            )
            return opened.rowcount == 1

    def feedback_for(self, trace_id: str) -> list[Feedback]:
        """The ratings of one trace, oldest first."""
        query = (
            select(FEEDBACK)
            .where(FEEDBACK.c.trace_id == trace_id.lower())
            .order_by(FEEDBACK.c.received_at, FEEDBACK.c.feedback_id)
        )
        with self.engine.connect() as connection:
            return [
                Feedback(
                    trace_id=row.trace_id,
                    rating=Rating(row.rating, row.score),
                    received_at=datetime.fromtimestamp(row.received_at, UTC),
                    note=row.note,
                    user=row.user_token,
                    session=row.session_token,
                    source=row.source,
                )
                for row in connection.execute(query)
            ]

    def thumbs_down_trace_ids(self) -> set[str]:
        """Every trace that received negative feedback (the sampler raises their probability)."""
        query = select(FEEDBACK.c.trace_id).where(FEEDBACK.c.negative.is_(True)).distinct()
        with self.engine.connect() as connection:
            return {row.trace_id for row in connection.execute(query)}

    def reviews(self, status: str | None = None) -> list[ReviewItem]:
        """Review items, oldest first: ``open``, ``labelled``, or all (None)."""
        if status is not None and status not in STATUSES:
            raise FeedbackError(f"status: {status!r} is not one of {', '.join(STATUSES)}")
        query = select(REVIEWS).order_by(REVIEWS.c.opened_at, REVIEWS.c.trace_id)
        if status is not None:
            query = query.where(REVIEWS.c.status == status)
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
            return self._items(connection, rows)

    def review(self, trace_id: str) -> ReviewItem | None:
        """The review item of one trace, or None when it was never routed to review."""
        with self.engine.connect() as connection:
            rows = connection.execute(
                select(REVIEWS).where(REVIEWS.c.trace_id == trace_id.lower())
            ).all()
            items = self._items(connection, rows)
        return items[0] if items else None

    def label(
        self,
        trace_id: str,
        verdict: str,
        *,
        reviewer: str,
        note: str | None = None,
        at: datetime | None = None,
    ) -> ReviewItem:
        """Record a reviewer's verdict on a trace in review; the labelled item.

        Raises:
            FeedbackError: an unknown verdict or an empty reviewer.
            NotInReview: the trace has no review item.
        """
        if verdict not in VERDICTS:
            raise FeedbackError(f"verdict: {verdict!r} is not one of {', '.join(VERDICTS)}")
        if not reviewer.strip():
            raise FeedbackError("reviewer: who labels must be named (--reviewer or $USER)")
        moment = at or datetime.now(UTC)
        with self.engine.begin() as connection:
            done = connection.execute(
                update(REVIEWS)
                .where(REVIEWS.c.trace_id == trace_id.lower())
                .values(
                    status=LABELLED,
                    verdict=verdict,
                    note=note,
                    reviewer=reviewer.strip(),
                    labelled_at=moment.timestamp(),
                )
            )
        if done.rowcount != 1:
            raise NotInReview(f"trace {trace_id}: not in review (no thumbs-down routed it there)")
        item = self.review(trace_id)
        assert item is not None
        return item

    def _items(self, connection: Connection, rows: Sequence[Row[Any]]) -> list[ReviewItem]:
        """Review rows as items, with the negative feedback of their traces."""
        negative: dict[str, list[str | None]] = {row.trace_id: [] for row in rows}
        if negative:
            query = (
                select(FEEDBACK.c.trace_id, FEEDBACK.c.note)
                .where(FEEDBACK.c.trace_id.in_(list(negative)), FEEDBACK.c.negative.is_(True))
                .order_by(FEEDBACK.c.received_at, FEEDBACK.c.feedback_id)
            )
            for found in connection.execute(query):
                negative[found.trace_id].append(found.note)
        return [
            ReviewItem(
                trace_id=row.trace_id,
                status=row.status,
                opened_at=datetime.fromtimestamp(row.opened_at, UTC),
                reason=row.reason,
                verdict=row.verdict,
                note=row.note,
                reviewer=row.reviewer,
                labelled_at=_time(row.labelled_at),
                negative_feedback=len(negative[row.trace_id]),
                feedback_notes=tuple(n for n in negative[row.trace_id] if n),
            )
            for row in rows
        ]
