"""A small but real evaluation environment for the Dagster graph tests.

A mini golden dataset (the first items of the shipped ``golden/retail-refunds`` set) is
published in the test's home, a low-tier suite over it is written to a folder named by
``EVAL_PIPELINE_SUITES``, and builds of the sample support agent are registered against it.
"""

from dataclasses import dataclass, replace
from pathlib import Path

import dagster as dg

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.defs.assemble import build_definitions
from eval_pipeline.home import Home, current_home

AGENT = "python:eval_pipeline.sample_agent.app:run_item"
SUITE = """\
suite: mini
risk_tier: low
datasets:
  - name: golden/mini-v1
runs_per_item: 2
metrics:
  - id: tool_correctness
    threshold: 0.5
    max_regression: 0.10
  - id: hallucinated_actions
    threshold: 0.8
    max_regression: 0.05
budgets:
  p95_latency_s: 120
slices: [intent]
"""


@dataclass
class GraphEnv:
    """The home, registry, definitions and an ephemeral Dagster instance of one test."""

    home: Home
    registry: BuildRegistry
    instance: dg.DagsterInstance
    items: tuple[str, ...]

    def register(
        self,
        build: str,
        agent_build: str,
        *,
        runner: str | None = None,
        baseline: str | None = None,
        **params: str,
    ) -> None:
        query = "&".join(f"{k}={v}" for k, v in {"agent_build": agent_build, **params}.items())
        self.registry.register(
            build, suite="mini", baseline=baseline, runner=runner or f"{AGENT}?{query}"
        )

    def definitions(self) -> dg.Definitions:
        return build_definitions()


def make_graph_env(tmp_path: Path, n_items: int = 8) -> GraphEnv:
    """Publish the mini dataset and write the mini suite (EVAL_PIPELINE_SUITES must be set)."""
    home = current_home().ensure()
    shipped = DatasetStore(shipped_datasets_dir()).load("golden/retail-refunds", "v1")
    mini = replace(
        shipped, name="golden/mini", version="v1", items=shipped.items[:n_items], content_hash=""
    )
    DatasetStore(home.datasets).publish(mini)
    suites = tmp_path / "suites"
    suites.mkdir(exist_ok=True)
    (suites / "mini.yaml").write_text(SUITE)
    return GraphEnv(
        home=home,
        registry=BuildRegistry(home.state_url),
        instance=dg.DagsterInstance.ephemeral(),
        items=tuple(item.item_id for item in mini.items),
    )
