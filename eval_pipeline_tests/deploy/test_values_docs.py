"""The chart's README values table is generated from values.yaml's `# --` comments."""

from pathlib import Path

from eval_pipeline_tests.deploy.chart import CHART, values_docs


def test_readme_table_matches_values() -> None:
    docs = values_docs()
    assert docs.undocumented(CHART / "values.yaml") == []
    assert (CHART / "README.md").read_text() == docs.render_readme(CHART), (
        "stale: python deploy/helm/values_docs.py deploy/helm/eval-pipeline"
    )


def test_a_value_without_a_comment_is_reported(tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        "image:\n  # -- The tag.\n  tag: v1\n  pullPolicy: Always\n"
        "# -- All of it.\n# @default -- the NATS defaults\nnats:\n  config: {a: 1}\n"
    )
    docs = values_docs()
    assert docs.undocumented(values) == ["image.pullPolicy"]
    table = docs.values_table(values)
    assert '| image.tag | string | `"v1"` | The tag. |' in table
    assert "| nats | object | the NATS defaults | All of it. |" in table


def test_the_check_fails_on_a_stale_table(tmp_path: Path) -> None:
    chart = tmp_path / "c"
    chart.mkdir()
    (chart / "values.yaml").write_text("# -- Replicas.\nreplicas: 2\n")
    (chart / "README.md").write_text("# c\n<!-- values:begin -->\n<!-- values:end -->\n")
    docs = values_docs()
    assert docs.main(["--check", str(chart)]) == 1
    assert docs.main([str(chart)]) == 0
    assert docs.main(["--check", str(chart)]) == 0
    assert "| replicas | int | `2` | Replicas. |" in (chart / "README.md").read_text()
