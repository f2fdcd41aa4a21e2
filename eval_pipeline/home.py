"""Where embedded state lives: one setting, ``EVAL_PIPELINE_HOME``.

The home holds the local Dagster instance (``dagster/``), the Parquet store (``store/``), the
SQLite state database (``state.db``) and published datasets (``datasets/``). The default is a
folder in the working directory, never the user's real home directory. The environment is read
when a path is asked for, not at import, so tests can point it at a temporary folder.
"""

import os
from dataclasses import dataclass
from pathlib import Path

ENV_VAR = "EVAL_PIPELINE_HOME"
DEFAULT_DIRNAME = ".eval_pipeline"


@dataclass(frozen=True)
class Home:
    """The folders and files of one embedded home."""

    root: Path

    @property
    def dagster(self) -> Path:
        """The local Dagster instance folder (``DAGSTER_HOME``)."""
        return self.root / "dagster"

    @property
    def store(self) -> Path:
        """Root of the Parquet tables (spans, runs, scores), partitioned by build."""
        return self.root / "store"

    @property
    def datasets(self) -> Path:
        """Published dataset versions (immutable once written)."""
        return self.root / "datasets"

    @property
    def state_db(self) -> Path:
        """The SQLite operational state database (judge cache, ledgers, builds)."""
        return self.root / "state.db"

    @property
    def state_url(self) -> str:
        """SQLAlchemy URL of the state database; ``EVAL_PIPELINE_STATE_URL`` overrides it."""
        return os.environ.get("EVAL_PIPELINE_STATE_URL") or f"sqlite:///{self.state_db}"

    def ensure(self) -> "Home":
        """Create the folders if they do not exist yet, and return self."""
        for path in (self.root, self.dagster, self.store, self.datasets):
            path.mkdir(parents=True, exist_ok=True)
        return self


def current_home() -> Home:
    """The home named by ``EVAL_PIPELINE_HOME``, or ``./.eval_pipeline`` by default."""
    raw = os.environ.get(ENV_VAR)
    root = Path(raw) if raw else Path.cwd() / DEFAULT_DIRNAME
    return Home(root.resolve())
