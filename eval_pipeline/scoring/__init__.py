"""Scoring: the Scorer protocol, the registry, scorers and library adapters. Pure: no dagster.

- ``score`` / ``protocol``: the score row and the Scorer interface (contracts); ``verdict``:
  what a built-in scorer concludes, from which its row is built once.
- ``registry``: metric id -> scorer class; ``build_scorer`` (passes ``judge=`` only to a
  scorer declaring ``needs_judge``), ``scorer_needs_judge``, ``rebuild_scorer`` (from a stored
  row's ``scorer_args``), ``registered_metric_ids``, ``score_run`` (exceptions become ``error``
  rows; every row carries the build/item/run/slices and the scorer's arguments).
- ``catalogue``: each metric's card (reads, range, direction, not-applicable rule, version),
  read off its class; ``custom`` / ``rubric_metric``: a suite's own metrics (a Python scorer
  by entry point, a judged rubric), defined in the registry when the suite is loaded.
- ``scorers/``: one module per deterministic metric, ``judged`` for the judge-based ones.
- ``arguments`` / ``argument_values`` (BFCL checker semantics), ``matching`` / ``alignment``
  (calls vs expected trajectories), ``constraints`` (ordering, forbidden calls),
  ``end_state`` (``task_success``'s format), ``action_claims`` / ``claim_frames`` (claimed
  actions in answers).
- ``adapters/``: DeepEval and RAGAS metrics behind the same interface (imported lazily).
- ``batch`` (a whole build), ``aggregate`` (mean, n, unscored, pass^k), ``store`` (Parquet
  partitioned by build), ``spread`` (judge score spread over repeated scoring).
"""
