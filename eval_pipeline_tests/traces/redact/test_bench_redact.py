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
    clean = ("percent", "at", "digits", "a", "a_at", "clean_prose", "base64")
    assert all(shapes_[name]["tokens"] == 0 for name in clean)
    dense = ("emails", "cards", "phones", "ibans", "ssns", "dense_pii_prose")
    assert all(shapes_[name]["tokens"] > 10_000 for name in dense)
    escaped = ("emails_percent_escaped", "emails_unicode_escaped")
    assert all(shapes_[name]["distinct_tokens"] > 10_000 for name in escaped)
    assert shapes_["json_payload"]["tokens"] > 1_000 and shapes_["json_numbers"]["tokens"] > 1_000
    assert all(shape["linearity"] > 0 for shape in shapes_.values())
    assert report["budget_ms"] == 50.0 and "dense_pii_prose" in report["table"]
