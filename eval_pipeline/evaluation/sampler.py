"""The production sampler: every flagged trace, plus a seeded uniform share of the rest.

Flags are the cheap real-time signals computed from a completed run (tool errors, an
incomplete trace, a long trajectory, an error status). Biasing the sample to flagged traces
lets the batch plane see failures first; the uniform share keeps the base rate measurable.
"""

import hashlib
from dataclasses import dataclass

from eval_pipeline.traces.model import AgentRun

LONG_TRAJECTORY_TOOL_CALLS = 12


@dataclass(frozen=True)
class SampledRun:
    """A sampled run and why it was taken."""

    trace_id: str
    flags: tuple[str, ...]
    reason: str


def flags_of(run: AgentRun) -> tuple[str, ...]:
    """The real-time flags a completed run raises."""
    flags = []
    if any(not call.succeeded for call in run.tool_calls):
        flags.append("tool_error")
    if not run.complete:
        flags.append("incomplete_trace")
    if len(run.tool_calls) >= LONG_TRAJECTORY_TOOL_CALLS:
        flags.append("long_trajectory")
    if run.error is not None or any(
        span.is_error for span in run.spans if span.span_id == run.root_span_id
    ):
        flags.append("error_status")
    return tuple(flags)


def _uniform(trace_id: str, seed: str) -> float:
    digest = hashlib.sha256(f"{seed}:{trace_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def sample_runs(runs: list[AgentRun], rate: float, *, seed: str) -> list[SampledRun]:
    """Every flagged run, and each unflagged run with probability ``rate`` (deterministic)."""
    if not 0.0 <= rate <= 1.0:
        raise ValueError(f"sampling rate must be in [0, 1], got {rate}")
    sampled = []
    for run in runs:
        flags = flags_of(run)
        if flags:
            sampled.append(SampledRun(run.trace_id, flags, "flagged"))
        elif _uniform(run.trace_id, seed) < rate:
            sampled.append(SampledRun(run.trace_id, (), f"uniform at rate {rate}"))
    return sampled
