"""The write path's worker processes: all running before the load comes.

Contract: ``WritePath`` over a ``WriterSpec`` runs ``workers`` processes from the start,
whatever order requests come in, and every request is ingested. ``ProcessPoolExecutor``
spawns lazily and counts every finished task as an idle worker, so after requests sent one at
a time (a warm-up, a quiet start) a pool of two still had one process; the second was spawned
by the first concurrent burst, and its start (imports, opening the store) ran inside that
burst: ``bench serve`` measured it as ingest time (issue 18).
"""

from concurrent.futures import wait
from pathlib import Path

from benchmarks.serve import PROTOBUF, payloads, spans_in
from eval_pipeline.home import Home
from eval_pipeline.realtime.receiver.auth import Grant, Scope
from eval_pipeline.realtime.receiver.write_path import WritePath
from eval_pipeline.realtime.receiver.writer import WriterSpec
from eval_pipeline.traces.ingest.ingest import OtlpRequest
from eval_pipeline_tests.realtime.receiver.receivers import worker_processes


def test_every_worker_process_runs_before_the_first_concurrent_request(
    isolated_home: Path,
) -> None:
    home = Home(isolated_home).ensure()
    bodies = payloads(40, 8)
    grant = Grant(Scope.PRODUCTION)
    # Other tests in this process may leave pools still shutting down: count only this path's.
    before = worker_processes()
    path = WritePath(WriterSpec(home.root), workers=2, queue=8)
    try:
        for body in bodies[:4]:  # one at a time: each finished task looked like an idle worker
            accepted = path.submit_traces(OtlpRequest(body, PROTOBUF["content-type"], "t"), grant)
            assert accepted.result(timeout=120).report.spans_stored == spans_in(body)
        assert len(worker_processes() - before) == 2
        concurrent = [
            path.submit_traces(OtlpRequest(body, PROTOBUF["content-type"], "t"), grant)
            for body in bodies[4:]
        ]
        wait(concurrent, timeout=120)
        assert all(f.result().report.spans_stored == spans_in(bodies[0]) for f in concurrent)
        assert len(worker_processes() - before) == 2
    finally:
        path.close()
