"""One day of production traffic sampled into the batch plane, with inclusion probabilities.

The flags of a trace are the alerts the real-time plane stored for it (``AlertStore``, build
``production``) and the flags the detectors raise when replayed on its stored run, so a day
the plane missed (it was down, or the trace came in through the CLI) is flagged the same way.
The tier whose rates apply is the production suite's ``risk_tier``. The sample is stored as
``<store>/production_sample/day=<day>/sample.json``: the policy used, the day's trace count,
and every sampled trace with its probability, reasons and flags.
"""

import json
from collections.abc import Collection
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from eval_pipeline.home import Home
from eval_pipeline.realtime.alerts.store import AlertStore
from eval_pipeline.realtime.online.sampler import (
    SampledTrace,
    SamplingPolicy,
    flags_of,
    sample_traces,
)
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore

DEFAULT_PRODUCTION_SUITE = "support-agent"
"""The suite production traffic is scored on unless the assets are configured otherwise."""


def sample_path(home: Home, day: str) -> Path:
    """Where the sample of ``day`` is stored."""
    return home.store / "production_sample" / f"day={day}" / "sample.json"


def production_runs(home: Home, day: str) -> list[AgentRun]:
    """The production runs stored for ``day``."""
    return assemble_runs(TraceStore(home.store).read_spans(PRODUCTION, day=day))


def alert_flags(home: Home, day: str, trace_ids: Collection[str]) -> dict[str, set[str]]:
    """Detector ids of the real-time plane's alerts on these production traces of ``day``."""
    since = datetime.strptime(day, "%Y-%m-%d").replace(tzinfo=UTC)
    found: dict[str, set[str]] = {}
    for alert in AlertStore(home.state_url).list_alerts(since=since, build=PRODUCTION):
        if alert.trace_id in trace_ids:
            found.setdefault(alert.trace_id, set()).add(alert.detector)
    return found


def production_policy(suite_ref: str, rate: float | None = None) -> SamplingPolicy:
    """The sampling rates of the production suite's risk tier (``rate`` overrides the base)."""
    from eval_pipeline.suites.config import load_suite
    from eval_pipeline.suites.locate import locate_suite
    from eval_pipeline.suites.risk import load_risk_policy

    suite = load_suite(locate_suite(suite_ref))
    policy = load_risk_policy()
    return SamplingPolicy.of(policy.tier(suite.risk_tier), source=policy.source, base_rate=rate)


def sample_production_day(
    home: Home,
    day: str,
    *,
    thumbs_down: Collection[str],
    suite: str = DEFAULT_PRODUCTION_SUITE,
    rate: float | None = None,
) -> dict[str, Any]:
    """Sample one day of production traces and store the sample (see the module docstring).

    ``thumbs_down`` holds the trace ids users rated down (the feedback store's); they are
    sampled at the tier's thumbs-down rate. Returns the counts for the asset's metadata.
    """
    policy = production_policy(suite, rate)
    runs = production_runs(home, day)
    by_trace = {run.trace_id: run for run in runs}
    alerted = alert_flags(home, day, by_trace.keys())
    flags = {
        trace_id: tuple(dict.fromkeys((*sorted(alerted.get(trace_id, ())), *flags_of(run))))
        for trace_id, run in by_trace.items()
    }
    sampled = sample_traces(flags, policy, thumbs_down)
    target = sample_path(home, day)
    target.parent.mkdir(parents=True, exist_ok=True)
    body = {
        "day": day,
        "suite": suite,
        "tier": policy.tier,
        "policy": {
            "base_rate": policy.base_rate,
            "flagged_sampling_rates": dict(policy.flag_rates),
            "flagged_sampling_rate": policy.other_flag_rate,
            "thumbs_down_sampling_rate": policy.thumbs_down_rate,
        },
        "traces": len(runs),
        "sampled": [s.__dict__ for s in sampled],
    }
    target.write_text(json.dumps(body, indent=2, default=list))
    return {
        "day": day,
        "suite": suite,
        "tier": policy.tier,
        "traces": len(runs),
        "sampled": len(sampled),
        "flagged": sum(1 for s in sampled if s.flags),
        "thumbs_down": sum(1 for s in sampled if s.trace_id in thumbs_down),
        "alerted_traces": len(alerted),
        "rate": policy.base_rate,
        "estimated_traffic": round(sum(s.weight for s in sampled), 3),
    }


def load_sample(home: Home, day: str) -> list[SampledTrace]:
    """The stored sample of ``day``.

    Raises:
        FileNotFoundError: the day was not sampled yet (materialise ``production_sample``).
    """
    path = sample_path(home, day)
    if not path.exists():
        raise FileNotFoundError(
            f"{path}: day {day} has no production sample; materialise production_sample first"
        )
    body = json.loads(path.read_text())
    return [
        SampledTrace(s["trace_id"], float(s["probability"]), tuple(s["reasons"]), tuple(s["flags"]))
        for s in body["sampled"]
    ]
