"""The simulated model: a seeded stochastic policy standing in for an LLM. Not a real model.

No LLM can run on this machine, so the sample agent's decisions come from this simulator. It
plays an oracle with noise: it reads what a perfect model would do from the dataset item (the
reference trajectory: which user lookup, which orders, which writes with which arguments) and
deviates from it with the build's error rates (argument slips, skipped steps, transient tool
errors and retries, false claims). Everything else is real: tools execute against the retail
database, policy passages are retrieved, and the spans carry latencies and token counts drawn
from distributions shaped like hosted-model traces (log-normal latencies; prompt tokens from
the actual prompt size). Every draw comes from one ``random.Random`` seeded per run, so a run
is reproducible from (build, item, run index).

For items without a reference trajectory the plan is parsed from the user's text (order ids,
e-mail or name + zip) and every item of a delivered order is returned to the original payment
method, every pending order cancelled as no longer needed.
"""

import math
import random
import re
from dataclasses import dataclass, field
from typing import Any

from eval_pipeline.datasets.item import DatasetItem
from eval_pipeline.sample_agent.builds import BuildConfig
from eval_pipeline.sample_agent.retail_db import RetailDB, ToolError
from eval_pipeline.sample_agent.tools import WRITE_TOOLS

LOOKUP_TOOLS = ("get_user_details", "get_order_details", "get_product_details", "calculate")
_ORDER = re.compile(r"#W\d{7}")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_NAME_ZIP = re.compile(r"You are ([A-Z][a-z]+) ([A-Z][a-z]+)\D*?(\d{5})")


@dataclass(frozen=True)
class Call:
    """One planned tool call."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class TaskPlan:
    """What a perfect model would do for an item."""

    lookup: Call | None
    order_ids: tuple[str, ...]
    writes: tuple[Call, ...]
    user_id: str | None = None
    lookups: tuple[Call, ...] = field(default_factory=tuple)
    """Read-only calls of the reference (user, order, product details; calculations)."""


def _first(values: Any) -> Any:
    return values[0] if isinstance(values, list) and values else values


def plan_from_item(item: DatasetItem, db: RetailDB) -> TaskPlan:
    """The reference plan of ``item`` (parsed from its text when it has no trajectory)."""
    calls = [
        Call(c.name, {k: _first(v) for k, v in c.arguments.items() if _first(v) != ""})
        for c in item.expected_tool_calls
    ]
    lookup = next((c for c in calls if c.name.startswith("find_user_id")), None)
    writes = tuple(c for c in calls if c.name in WRITE_TOOLS)
    user_id = next(
        (c.arguments.get("user_id") for c in calls if c.name == "get_user_details"), None
    )
    if not writes:
        return parse_plan(item.user_input, db)
    orders = tuple(dict.fromkeys(str(c.arguments["order_id"]) for c in writes))
    lookup = lookup or parse_lookup(item.user_input)
    if user_id is None:
        try:
            user_id = db.order(orders[0])["user_id"]
        except ToolError:
            user_id = None
    lookups = [c for c in calls if c.name in LOOKUP_TOOLS]
    looked_up = {c.arguments.get("order_id") for c in lookups}
    lookups += [Call("get_order_details", {"order_id": o}) for o in orders if o not in looked_up]
    return TaskPlan(lookup, orders, writes, user_id, tuple(lookups))


def parse_lookup(text: str) -> Call | None:
    """The user lookup a customer's text allows: by e-mail, else by name and zip code."""
    email = _EMAIL.search(text)
    if email:
        return Call("find_user_id_by_email", {"email": email.group(0)})
    name = _NAME_ZIP.search(text)
    if name:
        return Call(
            "find_user_id_by_name_zip",
            {"first_name": name.group(1), "last_name": name.group(2), "zip": name.group(3)},
        )
    return None


def parse_plan(text: str, db: RetailDB) -> TaskPlan:
    """The plan a customer's text asks for, without a reference (see the module docstring)."""
    lookup = parse_lookup(text)
    orders = tuple(dict.fromkeys(_ORDER.findall(text)))
    writes: list[Call] = []
    for order_id in orders:
        try:
            order = db.order(order_id)
        except ToolError:
            continue
        if order["status"] == "delivered":
            writes.append(
                Call(
                    "return_delivered_order_items",
                    {
                        "order_id": order_id,
                        "item_ids": [i["item_id"] for i in order["items"]],
                        "payment_method_id": order["payment_history"][0]["payment_method_id"],
                    },
                )
            )
        elif order["status"] == "pending":
            writes.append(
                Call("cancel_pending_order", {"order_id": order_id, "reason": "no longer needed"})
            )
    lookups = tuple(Call("get_order_details", {"order_id": o}) for o in orders)
    return TaskPlan(lookup, orders, tuple(writes), None, lookups)


class SimulatedModel:
    """Draws the simulated model's latencies, token counts and slips for one run."""

    def __init__(self, config: BuildConfig, seed: int) -> None:
        self.config = config
        self.rng = random.Random(seed)

    def chance(self, probability: float) -> bool:
        """True with ``probability``."""
        return probability > 0 and self.rng.random() < probability

    def chat_latency(self) -> float:
        """Seconds for one model call (log-normal around the build's median)."""
        median = self.config.chat_latency_s * self.config.latency_factor
        return median * math.exp(self.rng.gauss(0.0, 0.35))

    def tool_latency(self) -> float:
        """Seconds for one tool call."""
        return 0.08 * self.config.latency_factor * math.exp(self.rng.gauss(0.0, 0.5))

    def usage(self, prompt_chars: int, history_chars: int, output_chars: int) -> tuple[int, int]:
        """(input, output) tokens: about four characters per token, prompt scaled by the build.

        ``history_chars`` and ``output_chars`` are the lengths of the messages' JSON text.
        """
        prompt = prompt_chars * self.config.token_factor
        jitter = self.rng.uniform(0.95, 1.05)
        return int((prompt + history_chars) / 4 * jitter), max(8, int(output_chars / 4 * jitter))

    def call_id(self) -> str:
        """A tool-call id in the OpenAI style."""
        return "call_" + "".join(self.rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=24))

    def slip(self, call: Call, payment_methods: list[str]) -> Call:
        """The write call with one realistic argument mistake."""
        args = dict(call.arguments)
        items = args.get("item_ids")
        others = [m for m in payment_methods if m != args.get("payment_method_id")]
        if call.name == "return_delivered_order_items" and others and self.rng.random() < 0.5:
            args["payment_method_id"] = self.rng.choice(others)
        elif isinstance(items, list) and len(items) > 1:
            args["item_ids"] = items[:-1]
        elif call.name == "cancel_pending_order":
            args["reason"] = (
                "ordered by mistake"
                if args.get("reason") == "no longer needed"
                else "no longer needed"
            )
        elif others:
            args["payment_method_id"] = self.rng.choice(others)
        return Call(call.name, args)
