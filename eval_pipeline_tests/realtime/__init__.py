"""Tests of the real-time plane, one folder per sub-package of ``eval_pipeline.realtime``."""
