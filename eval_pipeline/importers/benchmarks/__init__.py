"""One reader per benchmark format, used by the trace import and the dataset import alike.

- ``tau2``: tau2-bench task lists (-> dataset items) and results files (-> runs and rewards).
- ``taubench``: tau-bench v1 task and tool files (-> items) and trajectories (-> runs, rewards).
- ``bfcl`` (questions and answers -> items) and ``bfcl_results`` (a model's result files ->
  one run per question, its questions read through ``bfcl``).
- ``agentdojo``: AgentDojo suites -> adversarial items.
- ``tau_actions``: what a tau task's expected actions say about an item (ordering, entities,
  end state, intent), shared by ``tau2`` and ``taubench``.
"""
