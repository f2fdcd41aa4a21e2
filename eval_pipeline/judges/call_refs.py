"""Naming judge calls: a call is ``<trace id>/<span id>`` of its ``chat`` span in a judge trace.

A score row names the calls that made it (``Score.judge_calls``). A verdict carries its calls
(``JudgeVerdict.calls``) from the HTTP judge through the cache, which stores them with the
verdict, so a score answered from the cache still names the call that first made it. A library
metric's prompts are answered as plain text (``judges.completion``), through the library's own
code: the calls are noted instead in the collector the adapter opens around one run's metric
(``collecting``); ``note`` adds to it from any thread the run's work goes to, as long as the
context is carried there (``asyncio.to_thread`` does), and does nothing when no collector is open.
"""

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_COLLECTOR: ContextVar[list[str] | None] = ContextVar("judge_call_collector", default=None)


def call_ref(trace_id: str, span_id: str) -> str:
    """The name of the call whose span is ``span_id`` in judge trace ``trace_id``."""
    return f"{trace_id}/{span_id}"


def split_call(ref: str) -> tuple[str, str]:
    """``(trace id, span id)`` of a call's name.

    Raises:
        ValueError: ``ref`` is not ``<trace id>/<span id>``.
    """
    trace_id, sep, span_id = ref.partition("/")
    if not sep or not trace_id or not span_id:
        raise ValueError(f"a judge call is named <trace id>/<span id>, got {ref!r}")
    return trace_id, span_id


@contextmanager
def collecting() -> Iterator[list[str]]:
    """Collect the calls noted while the block runs (here, and in contexts copied from here)."""
    found: list[str] = []
    token = _COLLECTOR.set(found)
    try:
        yield found
    finally:
        _COLLECTOR.reset(token)


def note(refs: Iterable[str]) -> None:
    """Add calls to the collector open in this context, if any."""
    found = _COLLECTOR.get()
    if found is not None:
        found.extend(refs)
