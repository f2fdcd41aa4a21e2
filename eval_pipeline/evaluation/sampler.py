"""The production sampler: every flagged trace, plus a seeded uniform share of the rest.

Flags come from the same detectors the real-time plane runs (``eval_pipeline.detectors``):
tool errors, incomplete traces, long trajectories, repeated calls, failed runs. Biasing the
sample to flagged traces lets the batch plane see failures first; the uniform share keeps the
base rate measurable.
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from eval_pipeline.detectors.flag import Detector
from eval_pipeline.detectors.registry import detect
from eval_pipeline.traces.model import AgentRun


@dataclass(frozen=True)
class SampledRun:
    """A sampled run and why it was taken."""

    trace_id: str
    flags: tuple[str, ...]
    reason: str


def flags_of(run: AgentRun, detectors: Sequence[Detector] | None = None) -> tuple[str, ...]:
    """Ids of the detectors that flag ``run``."""
    return tuple(dict.fromkeys(flag.detector_id for flag in detect(run, detectors)))


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
