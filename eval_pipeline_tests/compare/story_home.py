"""A real home to compare in: the sample agent's baseline and a seeded defect, run and scored.

The small judge-free suite (``cli.small_suite``, 4 items x 2 runs) with the baseline pinned;
``support-defect-claims-unissued-refunds`` claims refunds it never issued, so its
``hallucinated_actions`` regresses on the refund items. Built once per test module (about 15 s
on 2 cores): tests point ``EVAL_PIPELINE_HOME`` at it and must not write into it.
"""

from dataclasses import dataclass
from pathlib import Path

import pytest

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.defects.story import runner_spec, sample_agent_builds
from eval_pipeline.evaluation.stages import collect_runs, decide_gate, open_stage, score_runs
from eval_pipeline.home import Home, current_home
from eval_pipeline_tests.cli.small_suite import small_suite

BASELINE, _IMPROVED, _DEFECTS, _ = sample_agent_builds()
DEFECT = next(d for d in _DEFECTS if d.target_metric == "hallucinated_actions")


@dataclass(frozen=True)
class StoryHome:
    """The home's folder, its suite file and the two builds."""

    root: Path
    suite: Path
    baseline: str = BASELINE.build
    defect: str = DEFECT.build

    def home(self) -> Home:
        """The home (``EVAL_PIPELINE_HOME`` must point at ``root``)."""
        return current_home()


def build_story_home(folder: Path, items: int = 4) -> StoryHome:
    """Run, score and gate the baseline (pinned) and the defect in a home under ``folder``."""
    root = folder / "home"
    root.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("EVAL_PIPELINE_HOME", str(root))
        patch.delenv("EVAL_PIPELINE_STATE_URL", raising=False)
        suite = small_suite(folder, "story", items=items)
        home = current_home().ensure()
        registry = BuildRegistry(home.state_url)
        for seeded in (BASELINE, DEFECT):
            registry.register(seeded.build, suite=str(suite), runner=runner_spec(seeded))
        registry.pin_baseline("story", BASELINE.build)
        for seeded in (BASELINE, DEFECT):
            stage = open_stage(home, seeded.build)
            collect_runs(stage)
            score_runs(stage)
            decide_gate(stage)
    return StoryHome(root, suite)
