"""Interchangeable back ends: scores and traces out to other tools, and what both ways share.

The span schema and the scorer interface stay ours; vendors are back ends (issue 21). One
module per back end out; the way back in from the same tools is ``eval_pipeline.importers``
(``importers.backends``), which stores every score it brings through ``imported_scores``.

- ``evaluation_event``: a score row as a ``gen_ai.evaluation.result`` log event, and back.
- ``otel_events_out``: evaluation events over OTLP (HTTP, gRPC).
- ``otlp_traces_out``: stored spans as OTLP trace requests (to Phoenix, Langfuse, any collector).
- ``phoenix_out``: span annotations through Phoenix's REST API.
- ``langfuse_out``: Langfuse score bodies and OTLP traces.
- ``imported_scores``: where every imported score is stored (and how a recorded one is read).
- ``export_files``: the records of an export file (JSON, an API page, or JSON Lines).
"""
