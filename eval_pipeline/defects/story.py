"""The sample agent's story: baseline, improved candidate, A/A control and seeded defects.

The story's builds are defined here, once (``sample_agent_builds``): the demo registers the
same builds and evaluates them through the asset graph, and ``eval-pipeline defects`` through
the evaluation stages directly. Both go through ``evaluation`` (the only orchestrator): the
build is registered with its runner and baseline, then run, scored and gated by
``collect_runs``, ``score_runs`` and ``decide_gate``, so a build gets the same runs, score
rows and gate report whichever path evaluated it, and is run only once per home (runs are
resumable: stored runs are not redone).
"""

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.defects.validate import SeededBuild, ValidationReport, validate_defects
from eval_pipeline.evaluation.stage import Scope, Stage, open_stage
from eval_pipeline.home import Home

SAMPLE_SUITE = "support-agent"
SAMPLE_RUNNER = "python:eval_pipeline.sample_agent.app:run_item?agent_build={agent_build}"
BUILD_PREFIX = "support-"
AA_SUFFIX = "-aa"

Progress = Callable[[str], None]
"""Receives one line per step (the CLI prints it; quiet callers pass nothing)."""


def sample_agent_builds() -> tuple[SeededBuild, SeededBuild, tuple[SeededBuild, ...], SeededBuild]:
    """(baseline, improved candidate, seeded defects, A/A control) of the sample agent."""
    from eval_pipeline.sample_agent.builds import BASELINE, DEFECTS, IMPROVED

    def seeded(
        config: Any, build: str | None = None, description: str | None = None
    ) -> SeededBuild:
        return SeededBuild(
            build or BUILD_PREFIX + config.name,
            {"agent_build": config.name},
            config.target_metric,
            description or config.description,
        )

    aa = seeded(
        BASELINE,
        BUILD_PREFIX + BASELINE.name + AA_SUFFIX,
        "A/A control: the baseline rerun with new seeds",
    )
    return seeded(BASELINE), seeded(IMPROVED), tuple(seeded(d) for d in DEFECTS), aa


def story_builds(
    include_defects: bool = True, *, include_control: bool = True
) -> tuple[SeededBuild, ...]:
    """The story's builds, baseline first; the A/A control (only with the defects) last."""
    baseline, candidate, defects, aa = sample_agent_builds()
    tail = (*defects, *((aa,) if include_control else ())) if include_defects else ()
    return (baseline, candidate, *tail)


def runner_spec(seeded: SeededBuild) -> str:
    """The runner that executes a story build: the sample agent in process."""
    return SAMPLE_RUNNER.format(agent_build=seeded.params["agent_build"])


def register_story(
    home: Home, builds: tuple[SeededBuild, ...], suite_ref: str | Path = SAMPLE_SUITE
) -> str:
    """Register the story's builds with their runners, pin the first as the suite's baseline.

    Returns the suite's name.
    """
    from eval_pipeline.suites.config import load_suite
    from eval_pipeline.suites.locate import locate_suite

    suite = load_suite(locate_suite(str(suite_ref)))
    registry = BuildRegistry(home.ensure().state_url)
    baseline = builds[0].build
    for seeded in builds:
        registry.register(
            seeded.build,
            suite=str(suite_ref),
            baseline=None if seeded.build == baseline else baseline,
            runner=runner_spec(seeded),
        )
    registry.pin_baseline(suite.suite, baseline)
    return suite.suite


@dataclass(frozen=True)
class BuildEvaluation:
    """What evaluating one build made: its runs, its scores and (if gated) its gate outcome."""

    runs: Any
    scores: Any
    outcome: Any | None


def evaluate_build(
    stage: Stage, *, gate: bool = True, progress: Progress | None = None
) -> BuildEvaluation:
    """Run, score and (unless ``gate`` is False) gate one build.

    This is the whole evaluation of the defects path; the asset graph runs the same three
    stages as separate assets.
    """
    from eval_pipeline.evaluation.stages import collect_runs, decide_gate, score_runs

    say = progress or (lambda line: None)
    runs = collect_runs(stage)
    say(f"{stage.build}: {runs.runs} runs stored ({runs.executed} run now, {runs.failed} failed)")
    scores = score_runs(stage)
    say(f"{stage.build}: {scores.rows} score rows")
    outcome = decide_gate(stage) if gate else None
    if outcome is not None:
        say(f"{stage.build}: gate {outcome.verdict} against {outcome.baseline}")
    return BuildEvaluation(runs, scores, outcome)


def validate_sample_agent(
    home: Home,
    suite_path: Path | None = None,
    *,
    items_per_dataset: int | None = None,
    runs_per_item: int | None = None,
    progress: Progress | None = None,
    advance: Callable[[int, int], None] | None = None,
) -> ValidationReport:
    """Seeded-defect validation of the suite's gate with the sample agent's builds.

    ``progress`` gets a line per stage of each build; ``advance`` (builds evaluated, builds).
    """
    suite_ref: str | Path = suite_path or SAMPLE_SUITE
    builds = story_builds()
    step = advance or (lambda done, total: None)
    step(0, len(builds))
    suite_name = register_story(home, builds, suite_ref)
    scope = Scope(items_per_dataset=items_per_dataset, runs_per_item=runs_per_item)
    baseline, candidate, defects, aa = sample_agent_builds()

    def stage_of(seeded: SeededBuild) -> Stage:
        return open_stage(home, seeded.build, suite_ref, scope=scope)

    base_stage = stage_of(baseline)
    evaluate_build(base_stage, gate=False, progress=progress)
    evaluated = [baseline.build]
    step(len(evaluated), len(builds))

    def evaluate(seeded: SeededBuild) -> tuple[Any, int]:
        done = evaluate_build(stage_of(seeded), progress=progress)
        assert done.outcome is not None  # gated
        evaluated.append(seeded.build)
        step(len(evaluated), len(builds))
        return done.outcome.report, done.runs.failed

    report = validate_defects(
        evaluate,
        suite=suite_name,
        baseline=baseline,
        candidate=candidate,
        defects=defects,
        aa_control=aa,
        items=len(base_stage.items),
        runs_per_item=base_stage.runs_per_item,
    )
    BuildRegistry(home.state_url).mark_requested([b.build for b in builds])
    return report
