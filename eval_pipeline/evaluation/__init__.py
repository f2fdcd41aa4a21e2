"""Evaluation stages shared by the Dagster assets, the CLI and the demo.

Each stage is one function over the eval-pipeline home (trace, score and dataset stores, the
state database); the Dagster assets in ``defs/`` are thin shells over them, so the CLI and the
asset graph compute exactly the same thing. Never imports dagster.
"""
