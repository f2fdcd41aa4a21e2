"""Scoring: the Scorer protocol, the registry, scorers and library adapters. Pure: no dagster.

- ``score`` / ``protocol``: the score row and the Scorer interface (contracts).
- ``registry``: metric id -> scorer class; ``build_scorer``, ``registered_metric_ids``,
  ``score_run`` (exceptions become ``error`` rows; rows stamped with build/item/run/slices).
- ``scorers/``: one module per deterministic metric, ``judged`` for the judge-based ones.
- ``arguments`` (BFCL checker semantics), ``matching`` (calls vs expected trajectories),
  ``constraints`` (ordering, forbidden calls), ``end_state`` (``task_success``'s format),
  ``action_claims`` (claimed actions in answers).
- ``adapters/``: DeepEval and RAGAS metrics behind the same interface (imported lazily).
- ``batch`` (a whole build), ``aggregate`` (mean, n, unscored, pass^k), ``store`` (Parquet
  partitioned by build), ``spread`` (judge score spread over repeated scoring).
"""
