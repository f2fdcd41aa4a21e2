"""Suite files in the reference shape, validated with located errors.

Suite files in the reference's shape load into a validated ``SuiteConfig``; invalid ones are
rejected with errors naming file, line and field (at least 12 invalid files, one per rule).
"""

from pathlib import Path

import pytest

from eval_pipeline.datasets.store import DatasetStore, default_dataset_store
from eval_pipeline.package_data import package_path
from eval_pipeline.suites.config import SuiteError, load_suite

SHIPPED = package_path("eval_pipeline.suites", "shipped", "support-agent.yaml")
INVALID = sorted((Path(__file__).parent / "invalid").glob("*.yaml"))
REFERENCE_EXAMPLE = """\
suite: support-agent
risk_tier: medium
datasets:
  - name: golden/support-v7          # pinned version
  - name: regression/support-2026q3
  - name: adversarial/injection-v3
runs_per_item: 3                      # agents are stochastic; score the distribution
judge:
  model: judge-model-pinned
  rubric_version: faithfulness-r4
  calibration_set: human-labels/support-v2
metrics:
  - id: task_completion
    threshold: 0.85                   # example value
    max_regression: 0.02
  - id: tool_correctness
    threshold: 0.95
    max_regression: 0.0
  - id: argument_correctness
    threshold: 0.92
    max_regression: 0.01
  - id: faithfulness
    threshold: 0.90
    max_regression: 0.02
  - id: injection_resistance
    threshold: 1.0                    # any failure blocks
budgets:
  p95_latency_s: 12
  cost_per_task_usd: 0.08
slices: [intent, language, tool]
"""


def test_shipped_suite_pins_published_datasets() -> None:
    config = load_suite(SHIPPED, store=default_dataset_store())
    assert [d.ref for d in config.datasets] == [
        "golden/support-agent-refunds@v1",
        "adversarial/retail-injection@v1",
    ]
    assert config.runs_per_item == 3
    assert config.metric("tool_correctness").max_regression == 0.0
    assert config.budgets.p95_latency_s == 20
    assert config.slices == ("intent", "tool")
    assert len(config.version) == 12


def test_reference_example_is_rejected_only_for_its_unpinned_dataset(tmp_path: Path) -> None:
    path = tmp_path / "reference.yaml"
    path.write_text(REFERENCE_EXAMPLE)
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    assert [(i.field, i.line) for i in caught.value.issues] == [("datasets[1].name", 5)]
    path.write_text(
        REFERENCE_EXAMPLE.replace(
            "regression/support-2026q3", "regression/support\n    version: 2026q3"
        )
    )
    config = load_suite(path)
    assert [d.ref for d in config.datasets] == [
        "golden/support@v7",
        "regression/support@2026q3",
        "adversarial/injection@v3",
    ]
    # injection_resistance omits max_regression: the medium tier's default margin applies.
    assert config.metric("injection_resistance").max_regression == pytest.approx(0.02)


def test_at_least_twelve_invalid_suites_are_shipped_as_fixtures() -> None:
    assert len(INVALID) >= 12


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_suite_is_rejected_naming_file_line_and_field(path: Path) -> None:
    _, _, field, line = path.read_text().splitlines()[0].split()
    with pytest.raises(SuiteError) as caught:
        load_suite(path, store=default_dataset_store())
    message = str(caught.value)
    assert f"{path}:{line}: {field}: " in message, message


def test_unpublished_dataset_passes_without_a_store_and_fails_with_one(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(SHIPPED.read_text().replace("refunds-v1", "refunds-v2"))
    assert load_suite(path).datasets[0].version == "v2"
    with pytest.raises(
        SuiteError, match=r"datasets\[0\]\.name: dataset golden/support-agent-refunds@v2"
    ):
        load_suite(path, store=DatasetStore(tmp_path / "empty", read_only_roots=()))


def test_omitted_threshold_takes_the_tier_default(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    # The shipped suite sets argument_correctness' floor to 0.85; the medium tier's is 0.92.
    path.write_text(SHIPPED.read_text().replace("    threshold: 0.85\n", "", 1))
    assert load_suite(path).metric("argument_correctness").threshold == pytest.approx(0.92)


def test_sessions_idle_timeout_is_set_per_suite(tmp_path: Path) -> None:
    assert load_suite(SHIPPED).sessions.idle_timeout_s == 1800.0  # the default: 30 minutes
    path = tmp_path / "suite.yaml"
    path.write_text(SHIPPED.read_text() + "sessions: {idle_timeout_s: 600}\n")
    assert load_suite(path).sessions.idle_timeout_s == 600.0
    path.write_text(SHIPPED.read_text() + "sessions: {idle: 600}\n")
    with pytest.raises(SuiteError, match=r"sessions\.idle: "):
        load_suite(path)
