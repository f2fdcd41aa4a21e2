"""The request gate: slots in flight, pacing per minute, and learning an endpoint's limit.

Driven with a hand-moved clock and a recording sleep, so the pacing and the cool-down are
checked exactly: starts spaced by 60/rpm and by tokens*60/tpm, concurrency halved once per
cool-down on a rate-limit answer, climbed back one step per full round of successes, never
again to a level that was refused. Invalid limits are refused with the field named.
"""

import threading

import pytest

from eval_pipeline.judges.limits import JudgeLimits, RequestGate, estimated_tokens


class Clock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def _gate(**limits: float) -> tuple[RequestGate, Clock]:
    clock = Clock()
    return RequestGate(JudgeLimits(**limits), clock=clock, sleep=clock.sleep), clock  # type: ignore[arg-type]


def test_requests_per_minute_spaces_the_starts() -> None:
    gate, clock = _gate(requests_per_minute=120)
    for _ in range(4):
        with gate.admitted(10):
            pass
    assert clock.slept == [0.5, 0.5, 0.5]


def test_tokens_per_minute_spaces_by_each_requests_tokens() -> None:
    gate, clock = _gate(tokens_per_minute=6000)
    for tokens in (300, 600, 100):
        with gate.admitted(tokens):
            pass
    assert clock.slept == [3.0, 6.0]  # 300 tokens buy 3 s of the minute's 6,000


def test_a_rate_limit_halves_once_per_cooldown_and_the_refused_level_is_a_ceiling() -> None:
    gate, clock = _gate(max_concurrency=16)
    for _ in range(8):  # a wave of 429s at once halves once
        gate.rate_limited(retry_after=2.0)
    assert gate.limit == 8
    for _ in range(8):
        gate.succeeded()
    assert gate.limit == 9  # one step up after a full round
    clock.now += 2.5
    gate.rate_limited(retry_after=None)
    assert gate.limit == 4
    for _ in range(200):
        gate.succeeded()
    assert gate.limit == 8  # 9 was refused: the gate stays under it


def test_no_more_than_the_limit_are_in_flight() -> None:
    gate = RequestGate(JudgeLimits(max_concurrency=3))
    inside = threading.Semaphore(0)
    release = threading.Event()

    def hold() -> None:
        with gate.admitted(1):
            inside.release()
            release.wait(5)

    threads = [threading.Thread(target=hold) for _ in range(6)]
    for thread in threads:
        thread.start()
    for _ in range(3):
        assert inside.acquire(timeout=5)
    assert not inside.acquire(timeout=0.2)  # the other three wait for a slot
    release.set()
    for thread in threads:
        thread.join(5)
    assert gate.max_in_flight == 3


@pytest.mark.parametrize(
    "field, value",
    [("max_concurrency", 0), ("requests_per_minute", 0), ("tokens_per_minute", -5)],
)
def test_invalid_limits_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        JudgeLimits(**{field: value})  # type: ignore[arg-type]


def test_a_request_counts_its_prompt_and_its_max_tokens() -> None:
    assert estimated_tokens(401, 1024) == 101 + 1024
