"""The trace import: trace files and recorded benchmark runs -> the one ingest function.

``files``: the format of each file, told or detected (OTLP JSON/protobuf, tau2-bench results,
tau-bench trajectories, flat span lists), read by the benchmark's reader where it is one
(``importers.benchmarks``). BFCL model results need their questions as well:
``importers.benchmarks.bfcl_results``.
"""
