"""Session metrics: scorers over a whole conversation (``traces.sessions.Session``).

``base``: the session-level scorer protocol and ``score_session`` (the same ``Score`` rows as
per-run scoring, keyed by the session); ``registry``: session metric id -> class, listed by
``metrics list`` beside the per-run metrics; one module per metric.
"""
