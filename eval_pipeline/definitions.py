"""Dagster entry point: assembles ``defs/``, nothing else."""

from eval_pipeline.defs.assemble import build_definitions

defs = build_definitions()
