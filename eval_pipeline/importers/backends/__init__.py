"""Other tools' stores read back: their traces, results and scores in (issue 21).

One module per tool; every trace that comes in goes through the one ingest function and every
score through ``backends.imported_scores`` into the score store. The way out to the same tools
is ``eval_pipeline.backends``.

- ``phoenix``: a Phoenix project's spans and annotations.
- ``langfuse``: Langfuse's public API's traces, observations and scores.
- ``nat``: NeMo Agent Toolkit span exports and ``nat eval`` output files.
- ``openai_evals``: OpenAI Evals exports (items, runs, grader results) -> datasets and scores.
- ``otel_events``: the receiver's ``on_logs`` handler: OTLP evaluation events -> scores.
"""
