"""Production feedback: ratings of traces, the review queue they open, and pseudonymous ids.

A thumbs-down is a weak label: it opens a review item for its trace (and raises the trace's
sampling probability, ``FeedbackStore.thumbs_down_trace_ids``), never a failure by itself. A
reviewer's ``defect`` verdict is what turns a trace into a regression case (``datasets.triage``).
Never imports dagster, nor any other stage of the real-time plane (the receiver imports this).
"""
