"""What a round trip must keep: the same runs (per item and run index) and the same score rows.

``assert_same_runs`` compares every field of every run, its spans and derived views, except what
a back end is documented not to keep (``ignore``: Phoenix drops span kind, resource and scope),
with times equal to ``time_tolerance_ns`` (Phoenix holds microseconds, returned through floats).
"""

import dataclasses
from typing import Any

from eval_pipeline.scoring.score import Score
from eval_pipeline.traces.model import AgentRun
from eval_pipeline.traces.store.trace_store import TraceStore


def runs_by_key(store: TraceStore, build: str) -> dict[tuple[str | None, int | None], AgentRun]:
    """The build's runs by (item id, run index), with the span list in a stable order."""
    out = {}
    for run in store.runs(build):
        spans = tuple(sorted(run.spans, key=lambda s: s.span_id))
        out[(run.eval_context.item_id, run.eval_context.run_index)] = dataclasses.replace(
            run, spans=spans
        )
    return out


def rows_by_key(scores: list[Score], build: str) -> dict[tuple[str | None, int | None, str], Score]:
    """Score rows by (item, run, metric), the build set to ``build`` (the import's)."""
    return {
        (s.item_id, s.run_index, s.metric_id): dataclasses.replace(s, build=build) for s in scores
    }


def _same(a: Any, b: Any, path: str, ignore: frozenset[str], tolerance: int) -> None:
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            if f.name not in ignore:
                _same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}", ignore, tolerance)
    elif isinstance(a, tuple | list):
        assert len(a) == len(b), f"{path}: {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _same(x, y, f"{path}[{i}]", ignore, tolerance)
    elif path.endswith("_unix_nano"):
        assert abs(a - b) <= tolerance, f"{path}: {a} != {b}"
    elif path.endswith("duration_s"):
        assert abs(a - b) <= 2 * tolerance / 1e9, f"{path}: {a} != {b}"
    else:
        assert a == b, f"{path}: {a!r:.300} != {b!r:.300}"


def assert_same_runs(
    a: dict[Any, AgentRun],
    b: dict[Any, AgentRun],
    *,
    ignore: frozenset[str] = frozenset(),
    time_tolerance_ns: int = 0,
) -> None:
    """Every run of ``a`` is in ``b`` with the same fields (up to ``ignore`` and the tolerance)."""
    assert sorted(a, key=repr) == sorted(b, key=repr)
    for key, run in a.items():
        _same(run, b[key], f"run{key}", ignore, time_tolerance_ns)
