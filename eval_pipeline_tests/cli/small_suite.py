"""A small judge-free suite over the sample agent's dataset, for CLI tests that run builds."""

from dataclasses import replace
from pathlib import Path

from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.home import current_home

METRICS = ("tool_correctness", "argument_correctness", "hallucinated_actions")
SUITE = """\
suite: {name}
risk_tier: low
datasets:
  - name: golden/{name}-v1
runs_per_item: 2
redaction_policy: keep-tools
metrics:
  - {{id: tool_correctness, threshold: 0.5, max_regression: 0.0}}
  - {{id: argument_correctness, threshold: 0.5, max_regression: 0.10}}
  - {{id: hallucinated_actions, threshold: 0.5, max_regression: 0.10}}
budgets: {{p95_latency_s: 60}}
"""


def small_suite(folder: Path, name: str, items: int) -> Path:
    """Publish ``golden/<name>@v1`` (the first ``items`` sample items) and write its suite."""
    shipped = DatasetStore(shipped_datasets_dir()).load("golden/support-agent-refunds", "v1")
    small = replace(
        shipped, name=f"golden/{name}", version="v1", items=shipped.items[:items], content_hash=""
    )
    DatasetStore(current_home().ensure().datasets).publish(small)
    path = folder / f"{name}.yaml"
    path.write_text(SUITE.format(name=name))
    return path
