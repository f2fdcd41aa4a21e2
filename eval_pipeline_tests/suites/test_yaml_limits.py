"""Configuration YAML is bounded and plain: bad files are bad input, never a crash.

Every configuration file (suites, risk tiers, prices, redaction policies) is read by
``suites.yaml_source.load_yaml``. An alias bomb ("billion laughs") is refused once its
expansion passes a node budget, before it can take the machine's memory; a file over the size
limit is refused unread; a language-specific tag (``!!python/name:os.system``) is refused. Each
error names the file and the line; through the CLI it exits 2.
"""

from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli
from eval_pipeline.suites.config import SuiteError, load_suite
from eval_pipeline.suites.yaml_source import MAX_BYTES, MAX_NODES, YamlSourceError, load_yaml

SUITE = """\
suite: limits
risk_tier: low
metrics:
  - {id: tool_correctness, threshold: 0.5, max_regression: 0.1}
"""


def _bomb(levels: int = 9, width: int = 9) -> str:
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        refs = ", ".join([f"*l{level - 1}"] * width)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return SUITE + "\n".join(lines) + "\n"


def test_an_alias_bomb_is_refused_within_the_node_budget(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb(), encoding="utf-8")
    with pytest.raises(YamlSourceError, match=rf"bomb.yaml:\d+: .*more than {MAX_NODES:,} values"):
        load_yaml(path)


def test_shared_anchors_within_the_budget_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "anchors.yaml"
    path.write_text("base: &b {threshold: 0.5}\nx: *b\ny: *b\n", encoding="utf-8")
    assert load_yaml(path).data["y"] == {"threshold": 0.5}


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text(SUITE + "# " + "x" * MAX_BYTES + "\n", encoding="utf-8")
    with pytest.raises(YamlSourceError, match=r"huge.yaml:1: .*bytes; the limit is"):
        load_yaml(path)


@pytest.mark.parametrize(
    "tagged",
    ["risk_tier: !!python/name:os.system low", "risk_tier: !!python/object/apply:os.system [ls]"],
)
def test_a_language_specific_tag_is_refused(tmp_path: Path, tagged: str) -> None:
    path = tmp_path / "tagged.yaml"
    path.write_text(SUITE.replace("risk_tier: low", tagged), encoding="utf-8")
    with pytest.raises(SuiteError, match=r"tagged.yaml:2: .*tag .*python"):
        load_suite(path)


def test_the_cli_exits_2_on_an_alias_bomb(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb(), encoding="utf-8")
    scores = tmp_path / "scores.csv"
    scores.write_text("item_id,run_index,metric_id,value\ni,0,tool_correctness,1\n")
    result = CliRunner().invoke(
        cli, ["gate", "--suite", str(path), "--candidate-scores", str(scores), "--no-baseline"]
    )
    assert result.exit_code == 2, result.output
    assert "bomb.yaml" in result.output and "error:" in result.output
