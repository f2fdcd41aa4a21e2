"""A read-only tool never backs a claimed action (``get_refund_policy`` refunds nothing).

Contract: ``hallucinated_actions`` flags "I have refunded ..." when the only matching calls
are reads or hand-offs, and accepts it when a write performed it.
"""

from eval_pipeline.scoring.registry import build_scorer
from eval_pipeline_tests.scoring.builders import call, make_item, make_run


def test_a_policy_lookup_does_not_back_a_refund_claim() -> None:
    run = make_run(
        [call("get_refund_policy", {}), call("transfer_to_refunds_agent", {})],
        answer="I have refunded your order #W1.",
    )
    score = build_scorer("hallucinated_actions").score(run, make_item())
    assert score.value == 0.0


def test_a_refund_write_backs_the_claim() -> None:
    run = make_run(
        [call("get_refund_policy", {}), call("refund_order", {"order_id": "#W1"})],
        answer="I have refunded your order #W1.",
    )
    score = build_scorer("hallucinated_actions").score(run, make_item())
    assert score.value == 1.0
