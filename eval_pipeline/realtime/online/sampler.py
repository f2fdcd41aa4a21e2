"""The production sampler: Poisson sampling with known inclusion probabilities.

Each live trace gets an inclusion probability from its risk tier's policy: the base rate
(``production_sampling_rate``) for every trace, a higher rate per flag kind the real-time
plane or the batch detectors raised on it (``flagged_sampling_rates``; ``flagged_sampling_rate``
for kinds not listed), and ``thumbs_down_sampling_rate`` for negative user feedback. The
probability is the highest rate that applies. Inclusion is decided by a hash of the trace id
(uniform on [0, 1) and compared with the probability), so the same trace is always sampled or
not at a given probability, a trace sampled at the base rate stays sampled once flagged, and
any day's sample is reproducible. The probability and the reasons go with each sampled trace:
the online estimates weight it by the inverse (``estimates``), so a sample biased to
flagged traces still estimates the traffic without bias.
"""

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from eval_pipeline.realtime.detectors.flag import Detector
from eval_pipeline.realtime.detectors.registry import default_detectors, detect
from eval_pipeline.suites.risk import TierPolicy
from eval_pipeline.traces.model import AgentRun

THUMBS_DOWN = "thumbs_down"
"""The reason recorded for a trace sampled because a user rated it down."""
BASE = "base_rate"
"""The reason recorded for a trace sampled at the tier's base rate only."""
_SALT = "eval-pipeline/production-sample"


class SamplingPolicyError(ValueError):
    """The tier policy names a flag kind no detector raises."""


def flag_kind(detector_id: str) -> str:
    """The flag kind of a detector id: the id without its version (``tool_error@2`` -> ...)."""
    return detector_id.partition("@")[0]


def known_flag_kinds() -> frozenset[str]:
    """Every flag kind the built-in detectors raise (optional budget detectors included)."""
    from eval_pipeline.realtime.detectors.span_detectors import SpanLatencyDetector
    from eval_pipeline.realtime.detectors.trace_detectors import RunCostDetector, RunLatencyDetector

    ids = [d.id for d in default_detectors()]
    ids += [SpanLatencyDetector.id, RunLatencyDetector.id, RunCostDetector.id]
    return frozenset(flag_kind(i) for i in ids)


@dataclass(frozen=True)
class SamplingPolicy:
    """The inclusion rates of one risk tier."""

    tier: str
    base_rate: float
    flag_rates: Mapping[str, float]
    other_flag_rate: float
    thumbs_down_rate: float

    @classmethod
    def of(
        cls, tier: TierPolicy, *, source: str = "", base_rate: float | None = None
    ) -> "SamplingPolicy":
        """The tier's rates (``base_rate`` overrides its ``production_sampling_rate``).

        Raises:
            SamplingPolicyError: a ``flagged_sampling_rates`` key is no detector's flag kind,
                naming the policy file, tier and key.
        """
        unknown = sorted(set(tier.flagged_sampling_rates) - known_flag_kinds())
        if unknown:
            raise SamplingPolicyError(
                f"{source or 'risk policy'}: tiers.{tier.name}.flagged_sampling_rates: unknown "
                f"flag kind(s) {', '.join(unknown)}; known: {', '.join(sorted(known_flag_kinds()))}"
            )
        base = float(tier.production_sampling_rate if base_rate is None else base_rate)
        if not 0.0 <= base <= 1.0:
            raise SamplingPolicyError(f"sampling rate must be in [0, 1], got {base}")
        return cls(
            tier.name,
            base,
            dict(tier.flagged_sampling_rates),
            float(tier.flagged_sampling_rate),
            float(tier.thumbs_down_sampling_rate),
        )

    def inclusion(self, flags: Iterable[str], thumbs_down: bool) -> tuple[float, tuple[str, ...]]:
        """(inclusion probability, the reasons that set it): the highest applicable rate.

        Reasons are every flag kind and the thumbs-down that apply, or ``base_rate`` alone.
        """
        rates = {BASE: self.base_rate}
        for kind in dict.fromkeys(flag_kind(f) for f in flags):
            rates[kind] = self.flag_rates.get(kind, self.other_flag_rate)
        if thumbs_down:
            rates[THUMBS_DOWN] = self.thumbs_down_rate
        probability = max(rates.values())
        reasons = tuple(r for r in rates if r != BASE)
        return probability, reasons or (BASE,)


@dataclass(frozen=True)
class SampledTrace:
    """A sampled trace, its inclusion probability and why it had that probability."""

    trace_id: str
    probability: float
    reasons: tuple[str, ...]
    flags: tuple[str, ...]

    @property
    def weight(self) -> float:
        """The inverse inclusion probability: how many traces of the traffic it stands for."""
        return 1.0 / self.probability


def hash_uniform(trace_id: str) -> float:
    """A uniform draw on [0, 1) fixed by the trace id (the sampler's only randomness)."""
    digest = hashlib.sha256(f"{_SALT}:{trace_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def flags_of(run: AgentRun, detectors: Sequence[Detector] | None = None) -> tuple[str, ...]:
    """Ids of the detectors that flag ``run``."""
    return tuple(dict.fromkeys(flag.detector_id for flag in detect(run, detectors)))


def sample_traces(
    flags: Mapping[str, Collection[str]],
    policy: SamplingPolicy,
    thumbs_down: Collection[str] = (),
) -> list[SampledTrace]:
    """The sampled traces among ``flags`` (trace id -> detector ids raised on it), in order."""
    sampled = []
    for trace_id, raised in flags.items():
        probability, reasons = policy.inclusion(raised, trace_id in thumbs_down)
        if hash_uniform(trace_id) < probability:
            sampled.append(SampledTrace(trace_id, probability, reasons, tuple(raised)))
    return sampled
