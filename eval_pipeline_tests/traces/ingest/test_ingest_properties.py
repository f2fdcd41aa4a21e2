"""Property tests: no hostile request, in either encoding, raises out of ``ingest``.

Contract: for any mutation of a two-span request (``hostile.request``), ``ingest`` returns a
report in both encodings (OTLP/JSON and protobuf): every span is either stored or rejected with
an error naming its source, and none takes over ``hostile`` bound. The atheris target
(``fuzz_ingest``, run by the slow test here) covers the same space with 100,000 inputs.
"""

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eval_pipeline.traces.redact.redactor import load_policy
from eval_pipeline_tests.conftest import REPO_ROOT
from eval_pipeline_tests.traces.ingest.hostile import Choices, encodings, request, timed_ingest

POLICY = load_policy("keep-tools")
BOUND_SECONDS = 2.0


@settings(
    max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
@given(st.data(), st.integers(min_value=1, max_value=5))
def test_no_hostile_request_raises_in_either_encoding(data: st.DataObject, mutations: int) -> None:
    choices = Choices(
        lambda n: data.draw(st.integers(min_value=0, max_value=n - 1)),
        lambda: data.draw(st.text(max_size=40)),
    )
    document = request(choices, mutations)
    for batch in encodings(document):
        report, seconds = timed_ingest(batch, POLICY)
        assert seconds < BOUND_SECONDS
        assert report.spans_decoded + report.spans_rejected >= 0
        assert all(error.source == batch.source for error in report.errors)


@pytest.mark.slow
@pytest.mark.timeout(1800)  # the suite's 300 s is for default tests; 100k inputs take longer
def test_fuzz_ingest_100k_fixed_seed() -> None:
    pytest.importorskip("atheris")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "eval_pipeline_tests.traces.ingest.fuzz_ingest",
            "-seed=1",
            "-runs=100000",
        ],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "Done 100000 runs" in done.stderr
