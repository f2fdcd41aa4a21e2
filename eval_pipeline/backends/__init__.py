"""Interchangeable back ends: scores out to, traces and results in from, other tools (issue 21).

The span schema and the scorer interface stay ours; vendors are back ends. One module per back
end and direction; every trace that comes in goes through the one ingest function
(``traces.ingest.ingest``) and every score through ``imported_scores`` into the score store.

- ``evaluation_event``: a score row as a ``gen_ai.evaluation.result`` log event, and back.
- ``otel_events_out`` / ``otel_events_in``: evaluation events over OTLP (HTTP, gRPC) / the
  receiver's ``on_logs`` handler that stores them.
- ``otlp_traces_out``: stored spans as OTLP trace requests (to Phoenix, Langfuse, any collector).
- ``phoenix_out`` / ``phoenix_in``: span annotations through Phoenix's REST API / a Phoenix
  project's spans and annotations.
- ``langfuse_out`` / ``langfuse_in``: Langfuse score bodies and OTLP traces / its public API's
  traces, observations and scores.
- ``nat_in``: NeMo Agent Toolkit span exports and ``nat eval`` output files.
- ``openai_evals_in``: OpenAI Evals exports (items, runs, grader results) -> datasets and scores.
- ``imported_scores``: where every imported score is stored (and how a recorded one is read).
- ``export_files``: the records of an export file (JSON, an API page, or JSON Lines).
"""
