"""``POST /v1/feedback``: a user's rating of a trace, stored in the state database.

JSON body ``{"trace_id", "rating", "note"?, "user_id"?, "session_id"?}``: ``rating`` is ``up``,
``down`` or a score in [0, 1] (``feedback.rating``). The request is admitted exactly as
``/v1/traces`` is (the same bearer tokens, body bounds and encodings), and stored on the write
path's threads (429 when they are saturated) before the 202. User and session ids are stored
as the home's keyed pseudonyms, never raw; the free-text note is redacted by the receiver's
redaction policy, as span text is. A trace id the store does not hold yet is accepted:
feedback can arrive before its trace; ``review list`` shows whether the trace is stored. Bad
input is a 400 whose message names the field.
"""

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from eval_pipeline import json_input
from eval_pipeline.realtime.feedback.pseudonyms import SESSION, USER, pseudonym
from eval_pipeline.realtime.feedback.rating import (
    Feedback,
    FeedbackError,
    optional_text,
    parse_rating,
    parse_trace_id,
    redacted_note,
)
from eval_pipeline.realtime.feedback.store import FeedbackStore
from eval_pipeline.realtime.receiver.auth import Grant
from eval_pipeline.realtime.receiver.inflight import InflightBudget, Reservation
from eval_pipeline.realtime.receiver.rpc_status import Refusal
from eval_pipeline.traces.redact.redactor import Redactor

Admit = Callable[[Request, Reservation], Awaitable[tuple[Grant, bytes, bool]]]
"""The receiver's admission: authenticate, type-check and read the body (counted in the
reservation), or raise a Refusal."""
Submit = Callable[[Callable[[], bool]], "Future[bool]"]
"""The write path's ``submit``: run a job on its threads, or refuse (429) when full."""
LOG = logging.getLogger(__name__)
FIELDS = frozenset({"trace_id", "rating", "note", "user_id", "session_id"})


def parse_feedback(body: bytes, *, received_at: datetime, redactor: Redactor) -> Feedback:
    """A feedback request body, checked, pseudonymised and its note redacted by ``redactor``.

    Raises:
        FeedbackError: not a JSON object, an unknown field, or a field ``rating`` refuses.
    """
    try:
        data: Any = json_input.loads(body)
    except (ValueError, RecursionError) as exc:
        raise FeedbackError(f"body: not JSON ({exc!s:.120})") from None
    if not isinstance(data, dict):
        raise FeedbackError("body: expected a JSON object with trace_id and rating")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise FeedbackError(f"{unknown[0]}: unknown field; expected {', '.join(sorted(FIELDS))}")
    for required in ("trace_id", "rating"):
        if required not in data:
            raise FeedbackError(f"{required}: required")
    user = optional_text(data.get("user_id"), "user_id", limit=512)
    session = optional_text(data.get("session_id"), "session_id", limit=512)
    return Feedback(
        trace_id=parse_trace_id(data["trace_id"]),
        rating=parse_rating(data["rating"]),
        received_at=received_at,
        note=redacted_note(data.get("note"), redactor),
        user=pseudonym(USER, user) if user else None,
        session=pseudonym(SESSION, session) if session else None,
        source="http",
    )


def feedback_endpoint(
    admitted: Admit, budget: InflightBudget, submit: Submit, state_url: str, redactor: Redactor
) -> Callable[[Request], Awaitable[Response]]:
    """The route's handler over the receiver's admission, write path and redaction policy."""
    stores: list[FeedbackStore] = []

    def store() -> FeedbackStore:
        # Opened on a worker thread on first use: creating the tables is blocking I/O.
        if not stores:
            stores.append(FeedbackStore(state_url))
        return stores[0]

    async def feedback(request: Request) -> Response:
        try:
            with budget.request() as held:
                _, body, json_encoded = await admitted(request, held)
                if not json_encoded:
                    raise Refusal(415, "feedback is JSON: send Content-Type application/json")
                try:
                    parsed = parse_feedback(body, received_at=datetime.now(UTC), redactor=redactor)
                except FeedbackError as exc:
                    raise Refusal(400, f"feedback rejected: {exc}") from None
            opened = await asyncio.wrap_future(submit(lambda: store().record(parsed)))
        except Refusal as refusal:
            return _refused(refusal)
        except Exception:
            LOG.exception("storing feedback failed")
            return _refused(Refusal(500, "internal error; see the receiver's log"))
        reply = {
            "trace_id": parsed.trace_id,
            "rating": parsed.rating.label,
            "review_opened": opened,
        }
        return Response(json.dumps(reply), status_code=202, media_type="application/json")

    return feedback


def _refused(refusal: Refusal) -> Response:
    return Response(
        refusal.body(True),
        status_code=refusal.http_status,
        headers=refusal.headers(),
        media_type="application/json",
    )
