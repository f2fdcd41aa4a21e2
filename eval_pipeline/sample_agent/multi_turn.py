"""The sample agent's multi-turn mode: one turn of a support conversation (simulated model).

The runner (``runners.conversation``) calls the agent once per turn with the conversation so
far as the item's ``input_messages``; the agent is stateless between turns, like a chat
model, and decides from the messages it sees (never from the item's reference):

1. no way to identify the customer yet (e-mail, or name and zip): ask for the e-mail;
2. no order id: look the customer up, ask which order;
3. not yet confirmed: look the customer and the orders up, read the policy, and ask the
   customer to confirm the write it would make ("Do you confirm that I should ...?");
4. confirmed: hand the write to the refunds agent (the single-turn agent's ``_support``:
   hand-off, ``confirm_action``, the write, the answer with the policy), with the build's
   error rates;
5. after acting: close politely.

The two seeded conversation defects (``builds.CONVERSATION_DEFECTS``) change one thing each:
``forget_first_turn`` hides the user's first message once the conversation has moved on (the
order id given there is asked for again), ``extra_confirmations`` asks again for a
confirmation the user already gave.
"""

import re
from dataclasses import replace
from typing import Any

from opentelemetry.trace import Tracer

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.sample_agent.agent import SUPPORT_PROMPT, SupportAgentRun, describe
from eval_pipeline.sample_agent.builds import BuildConfig
from eval_pipeline.sample_agent.conversation import Conversation, text_message
from eval_pipeline.sample_agent.simulator import Call, parse_lookup, parse_plan
from eval_pipeline.sample_agent.telemetry import as_json
from eval_pipeline.sample_agent.tools import SUPPORT_TOOLS

ASK_EMAIL = "I can help with that. Could you give me the e-mail address on your account?"
ASK_ORDER = (
    "Thank you, I found your account. Could you tell me the order number you need help with?"
)
CONFIRM = "Do you confirm that I should {action}?"
CONFIRM_AGAIN = "Just to be sure: do you confirm that I should {action}?"
CLOSE = "You're welcome. Have a nice day!"
_AFFIRM = re.compile(r"\b(?:yes|yeah|go ahead|please do|i confirm|confirmed)\b", re.IGNORECASE)
_CONFIRM_ASKED = re.compile(r"\bdo you confirm\b", re.IGNORECASE)
_ACTED = re.compile(r"\bI have (?:cancelled|refunded)\b|\bI could not\b")


def _texts(item: DatasetItem, role: str) -> list[str]:
    return [str(m.get("content", "")) for m in item.input_messages if m.get("role") == role]


def run_turn(
    item: DatasetItem,
    config: BuildConfig,
    *,
    seed: int,
    tracer: Tracer,
    conversation_id: str,
    root_attributes: dict[str, Any],
) -> str:
    """Answer the last user message of ``item.input_messages`` (one turn); returns the answer."""
    users, answers = _texts(item, "user"), _texts(item, "assistant")
    visible = users[1:] if config.forget_first_turn and len(users) > 1 else users
    text = "\n".join(visible)
    agent = SupportAgentRun(config, seed, tracer, conversation_id=conversation_id)
    with agent.recorder.agent("support_agent", model=config.model, extra=root_attributes) as root:
        root.set_attribute(
            "gen_ai.input.messages", as_json([text_message("user", users[-1] if users else "")])
        )
        answer = _respond(agent, config, text, answers, users[-1] if users else "")
        root.set_attribute("gen_ai.output.messages", as_json([text_message("assistant", answer)]))
    return answer


def _respond(
    agent: SupportAgentRun, config: BuildConfig, text: str, answers: list[str], last: str
) -> str:
    plan = parse_plan(text, agent.db)
    if any(_ACTED.search(a) for a in answers):
        return _say(agent, text, CLOSE)
    lookup = _lookup(text)
    if lookup is None:
        return _say(agent, text, ASK_EMAIL)
    plan = replace(plan, lookup=lookup)
    if not plan.order_ids or not plan.writes:
        talk = _talk(agent, text)
        talk.call(lookup)
        return talk.answer(ASK_ORDER)
    action = "; ".join(describe(w) for w in plan.writes)
    asked = sum(bool(_CONFIRM_ASKED.search(a)) for a in answers)
    confirmed = asked > 0 and _AFFIRM.search(last) is not None
    if not confirmed:
        talk = _talk(agent, text)
        talk.call(lookup)
        for call in plan.lookups:
            talk.call(call)
        return talk.answer(CONFIRM.format(action=action))
    if asked < 1 + config.extra_confirmations:
        return _say(agent, text, CONFIRM_AGAIN.format(action=action))
    return agent._support(plan, text)


def _lookup(text: str) -> Call | None:
    """``parse_lookup``, without the sentence's full stop after an e-mail address.

    (``simulator``'s e-mail pattern takes a trailing "." into the address; the single-turn
    agent reads its lookup from the item's reference instead, so it is fixed here only.)
    """
    lookup = parse_lookup(text)
    if lookup is not None and "email" in lookup.arguments:
        lookup = Call(lookup.name, {"email": str(lookup.arguments["email"]).rstrip(".")})
    return lookup


def _talk(agent: SupportAgentRun, text: str) -> Conversation:
    talk = Conversation(
        "support_agent", SUPPORT_PROMPT, SUPPORT_TOOLS, agent.recorder, agent.model, agent.toolbox
    )
    talk.user(text)
    return talk


def _say(agent: SupportAgentRun, text: str, answer: str) -> str:
    return _talk(agent, text).answer(answer)
