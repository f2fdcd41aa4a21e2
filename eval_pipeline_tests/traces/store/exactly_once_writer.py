"""A writer process for the exactly-once test: ingests the sample traces, failing on purpose.

``python -m eval_pipeline_tests.traces.store.exactly_once_writer STORE URL SEED RATE``
ingests every OTLP sample file through ``ingest`` into the store, the client retrying a batch
until it is acknowledged. Between writing a part and recording its keys, with probability
``RATE`` it crashes the process (exit 3: the harness starts it again, which retries from the
first file), raises (the request fails; the client retries), or records and then raises (the
acknowledgement is lost; the client retries a request that was stored).
"""

import os
import random
import sys
from pathlib import Path

from eval_pipeline.traces.decode.otlp import JSON
from eval_pipeline.traces.ingest.ingest import OtlpRequest, ingest
from eval_pipeline.traces.store.trace_store import TraceStore
from eval_pipeline_tests.traces.builders import AGENTS

CRASHED = 3


class InjectedFailure(RuntimeError):
    """A failure the test put between writing a part and recording its keys."""


def batches() -> list[OtlpRequest]:
    """The requests every writer sends (the same ones: writers race on every span)."""
    return [
        OtlpRequest(path.read_bytes(), JSON, path.name)
        for path in sorted(AGENTS.glob("*.otlp.json"))
    ]


def main(store_root: str, url: str, seed: int, rate: float) -> None:
    rng = random.Random(seed)
    store = TraceStore(Path(store_root), state_url=url)
    record = store._record

    def failing_record(*args: object) -> None:
        draw = rng.random()
        if draw < rate / 3:
            os._exit(CRASHED)  # the part is on disk, its keys are not recorded
        if draw < 2 * rate / 3:
            raise InjectedFailure("before recording")
        record(*args)  # type: ignore[arg-type]
        if draw < rate:
            raise InjectedFailure("after recording: the acknowledgement is lost")

    store._record = failing_record  # type: ignore[method-assign]
    for batch in batches():
        while True:
            try:
                ingest([batch], store=store, day="2026-12-01")
                break
            except InjectedFailure:
                continue


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
