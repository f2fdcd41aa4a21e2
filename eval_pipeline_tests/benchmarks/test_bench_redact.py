"""``bench redact``: every shape has its size, the personal-data shapes get tokens, JSON out.

Contract (``benchmarks.redact``): the figures are per 1 MB input of each shape; a shape full
of personal data that came back without tokens would make the timing meaningless, so the
token counts are part of the result. No timing is asserted (the machine is shared). The
default tests run the benchmark on 20 KB inputs; the slow ones run the command as shipped.
"""

import json
from typing import Any

import pytest
from click.testing import CliRunner

from benchmarks.cli import bench
from benchmarks.redact import SIZE, run, shapes

_CLEAN = ("percent", "at", "digits", "a", "a_at", "clean_prose", "base64")
_DENSE = ("emails", "cards", "phones", "ibans", "ssns", "dense_pii_prose", "dense_pii_other_digit")
_ESCAPED = ("emails_percent_escaped", "emails_unicode_escaped")


def _check(report: dict[str, Any], size: int) -> None:
    shapes_ = report["shapes"]
    assert set(shapes_) == set(shapes(1000)) and report["bytes_per_input"] == size
    assert all(shapes_[name]["tokens"] == 0 for name in _CLEAN)
    assert all(shapes_[name]["tokens"] > size // 100 for name in _DENSE)
    assert all(shapes_[name]["distinct_tokens"] > size // 100 for name in _ESCAPED)
    assert shapes_["json_payload"]["tokens"] > size // 1000
    assert shapes_["json_numbers"]["tokens"] > size // 1000
    assert all(shape["linearity"] > 0 for shape in shapes_.values())
    assert report["budget_ms"] == 150.0 and report["json_budget_ms"] == 30.0
    assert shapes_["json_payload"]["budget_ms"] == 30.0 and shapes_["cards"]["budget_ms"] == 150.0
    assert "dense_pii_prose" in report["table"]


def test_every_shape_has_its_size() -> None:
    sizes = {name: len(text) for name, text in shapes(20_000).items()}
    assert all(20_000 <= size <= 20_000 * 1.02 for size in sizes.values()), sizes  # JSON: whole


def test_each_shape_is_reported_against_the_budget() -> None:
    _check(run(repeats=1, size=20_000), 20_000)


@pytest.mark.slow
def test_every_shape_is_one_megabyte() -> None:
    sizes = {name: len(text) for name, text in shapes().items()}
    assert all(SIZE <= size <= SIZE * 1.01 for size in sizes.values()), sizes  # JSON: whole


@pytest.mark.slow
def test_cli_reports_each_shape_against_the_budget() -> None:
    result = CliRunner().invoke(bench, ["redact", "--repeats", "1", "--format", "json"])
    assert result.exit_code == 0, result.output
    _check(json.loads(result.output), SIZE)
