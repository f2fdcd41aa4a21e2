"""``detect --build B`` and ``alerts list``: the replay of the detectors and the alert listing.

Contract: ``detect`` over a stored build prints the alerts the live plane raises on the same
spans (same ids); ``--record`` stores them once however often it runs; ``alerts list`` filters
by build and time and prints the contract fields; bad input (an unknown build, a bad
``--since``, bad settings) is one ``error:`` line and exit 2; a state database that cannot be
reached is ours, exit 3.
"""

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli, main
from eval_pipeline.home import current_home
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.realtime.alerts.test_plane import replayed
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

FIELDS = {"alert_id", "detector", "severity", "trace_id", "span_ids", "build", "reason"}


def stored(build: str, *trace_ids: str) -> list:
    rows = [r for t in trace_ids for r in agent_trace_rows(t, tool_error=True)]
    TraceStore(current_home().ensure().store).write_rows(rows, build=build)
    return rows


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_detect_replays_a_stored_build_and_records_its_alerts_once() -> None:
    rows = stored("cand", "a1" * 16, "b2" * 16)
    stored("other", "c3" * 16)
    code, out = invoke("detect", "--build", "cand", "--format", "json")
    assert code == 0
    printed = json.loads(out)
    assert {a["alert_id"] for a in printed} == replayed(rows, "cand")
    assert {a["detector"] for a in printed} == {"tool_error@2"}
    for _ in range(2):
        assert invoke("detect", "--build", "cand", "--record")[0] == 0
    assert invoke("detect", "--build", "other", "--record")[0] == 0
    code, out = invoke("alerts", "list", "--build", "cand", "--format", "json")
    listed = json.loads(out)
    assert code == 0 and len(listed) == 2 and FIELDS | {"detected_at"} <= set(listed[0])
    assert len(json.loads(invoke("alerts", "list", "--format", "json")[1])) == 3
    since = json.loads(invoke("alerts", "list", "--since", "2999-01-01", "--format", "json")[1])
    assert since == []
    code, out = invoke("alerts", "list")
    assert code == 0 and "tool_error@2" in out and "\n3 alert(s)\ndetectors last ran" in out


def test_bad_input_is_one_error_line_and_exit_2(tmp_path: Path) -> None:
    stored("cand", "a1" * 16)
    code, out = invoke("detect", "--build", "nope")
    assert code == 2 and "error: --build nope: no traces stored" in out
    code, out = invoke("alerts", "list", "--since", "yesterday")
    assert code == 2 and "error: --since 'yesterday'" in out
    settings = tmp_path / "detectors.yaml"
    settings.write_text("budgets:\n  max_run_s: -1\n")
    code, out = invoke("detect", "--build", "cand", "--config", str(settings))
    assert code == 2 and "budgets.max_run_s" in out
    code, out = invoke("detectors", "run", "--stream", "http://127.0.0.1:4222")
    assert code == 2 and "error: --stream" in out


def test_an_unreachable_state_database_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EVAL_PIPELINE_STATE_URL", "postgresql+psycopg2://127.0.0.1:1/nothing")
    monkeypatch.setattr(sys, "argv", ["eval-pipeline", "alerts", "list"])
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code == 3
    assert capsys.readouterr().err.startswith("internal error: OperationalError")
