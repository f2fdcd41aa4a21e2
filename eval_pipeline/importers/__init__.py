"""Everything that brings data in, under one roof: files, benchmarks and other tools' stores.

What comes in, the sub-package that reads it, and where it goes::

    traces/      trace files, recorded benchmark runs   -> the one ingest function (spans;
                 (tau2, tau-bench, BFCL results)           rewards as imported scores)
    datasets/    benchmark task files (tau2, tau-bench,  -> a dataset version (items, tool
                 BFCL, AgentDojo)                           schemas, provenance)
    backends/    Phoenix, Langfuse, NAT, OpenAI Evals    -> ingest, the score store, datasets
                 exports; OTLP evaluation events
       |  traces/ and datasets/ both read a benchmark's files through
       v
    benchmarks/  one reader per benchmark format
       |
       v
    conversation, report, imported, source_files  (the pieces every importer shares)

- ``traces``: trace files by format, detected (OTLP JSON/protobuf, tau2-bench results,
  tau-bench trajectories, flat span lists) -> ``traces.ingest.ingest``.
- ``datasets``: benchmark source files -> dataset items, by format; ``curation`` rebuilds the
  shipped datasets from the repository's fixtures.
- ``benchmarks``: one reader per benchmark, used by both imports above: ``tau2`` and
  ``taubench`` read their task files (-> items) and their recorded runs (-> spans and
  rewards); ``bfcl`` (questions -> items) and ``bfcl_results`` (model results -> runs);
  ``agentdojo``; ``tau_actions`` (what tau tasks' actions say about an item).
- ``backends``: other tools' stores read back (``phoenix``, ``langfuse``, ``nat``,
  ``openai_evals``) and the receiver's evaluation-event handler (``otel_events``); the way out
  to those tools is ``eval_pipeline.backends``.
- Shared: ``conversation`` (a recorded conversation -> the GenAI spans of one run),
  ``report`` (what a trace import returns), ``imported`` (what a dataset import returns),
  ``source_files`` (JSON, JSON Lines, gzip; ``SourceError``).

Every importer hands its spans to the one ingest function, so imported traces are normalised,
redacted, judged for completeness and stored like any other (``test_one_way_in``).
"""
