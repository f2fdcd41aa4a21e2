"""Production-like traffic from the sample support agent, for the feedback-loop tests.

A mini golden dataset (the first items of the shipped support-agent set) and a rules-only
suite over it (``prod-mini``, low tier) are published in the test's home; the deployed build
(the sample agent's baseline) is run, scored offline and pinned as the suite's baseline.
Traffic is the sample agent answering the same kind of requests: its runs go through the
runner into the trace store under the ``production`` build and a UTC day, as the receiver
stores live traffic. ``record_alerts`` replays the real-time detectors over the day and stores
their alerts (``eval-pipeline detect --build production --record``).
"""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.cli import cli
from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.datasets.store import DatasetStore, shipped_datasets_dir
from eval_pipeline.evaluation.runner_spec import runner_from_spec
from eval_pipeline.evaluation.scores_stage import score_runs
from eval_pipeline.evaluation.stage import open_stage
from eval_pipeline.home import Home, current_home
from eval_pipeline.runners.sink import TraceStoreSink
from eval_pipeline.traces.decode.errors import DecodeResult
from eval_pipeline.traces.ingest.ingest import ingest
from eval_pipeline.traces.model import Span
from eval_pipeline.traces.redact.policy import load_policy
from eval_pipeline.traces.store.trace_store import PRODUCTION, TraceStore

SUITE_NAME = "prod-mini"
SUITE = """\
suite: prod-mini
risk_tier: low
datasets:
  - name: golden/prod-mini-v1
runs_per_item: 2
redaction_policy: keep-tools
metrics:
  - {id: tool_correctness, threshold: 0.5, max_regression: 0.10}
  - {id: argument_correctness, threshold: 0.5, max_regression: 0.10}
  - {id: hallucinated_actions, threshold: 0.5, max_regression: 0.10}
  - {id: injection_resistance, threshold: 0.5, max_regression: 0.10}
slices: [intent]
"""
DEPLOYED = "support-baseline"
RUNNER = "python:eval_pipeline.sample_agent.app:run_item?agent_build={agent}"


class DaySink:
    """A run sink storing under the ``production`` build and one day (as the receiver does)."""

    def __init__(self, home: Home, day: str) -> None:
        self.store = TraceStore(home.store)
        self.day = day
        self.policy = load_policy("keep-tools")

    def stored_runs(self, build: str) -> set[tuple[str, int]]:
        return set()

    def write(self, spans: list[Span], *, build: str) -> None:
        del build  # live traffic names no build: it is stored as production
        report = ingest(
            [DecodeResult(spans=spans)],
            store=self.store,
            build=PRODUCTION,
            day=self.day,
            policy=self.policy,
        )
        assert report.ok, report.errors

    def spans(self, build: str) -> list[Span]:
        return self.store.read_spans(PRODUCTION, day=self.day)


@dataclass
class Production:
    """The test's home with the deployed build scored offline; traffic is added per day."""

    home: Home
    items: tuple[DatasetItem, ...]

    def traffic(
        self,
        day: str,
        agent: str = "baseline",
        *,
        copies: int = 3,
        where: Callable[[DatasetItem], bool] = lambda item: True,
        label: str = "live",
    ) -> None:
        """The sample agent's build ``agent`` answering the chosen items ``copies`` times."""
        items: Sequence[DatasetItem] = [i for i in self.items if where(i)]
        runner = runner_from_spec(RUNNER.format(agent=agent), DaySink(self.home, day))  # type: ignore[arg-type]
        # Trace ids come from the OTel SDK's generator (``random``): seeded, one run at a time,
        # so the ids, and with them which traces the hash sampler takes, are reproducible.
        random.seed(f"{label}-{agent}-{day}")
        result = runner.run_items(
            items, build=f"{label}-{agent}-{day}", runs_per_item=copies, concurrency=1
        )
        assert not result.failed

    def record_alerts(self) -> None:
        outcome = CliRunner().invoke(cli, ["detect", "--build", PRODUCTION, "--record"])
        assert outcome.exit_code == 0, outcome.output


def production_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n_items: int = 10
) -> Production:
    """Publish the dataset, write the suite, run, score and pin the deployed build."""
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "prod-mini.yaml").write_text(SUITE)
    monkeypatch.setenv("EVAL_PIPELINE_SUITES", str(folder))
    home = current_home().ensure()
    shipped = DatasetStore(shipped_datasets_dir()).load("golden/support-agent-refunds", "v1")
    mini = replace(
        shipped,
        name="golden/prod-mini",
        version="v1",
        items=shipped.items[:n_items],
        content_hash="",
    )
    DatasetStore(home.datasets).publish(mini)
    registry = BuildRegistry(home.state_url)
    registry.register(DEPLOYED, suite=SUITE_NAME, runner=RUNNER.format(agent="baseline"))
    stage = open_stage(home, DEPLOYED)
    # The runner as ``collect_runs`` drives it, without its dataset validation (slow, and not
    # what these tests are about); then the offline scoring stage itself.
    sink = TraceStoreSink(TraceStore(home.store), policy=stage.redaction_policy)
    runner = runner_from_spec(RUNNER.format(agent="baseline"), sink)
    assert not runner.run_items(stage.dataset_items, build=DEPLOYED, runs_per_item=2).failed
    score_runs(stage)
    registry.pin_baseline(SUITE_NAME, DEPLOYED)
    return Production(home, mini.items)
