"""atheris fuzz target: hostile OTLP requests (both encodings) never raise out of ``ingest``.

Run (fixed seed, 100,000 inputs; the slow test ``test_fuzz_ingest`` does this)::

    PYTHONPATH=. python -m eval_pipeline_tests.traces.ingest.fuzz_ingest -seed=1 -runs=100000

Each input is turned into a structured request (``hostile.request``) and ingested as JSON and
as protobuf. Any exception escaping ``ingest`` is a crash (atheris reports it, exit non-zero);
so is one input taking over ``BOUND_SECONDS``. At the end it prints the count and the slowest.
"""

import atexit
import sys

import atheris

with atheris.instrument_imports(include=["eval_pipeline"]):
    from eval_pipeline.traces.redact.redactor import load_policy
    from eval_pipeline_tests.traces.ingest.hostile import (
        Choices,
        encodings,
        request,
        seed_request,
        timed_ingest,
    )

BOUND_SECONDS = 2.0
"""No input may take more CPU seconds (1 MB attributes take ~0.5 s; hostile inputs are smaller).
Measured after one warm-up ingest of the seed in each encoding, so lazy imports do not count."""

_POLICY = load_policy("keep-tools")
_SEEN: dict[str, float] = {"runs": 0, "inputs": 0, "slowest": 0.0}


def test_one_input(data: bytes) -> None:
    _SEEN["runs"] += 1
    provider = atheris.FuzzedDataProvider(data)

    def index(n: int) -> int:
        return provider.ConsumeIntInRange(0, n - 1)

    choices = Choices(index, lambda: provider.ConsumeUnicodeNoSurrogates(40))
    document = request(choices, 1 + index(4))
    for batch in encodings(document):
        _, seconds = timed_ingest(batch, _POLICY)
        _SEEN["inputs"] += 1
        _SEEN["slowest"] = max(_SEEN["slowest"], seconds)
        if _SEEN["inputs"] % 10_000 == 0:
            _summary()
        if seconds > BOUND_SECONDS:
            raise AssertionError(f"input took {seconds:.2f} s (bound {BOUND_SECONDS} s)")


def _summary() -> None:
    print(
        f"fuzz: {_SEEN['runs']} inputs, {_SEEN['inputs']} ingests, "
        f"slowest {_SEEN['slowest'] * 1000:.1f} ms",
        flush=True,
    )


if __name__ == "__main__":
    atexit.register(_summary)
    for warm_up in encodings(seed_request()):
        timed_ingest(warm_up, _POLICY)
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
