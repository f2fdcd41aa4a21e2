"""A sample multi-agent support system under test, with seeded-defect builds.

A support agent authenticates the customer, looks up orders and the refund policy, and hands
returns and cancellations to a refunds agent, over a subset of the tau-bench retail database.
Its "model" is a SIMULATOR (``simulator``): a seeded stochastic policy, not an LLM. Set
``EVAL_PIPELINE_AGENT_BASE_URL`` to drive it with a real OpenAI-compatible model instead.
Entry point for the runners: ``eval_pipeline.sample_agent.app:run_item``.
"""
