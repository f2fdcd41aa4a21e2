"""Builds of the sample agent: a baseline, an improved candidate, and seeded defects.

A build is a configuration of the simulated model and the agent's wiring. Error rates are
per run (or per write call for argument slips); the baseline's are in the range published
agent traces show for a capable model on tau-bench-style retail tasks (a few percent per
step). Each seeded defect changes one thing and names the metric that must catch it.
"""

from dataclasses import dataclass, field, replace


@dataclass(frozen=True)
class BuildConfig:
    """One build of the support agent.

    Attributes:
        name: Registry key.
        description: What changed, in one line.
        target_metric: The metric this defect must fail on (None for non-defects).
        model: Model name reported on ``chat`` spans (priced by the suite's price table).
        p_arg_slip: Per write call: a wrong payment method or a dropped item id.
        p_skip_policy: Per run: the policy lookup is skipped.
        p_tool_retry: Per tool call: a transient tool error followed by a retry.
        p_false_claim: Per run: the last write is not executed but claimed in the answer.
        p_skip_confirm: Per write: no ``confirm_action`` before it.
        p_drop_handoff_ids: Per run: the hand-off omits the order ids.
        p_obey_injection: Per run with an injected order note: the attacker's call is made.
        policy_index: ``current`` or ``stale``.
        renamed_arguments: Tool-schema renames (e.g. ``{"order_id": "orderId"}``) on writes.
        latency_factor: Multiplies every simulated latency.
        token_factor: Multiplies prompt tokens (longer prompts, few-shot examples).
        chat_latency_s: Median latency of one model call before ``latency_factor``.
        forget_first_turn: Multi-turn mode: the agent no longer sees the user's first message
            once the conversation has moved on (it asks again for what was said there).
        extra_confirmations: Multi-turn mode: how many more times the agent asks the user to
            confirm a write after the user has confirmed it.
    """

    name: str
    description: str
    target_metric: str | None = None
    model: str = "gpt-4.1-mini"
    p_arg_slip: float = 0.04
    p_skip_policy: float = 0.04
    p_tool_retry: float = 0.03
    p_false_claim: float = 0.02
    p_skip_confirm: float = 0.02
    p_drop_handoff_ids: float = 0.02
    p_obey_injection: float = 0.0
    policy_index: str = "current"
    renamed_arguments: dict[str, str] = field(default_factory=dict)
    latency_factor: float = 1.0
    token_factor: float = 1.0
    chat_latency_s: float = 0.75
    forget_first_turn: bool = False
    extra_confirmations: int = 0

    @property
    def is_defect(self) -> bool:
        """True for seeded-defect builds."""
        return self.target_metric is not None


BASELINE = BuildConfig("baseline", "the released support agent")

IMPROVED = replace(
    BASELINE,
    name="candidate-improved",
    description="tighter prompt: fewer argument slips and skipped steps",
    p_arg_slip=0.02,
    p_skip_policy=0.02,
    p_tool_retry=0.02,
    p_false_claim=0.01,
    p_skip_confirm=0.01,
    p_drop_handoff_ids=0.01,
)

DEFECTS: tuple[BuildConfig, ...] = (
    replace(
        BASELINE,
        name="defect-renamed-argument",
        target_metric="argument_correctness",
        description="write tools' schema renames order_id to orderId",
        renamed_arguments={"order_id": "orderId"},
    ),
    replace(
        BASELINE,
        name="defect-skips-confirmation",
        target_metric="trajectory_match",
        description="prompt no longer asks for confirmation before a write",
        p_skip_confirm=1.0,
    ),
    replace(
        BASELINE,
        name="defect-stale-policy-index",
        target_metric="faithfulness",
        description="policy retriever points at the 2023 index",
        policy_index="stale",
        p_skip_policy=0.0,
    ),
    replace(
        BASELINE,
        name="defect-obeys-injection",
        target_metric="injection_resistance",
        description="follows instructions found in tool output",
        p_obey_injection=1.0,
    ),
    replace(
        BASELINE,
        name="defect-claims-unissued-refunds",
        target_metric="hallucinated_actions",
        description="announces refunds before (and without) issuing them",
        p_false_claim=0.6,
    ),
    replace(
        BASELINE,
        name="defect-slow",
        target_metric="p95_latency_s",
        description="synchronous retries and a slower model deployment",
        latency_factor=4.0,
    ),
    replace(
        BASELINE,
        name="defect-expensive",
        target_metric="cost_per_task_usd",
        description="larger model and a few-shot prompt three times longer",
        model="gpt-4.1",
        token_factor=3.0,
    ),
    replace(
        BASELINE,
        name="defect-handoff-drops-order-id",
        target_metric="handoff_quality",
        description="hand-off to the refunds agent omits the order ids",
        p_drop_handoff_ids=1.0,
    ),
)

CONVERSATION_DEFECTS: tuple[BuildConfig, ...] = (
    replace(
        BASELINE,
        name="defect-forgets-order-id",
        target_metric="session.knowledge_retention",
        description="multi-turn: drops the first user turn from its context (asks for the "
        "order id again)",
        forget_first_turn=True,
    ),
    replace(
        BASELINE,
        name="defect-loops-confirmation",
        target_metric="session.repeated_user_requests",
        description="multi-turn: asks twice more for a confirmation the user already gave",
        extra_confirmations=2,
    ),
)
"""Seeded conversation defects: they show only in multi-turn items (the
``support-conversations`` suite), so the single-turn defects check does not run them."""

BUILDS: dict[str, BuildConfig] = {
    b.name: b for b in (BASELINE, IMPROVED, *DEFECTS, *CONVERSATION_DEFECTS)
}


def get_build(name: str) -> BuildConfig:
    """The build registered as ``name``.

    Raises:
        KeyError: no such build (the message lists the known ones).
    """
    try:
        return BUILDS[name]
    except KeyError:
        raise KeyError(f"unknown support-agent build {name!r}; known: {sorted(BUILDS)}") from None
