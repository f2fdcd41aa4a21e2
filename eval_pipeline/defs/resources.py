"""Resources, built in one place: where embedded state lives, and which judge scores.

The embedded default needs no external service; production swaps PostgreSQL storage in (via
``EVAL_PIPELINE_STATE_URL`` and deploy/dagster.yaml) by configuration, not code. Judges are
configured by the suites (``judge:``), endpoints by ``EVAL_PIPELINE_JUDGE_BASE_URL``.
"""

from pathlib import Path

import dagster as dg

from eval_pipeline.builds import BuildRegistry
from eval_pipeline.home import Home, current_home


class EvalHomeResource(dg.ConfigurableResource):
    """The eval-pipeline home: trace/score stores, datasets and the state database."""

    root: str | None = None

    def home(self) -> Home:
        """The configured home (``EVAL_PIPELINE_HOME`` when ``root`` is not set)."""
        return (Home(Path(self.root).resolve()) if self.root else current_home()).ensure()

    def registry(self) -> BuildRegistry:
        """The build registry in the home's state database."""
        return BuildRegistry(self.home().state_url)


def build_resources() -> dict[str, object]:
    """Every resource, keyed by the parameter name assets use.

    There is no judge resource: the judge is the one each build's suite names (resolved by
    ``evaluation``), so the asset graph and the CLI cannot score one build with two judges.
    """
    return {"eval_home": EvalHomeResource()}
