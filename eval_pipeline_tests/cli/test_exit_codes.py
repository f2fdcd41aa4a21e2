"""Exit codes CI can read (docs/DESIGN.md section 9): 0 pass, 1 a failing gate, 2 bad input, 3 ours.

The console entry point (``eval_pipeline.cli.main``) turns an exception nobody anticipated
into one ``internal error: ...`` line and exit 3, so CI can tell "the gate blocked" (1) and
"the input is wrong" (2) from "the tool broke" (3). A damaged score store is such a case: it is
the tool's own data, not the user's input.
"""

import sys
from pathlib import Path

import pytest

from eval_pipeline.cli import main
from eval_pipeline.home import current_home
from eval_pipeline.scoring.score import Score
from eval_pipeline.scoring.store import ScoreStore


def _main(monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["eval-pipeline", *args])
    with pytest.raises(SystemExit) as stopped:
        main()
    code = stopped.value.code
    return code if isinstance(code, int) else (0 if code is None else 1)


def test_an_internal_error_exits_3_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ScoreStore(current_home().ensure().store)
    store.write("b1", [Score("m", 1.0, "scored", "m", 1, item_id="i", run_index=0)])
    (store.folder("b1") / "scores.parquet").write_bytes(b"not a parquet file")
    assert _main(monkeypatch, "scores", "--build", "b1") == 3
    err = capsys.readouterr().err
    assert err.startswith("internal error: ") and "Traceback" not in err


def test_bad_input_still_exits_2_and_usage_2(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _main(monkeypatch, "scores", "--build", "never-scored") == 2
    assert "error: build never-scored" in capsys.readouterr().err
    assert _main(monkeypatch, "gate") == 2


def test_success_exits_0(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _main(monkeypatch, "--version") == 0
