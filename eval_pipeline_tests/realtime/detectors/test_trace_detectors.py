"""The built-in detectors on real traces and on runs made to fail.

Contract: the eight real OpenAI Agents traces raise no flag; the real chat-only traces (no
``invoke_agent`` root) are flagged incomplete, and the provider's 404 is flagged as a failed
model call; a failed tool call, a looping agent, an overlong trajectory and a run the runner
marked failed each raise their detector's flag with the spans at fault.
"""

from pathlib import Path

from eval_pipeline.realtime.detectors.registry import detect
from eval_pipeline.realtime.detectors.trace_detectors import LongTrajectoryDetector
from eval_pipeline.traces.decode.otlp import decode_otlp
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.normalise.normaliser import normalise_spans
from eval_pipeline.traces.runs.assemble import assemble_runs
from eval_pipeline_tests.conftest import DATA_DIR
from eval_pipeline_tests.scoring.builders import call, make_run

AGENTS = DATA_DIR / "otel" / "openai_agents__otel_contrib_instrumentation"
CHAT = DATA_DIR / "otel" / "openai_chat__otel_contrib_openai_v2"


def runs_of(path: Path) -> list[AgentRun]:
    result = decode_otlp(path.read_bytes(), content_type="application/json", source=str(path))
    return assemble_runs(normalise_spans(result.spans))


def ids(run: AgentRun) -> set[str]:
    return {flag.detector_id for flag in detect(run)}


def test_healthy_real_agent_traces_raise_nothing() -> None:
    runs = [run for path in sorted(AGENTS.glob("*.otlp.json")) for run in runs_of(path)]
    assert len(runs) == 8
    assert [detect(run) for run in runs] == [[] for _ in runs]


def test_real_chat_traces_are_incomplete_and_the_404_is_a_failed_model_call() -> None:
    (run,) = runs_of(CHAT / "test_chat_completion_404.otlp.json")
    assert ids(run) == {"incomplete_trace@1", "error_status@2"}
    (ok,) = runs_of(CHAT / "test_chat_completion_with_content.otlp.json")
    assert ids(ok) == {"incomplete_trace@1"}


def test_tool_errors_loops_and_long_runs_are_flagged_with_their_spans() -> None:
    failing = make_run([call("lookup", {"id": 1}), call("refund", {"id": 1}, error="timeout")])
    (flag,) = [f for f in detect(failing) if f.detector_id == "tool_error@2"]
    assert "refund failed" in flag.message and flag.span_ids == (failing.tool_calls[1].span_id,)
    looping = make_run([call("lookup", {"id": 1}) for _ in range(5)])
    assert "repeated_call@1" in ids(looping)
    long_run = make_run([call(f"step_{i}", {}) for i in range(6)])
    assert LongTrajectoryDetector(max_tool_calls=5).detect(long_run)
    assert not LongTrajectoryDetector(max_tool_calls=6).detect(long_run)
