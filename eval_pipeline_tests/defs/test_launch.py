"""A home's Dagster instance comes from the packaged template, and a user's own config is kept.

``prepare_dagster_home`` copies ``eval_pipeline/defs/dagster_instance.yaml`` (package data, so an
installed wheel has it too) into ``<home>/dagster/dagster.yaml``: SQLite storage under the
home, telemetry off. A ``dagster.yaml`` already there is never overwritten.
"""

from pathlib import Path

import yaml

from eval_pipeline.defs.launch import local_instance, prepare_dagster_home
from eval_pipeline.home import Home


def test_a_fresh_home_gets_sqlite_storage_and_telemetry_off(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    config = yaml.safe_load((prepare_dagster_home(home) / "dagster.yaml").read_text())
    assert config["storage"] == {"sqlite": {"base_dir": {"env": "DAGSTER_HOME"}}}
    assert config["telemetry"] == {"enabled": False}
    with local_instance(home) as instance:
        assert Path(instance.root_directory) == home.dagster
        assert not instance.is_ephemeral


def test_an_existing_instance_config_is_left_alone(tmp_path: Path) -> None:
    home = Home(tmp_path / "home").ensure()
    mine = "telemetry:\n  enabled: false\n# mine\n"
    (home.dagster / "dagster.yaml").write_text(mine)
    prepare_dagster_home(home)
    assert (home.dagster / "dagster.yaml").read_text() == mine
