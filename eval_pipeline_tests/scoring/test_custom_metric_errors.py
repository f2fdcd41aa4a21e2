"""Broken custom-metric declarations are bad input: exit 2 naming the suite, line and metric.

Contract: a suite whose ``scorer: module:Class`` cannot be imported, is not a class, or does not
implement the Scorer protocol, or whose ``rubric:`` file is missing or invalid, is refused when
the suite is loaded (``metrics list --suite``, ``score``, ``builds register``): one ``error:``
line naming the suite file and line, the field (``metrics[0].scorer``), the metric and what is
wrong (a rubric's own problems by its file, line and field). Nothing is scored.
"""

from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.cli import cli

MODULES = {
    "fine31.py": (
        "from eval_pipeline.scoring.base import ScorerBase\n\n\n"
        "class Fine(ScorerBase):\n"
        '    """A scorer."""\n\n'
        '    metric_id = "fine31"\n\n'
        "    def verdict(self, run, item):\n"
        "        return self.scored(1.0)\n\n\n"
        "class NotAScorer:\n"
        '    """Nothing of the protocol."""\n\n\n'
        "class VersionByProperty:\n"
        '    """The protocol, but its identity only on instances."""\n\n'
        '    id = "fine31"\n'
        '    direction = "higher_is_better"\n'
        "    requires_run = frozenset()\n"
        "    requires_item = frozenset()\n"
        "    needs_judge = False\n"
        "    arguments = {}\n\n"
        "    @property\n"
        "    def version(self):\n"
        "        return 1\n\n"
        "    def score(self, run, item):\n"
        "        raise NotImplementedError\n\n\n"
        "class NoVerdict(ScorerBase):\n"
        '    """Forgot verdict()."""\n\n'
        '    metric_id = "fine31"\n'
    ),
    "raising31.py": "raise RuntimeError('the module is broken')\n",
}
RUBRIC = """\
version: 1
description: d
fields: [question, answer]
criteria: [c]
scale: {min: 1, max: 5}
pass_threshold: 4
"""

CASES = {
    "module missing": ('scorer: "nomodule31:X"', "module 'nomodule31' of nomodule31:X not found"),
    "class missing": ('scorer: "fine31:Missing"', "has no class 'Missing'"),
    "not a scorer": ('scorer: "fine31:NotAScorer"', "does not implement the Scorer protocol"),
    "identity on instances": (
        'scorer: "fine31:VersionByProperty"',
        "VersionByProperty.version must be a class attribute",
    ),
    "no verdict": ('scorer: "fine31:NoVerdict"', "does not implement verdict()"),
    "import fails": ('scorer: "raising31:X"', "RuntimeError: the module is broken"),
    "not an entry point": ('scorer: "fine31.Fine"', "is not module:Class"),
    "rubric missing": ("rubric: rubrics/none.yaml", "none.yaml"),
    "scale upside down": ("rubric: rubrics/scale.yaml", "scale.yaml:5: scale: Value error"),
    "unknown rubric field": ("rubric: rubrics/field.yaml", "field.yaml:3: fields.required[1]"),
    "threshold off scale": ("rubric: rubrics/threshold.yaml", "pass_threshold: 9 is outside"),
    "unknown offline task": ("rubric: rubrics/task.yaml", "offline_task: unknown task 'vibes'"),
    "both kinds": ('scorer: "fine31:Fine", rubric: rubrics/scale.yaml', "not both"),
}
RUBRICS = {
    "scale.yaml": RUBRIC.replace("{min: 1, max: 5}", "{min: 5, max: 1}"),
    "field.yaml": RUBRIC.replace("[question, answer]", "[question, answr]"),
    "threshold.yaml": RUBRIC.replace("pass_threshold: 4", "pass_threshold: 9"),
    "task.yaml": RUBRIC + "offline_task: vibes\n",
}


def _project(folder: Path, declaration: str, metric_id: str = "bad31") -> Path:
    for name, text in MODULES.items():
        (folder / name).write_text(text)
    (folder / "rubrics").mkdir(exist_ok=True)
    for name, text in RUBRICS.items():
        (folder / "rubrics" / name).write_text(text)
    suite = folder / "broken.yaml"
    suite.write_text(
        "suite: broken\nrisk_tier: low\nmetrics:\n"
        f"  - {{id: {metric_id}, {declaration}, threshold: 0.5, max_regression: 0.1}}\n"
    )
    return suite


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_broken_declaration_exits_2_naming_suite_line_field_and_metric(
    case: str, tmp_path: Path
) -> None:
    declaration, expected = CASES[case]
    suite = _project(tmp_path, declaration)
    result = CliRunner().invoke(cli, ["metrics", "list", "--suite", str(suite)])
    assert result.exit_code == 2, result.output
    message = result.stderr
    assert message.startswith("error: ") and f"{suite}:4: metrics[0]." in message
    assert "'bad31'" in message and expected in message, message
    assert "unknown metric id" not in message  # the declaration's own problem, said once


def test_a_custom_metric_may_not_take_a_built_in_id(tmp_path: Path) -> None:
    suite = _project(tmp_path, 'scorer: "fine31:Fine"', metric_id="tool_correctness")
    result = CliRunner().invoke(cli, ["metrics", "list", "--suite", str(suite)])
    assert result.exit_code == 2 and "'tool_correctness' is built in" in result.stderr


def test_score_and_register_refuse_the_suite_too(tmp_path: Path) -> None:
    suite = _project(tmp_path, 'scorer: "fine31:NotAScorer"')
    for args in (
        ["score", "--suite", str(suite), "--build", "b"],
        ["builds", "register", "b", "--suite", str(suite)],
    ):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, result.output
        assert f"{suite}:4: metrics[0].scorer" in result.stderr, result.stderr
