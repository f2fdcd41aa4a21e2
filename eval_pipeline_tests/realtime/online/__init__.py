"""Tests of the online estimates (``eval_pipeline.realtime.online``)."""
