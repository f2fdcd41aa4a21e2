r"""File names made from build names stay inside their folder (issue 30).

Build names come from trace data and files. ``gate`` wrote ``<home>/store/gates/<build>.json``
and ``report`` ``<out>/<build>.html`` as they were named, so a build named
``../../../escaped/x`` wrote outside the home, creating the folders. Every file named after a
build takes ``stored.build_file_name``: the name percent-encoded as the store's build folders
are (``/``, ``\``, ``%`` and NUL escaped, a leading dot too), shortened with a digest past what
a file system takes, so it is one plain file in its folder. Ordinary names are unchanged.
"""

import json
import sys
from pathlib import Path

import pytest

from eval_pipeline.cli import main
from eval_pipeline.evaluation.stages import decide_gate, open_stage
from eval_pipeline.home import current_home
from eval_pipeline.report.stored import build_file_name, gate_report_path, plot_path
from eval_pipeline_tests.evaluation.test_trust import SUITE, _publish_broken, _store
from eval_pipeline_tests.report.gate_reports import real_gate_report

ESCAPING = "../../../escaped/x"
HOSTILE = [ESCAPING, "..", ".", "/etc/passwd", "a\\..\\b", "nul\0x", ".hidden", "é" * 200, "%2F"]


@pytest.mark.parametrize("build", HOSTILE)
def test_a_build_file_name_is_one_plain_file_in_its_folder(build: str, tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    for suffix in (".json", ".html", ".distributions.png"):
        name = build_file_name(build, suffix)
        assert name.endswith(suffix) and not name.startswith(".")
        assert "/" not in name and "\\" not in name and "\0" not in name
        assert len(name.encode()) <= 255
        (folder / name).write_text("x")  # one file, directly in the folder
        assert [p.name for p in folder.iterdir()] == [name]
        (folder / name).unlink()
    assert len({build_file_name(b, ".json") for b in HOSTILE}) == len(HOSTILE)


def test_ordinary_build_names_keep_their_file_names() -> None:
    for build in ("cand", "baseline-1.2", "sample_agent_v2"):
        assert build_file_name(build, ".json") == f"{build}.json"


def test_gate_and_report_of_an_escaping_build_write_inside_their_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = current_home().ensure()
    (tmp_path / "broken.yaml").write_text(SUITE, encoding="utf-8")
    item = _publish_broken(home)
    for build in ("b0", ESCAPING):
        _store(home, build, item)
    decide_gate(open_stage(home, ESCAPING, tmp_path / "broken.yaml", baseline="b0"))
    gates = home.store / "gates"
    assert gate_report_path(home, ESCAPING).parent == gates
    assert plot_path(home, ESCAPING, "forest").parent == gates
    assert json.loads(gate_report_path(home, ESCAPING).read_text())["build"] == ESCAPING
    assert not (home.root / "escaped").exists() and not (home.root.parent / "escaped").exists()

    report = {**real_gate_report(), "build": ESCAPING, "baseline": "b0"}
    gate_report_path(home, ESCAPING).write_text(json.dumps(report))
    out = tmp_path / "deep" / "er" / "out"
    monkeypatch.setattr(
        sys, "argv", ["eval-pipeline", "report", "--build", ESCAPING, "--out", str(out)]
    )
    with pytest.raises(SystemExit) as stopped:
        main()
    assert stopped.value.code in (0, None)
    written = Path(capsys.readouterr().out.strip())
    assert written.parent == out and written.name == build_file_name(ESCAPING, ".html")
    assert not (tmp_path / "deep" / "escaped").exists() and not (tmp_path / "escaped").exists()
