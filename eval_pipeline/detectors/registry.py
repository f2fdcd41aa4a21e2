"""The detector set both planes run, built in one place."""

from collections.abc import Sequence

from eval_pipeline.detectors.flag import Detector, Flag
from eval_pipeline.detectors.trace_detectors import (
    ErrorStatusDetector,
    IncompleteTraceDetector,
    LongTrajectoryDetector,
    RepeatedCallDetector,
    ToolErrorDetector,
)
from eval_pipeline.traces.model import AgentRun


def default_detectors() -> tuple[Detector, ...]:
    """Every built-in detector with its default limits."""
    return (
        ToolErrorDetector(),
        IncompleteTraceDetector(),
        LongTrajectoryDetector(),
        RepeatedCallDetector(),
        ErrorStatusDetector(),
    )


def detect(run: AgentRun, detectors: Sequence[Detector] | None = None) -> list[Flag]:
    """Every flag the detectors raise on ``run``, in detector order."""
    return [
        flag for detector in (detectors or default_detectors()) for flag in detector.detect(run)
    ]
