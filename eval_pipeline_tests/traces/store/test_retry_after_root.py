"""A span retried after its root is a duplicate, not a second copy under the root's build.

A child exported before its root is stored under the default build (nothing in it names one);
once the root is stored, a retry of that child (its sender never saw the first answer) used to
be assigned the root's build and, the ledger key including the build, stored again there: two
copies, published twice on the stream. The key of a span whose build is derived does not
depend on the arrival order: a span already stored is assigned the build holding it.
"""

from pathlib import Path

from eval_pipeline.importers.traces.files import ingest_files
from eval_pipeline.traces.store.trace_store import UNASSIGNED, TraceStore
from eval_pipeline_tests.traces.store.test_arrival_order import BUILD, _agent_run, _payload


def test_a_child_retried_after_its_root_is_stored_once(tmp_path: Path) -> None:
    spans = _agent_run()
    children, root = spans[:-1], spans[-1:]
    store = TraceStore(tmp_path / "store")
    for name, batch in (("children.pb", children), ("root.pb", root), ("retry.pb", children)):
        path = tmp_path / name
        path.write_bytes(_payload(batch))
        report = ingest_files([path], store=store).ingest
        if name == "retry.pb":
            assert report.spans_stored == 0 and report.spans_duplicate == len(children)
            assert report.builds == {UNASSIGNED}
    (run,) = store.runs(BUILD)
    assert run.tool_names == ("lookup",) and run.complete
    assert len(run.spans) == len(spans)
    assert store.trace_builds(run.trace_id) == {BUILD: True, UNASSIGNED: False}
    assert len(store.read_spans(BUILD)) == len(spans)
    assert sum(rows for _, _, rows in store.ledger.parts()) == len(spans)


def test_an_explicit_build_still_stores_a_trace_for_each_build(tmp_path: Path) -> None:
    spans = _agent_run()
    path = tmp_path / "run.pb"
    path.write_bytes(_payload(spans))
    store = TraceStore(tmp_path / "store")
    for build in ("a", "b"):
        assert ingest_files([path], store=store, build=build).ingest.spans_stored == len(spans)


def test_a_child_retried_after_its_root_is_published_once_by_the_receiver() -> None:
    from eval_pipeline.builds import BuildRegistry
    from eval_pipeline.home import current_home
    from eval_pipeline.realtime.receiver.auth import Grant, Scope
    from eval_pipeline.realtime.receiver.writer import Writer
    from eval_pipeline.realtime.stream.embedded import EmbeddedStream
    from eval_pipeline.traces.ingest.ingest import OtlpRequest
    from eval_pipeline.traces.store.trace_store import PRODUCTION

    home = current_home().ensure()
    stream = EmbeddedStream(home.state_url)
    writer = Writer(TraceStore(home.store), registry=BuildRegistry(home.state_url), stream=stream)
    spans = _agent_run()
    children, root = spans[:-1], spans[-1:]
    for batch in (children, root, children):
        request = OtlpRequest(_payload(batch), "application/x-protobuf", "POST /v1/traces")
        writer.write(request, Grant(Scope.EVALUATION))
    store = TraceStore(home.store)
    assert store.trace_builds(format(spans[0].context.trace_id, "032x")) == {
        BUILD: True,
        PRODUCTION: False,
    }
    # One span message per span (and one trace-completed message for the root).
    assert stream.message_count() == len(spans) + 1
