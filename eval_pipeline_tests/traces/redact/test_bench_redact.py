"""``bench redact``: every shape is 1 MB, the personal-data shapes get tokens, the CLI prints JSON.

Contract (``benchmarks.redact``): the figures are per 1 MB input of each shape; a shape full
of personal data that came back without tokens would make the timing meaningless, so the
token counts are part of the result. No timing is asserted (the machine is shared).
"""

import json

from click.testing import CliRunner

from eval_pipeline.benchmarks.redact import SIZE, shapes
from eval_pipeline.cli import cli


def test_every_shape_is_one_megabyte() -> None:
    sizes = {name: len(text) for name, text in shapes().items()}
    assert all(SIZE <= size <= SIZE * 1.01 for size in sizes.values()), sizes  # JSON: whole


def test_cli_reports_each_shape_against_the_budget() -> None:
    result = CliRunner().invoke(cli, ["bench", "redact", "--repeats", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    shapes_ = report["shapes"]
    assert set(shapes_) == set(shapes())
    assert all(shape["tokens"] == 0 for name, shape in shapes_.items() if name in ("percent", "a"))
    assert all(shapes_[name]["tokens"] > 10_000 for name in ("emails", "dense_pii_prose"))
    assert shapes_["json_payload"]["tokens"] > 1_000
    assert report["budget_ms"] == 50.0
