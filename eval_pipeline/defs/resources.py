"""Resources, built in one place: where embedded state lives, and which judge scores.

The embedded default needs no external service; production swaps PostgreSQL storage (via
``EVAL_PIPELINE_STATE_URL`` and deploy/dagster.yaml) and an OpenAI-compatible judge in by
configuration, not code.
"""

import os
from pathlib import Path

import dagster as dg

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import Home, current_home
from eval_pipeline.judges.protocol import Judge


class EvalHomeResource(dg.ConfigurableResource):
    """The eval-pipeline home: trace/score stores, datasets and the state database."""

    root: str | None = None

    def home(self) -> Home:
        """The configured home (``EVAL_PIPELINE_HOME`` when ``root`` is not set)."""
        return (Home(Path(self.root).resolve()) if self.root else current_home()).ensure()

    def registry(self) -> BuildRegistry:
        """The build registry in the home's state database."""
        return BuildRegistry(self.home().state_url)


class JudgeResource(dg.ConfigurableResource):
    """The judge behind judge-based metrics.

    ``model`` ``offline-minilm`` (the default) runs on this machine with no download; any other
    model is served by an OpenAI-compatible endpoint at ``base_url``. Judges are wrapped in the
    score cache of the state database.
    """

    model: str = "offline-minilm"
    rubric_version: str | None = None
    base_url: str | None = None

    def judge(self, home: Home) -> Judge:
        """A cached judge of the configured kind."""
        from eval_pipeline.judges.factory import judge_from_config

        return judge_from_config(
            self.model, self.rubric_version, base_url=self.base_url, state_url=home.state_url
        )


def default_judge_resource() -> JudgeResource:
    """The judge configured by environment (read when Definitions load, not at import)."""
    return JudgeResource(
        model=os.environ.get("EVAL_PIPELINE_JUDGE_MODEL", "offline-minilm"),
        rubric_version=os.environ.get("EVAL_PIPELINE_JUDGE_RUBRIC_VERSION") or None,
        base_url=os.environ.get("EVAL_PIPELINE_JUDGE_BASE_URL") or None,
    )


def build_resources() -> dict[str, object]:
    """Every resource, keyed by the parameter name assets use."""
    return {"eval_home": EvalHomeResource(), "judge": default_judge_resource()}
