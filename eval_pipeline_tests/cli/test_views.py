"""What the CLI prints is readable in a pipe and complete (issue 31's views).

Contract: ``traces list`` shows start, duration, tokens, error and build columns and filters by
``--since``, ``--errors`` and ``--tool``; a table printed to a pipe never wraps or folds a cell
(a ``sha256:`` content hash stays on one line with its row, the title on one line); ``scores
--format csv`` writes an empty cell where a value is missing, never ``nan``, and ``--format
json`` is strict JSON; the gate's text report names candidate and baseline on its first line.
"""

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from eval_pipeline.cli import cli
from eval_pipeline.cli.output import print_table
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.cli.small_suite import small_suite
from eval_pipeline_tests.realtime.stream.builders import agent_trace_rows

DAY1 = 1_790_000_000_000_000_000  # 2026-09-21T14:13:20Z
DAY2 = DAY1 + 10 * 86_400 * 10**9  # 2026-10-01


def _invoke(*args: object) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


def _store_runs() -> None:
    rows = [
        *agent_trace_rows("a1" * 16, start=DAY1),
        *agent_trace_rows("b2" * 16, start=DAY2, tool_error=True, tools=("lookup", "refund")),
        *agent_trace_rows("c3" * 16, start=DAY2, tools=("refund",)),
    ]
    TraceStore(current_home().ensure().store).write_rows(rows, build="prod")


def _listed(*args: str) -> set[str]:
    rows = json.loads(_invoke("traces", "list", "--format", "json", *args).stdout)
    return {r["trace_id"][:2] for r in rows}


def test_traces_list_shows_start_duration_tokens_error_and_filters() -> None:
    _store_runs()
    text = _invoke("traces", "list").stdout
    header = text.splitlines()[0].split()
    for column in ("start", "duration", "tokens", "error", "build", "tools"):
        assert column in header
    assert "2026-09-21T14:13:20" in text and "execute_tool refund: upstream timeout" in text
    assert "100/20" in text  # tokens in/out
    assert _listed() == {"a1", "b2", "c3"}
    assert _listed("--since", "2026-09-25") == {"b2", "c3"}
    assert _listed("--errors") == {"b2"}
    assert _listed("--tool", "refund") == {"b2", "c3"}
    assert _listed("--tool", "refund", "--errors", "--since", "2026-09-25") == {"b2"}
    bad = CliRunner().invoke(cli, ["traces", "list", "--since", "yesterday"])
    assert bad.exit_code == 2 and "--since 'yesterday'" in bad.stderr


def test_a_table_in_a_pipe_never_folds_a_cell(capsys: pytest.CaptureFixture[str]) -> None:
    digest = "sha256:" + "0123456789abcdef" * 4
    long_text = "a reason that goes on " * 12
    print_table(
        ("name", "hash", "reason"),
        [("golden/one", digest, long_text.strip())],
        title="a title long enough to be wrapped at the table's width by default " * 3,
    )
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("a title") and lines[0].rstrip().endswith("by default")
    row = next(line for line in lines if "golden/one" in line)
    assert digest in row and long_text.strip() in row


def test_datasets_show_keeps_the_content_hash_whole(tmp_path: Path) -> None:
    small_suite(tmp_path, "hashes", items=2)
    text = _invoke("datasets", "show", "golden/hashes", "v1").stdout
    title = text.splitlines()[0]
    assert title.startswith("golden/hashes@v1") and len(title.split("sha256:")[1]) == 64


def test_scores_csv_has_empty_cells_not_nan_and_json_is_strict() -> None:
    ScoreStore(current_home().ensure().store).write(
        "b1",
        [
            Score(
                "tool_correctness", 1.0, "scored", "tool_correctness", 1, item_id="i", run_index=0
            ),
            Score(
                "tool_correctness",
                None,
                "error",
                "tool_correctness",
                1,
                item_id="i",
                run_index=1,
                reason="boom",
            ),
        ],
    )
    csv_text = _invoke("scores", "--build", "b1", "--format", "csv").stdout
    assert "nan" not in csv_text.lower()
    header, _, errored = csv_text.splitlines()
    assert errored.split(",")[header.split(",").index("value")] == ""

    def refuse(constant: str) -> float:
        raise AssertionError(f"{constant} in JSON")

    rows = json.loads(_invoke("scores", "--build", "b1", "--format", "json").stdout,
                      parse_constant=refuse)  # fmt: skip
    assert rows[1]["value"] is None and not math.isnan(rows[0]["value"])
