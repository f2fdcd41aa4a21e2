"""The agent's tools: OpenAI function schemas and their execution against one run's database.

Lookup and write tools are tau-bench's retail tools (same names and arguments); the sample
system adds ``search_policy`` (retrieval over the policy index), ``transfer_to_agent``
(the hand-off, named as in agent frameworks that transfer by agent name; a tool name
without "refund" in it, so it is never mistaken for the refund itself) and
``confirm_action`` (asks the customer and returns their answer; the simulated customer
agrees, as the task's instruction says they want the action).
"""

from typing import Any

from eval_pipeline.sample_agent.policy_index import policy_index
from eval_pipeline.sample_agent.retail_db import RetailDB, ToolError

WRITE_TOOLS = ("return_delivered_order_items", "cancel_pending_order")


def _fn(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {"type": "object", "properties": properties, "required": required},
        },
    }


_S = {"type": "string"}
_IDS = {"type": "array", "items": {"type": "string"}}

SUPPORT_TOOLS = [
    _fn("find_user_id_by_email", "Find user id by email.", {"email": _S}, ["email"]),
    _fn(
        "find_user_id_by_name_zip",
        "Find user id by first name, last name and zip code.",
        {"first_name": _S, "last_name": _S, "zip": _S},
        ["first_name", "last_name", "zip"],
    ),
    _fn(
        "get_user_details",
        "Get the details of a user, including their orders.",
        {"user_id": _S},
        ["user_id"],
    ),
    _fn(
        "get_order_details",
        "Get the status and details of an order.",
        {"order_id": _S},
        ["order_id"],
    ),
    _fn(
        "get_product_details",
        "Get the inventory details of a product.",
        {"product_id": _S},
        ["product_id"],
    ),
    _fn(
        "calculate",
        "Calculate the result of a mathematical expression.",
        {"expression": _S},
        ["expression"],
    ),
    _fn(
        "search_policy",
        "Retrieve the refund, return and cancellation policy passages.",
        {"query": _S},
        ["query"],
    ),
    _fn(
        "transfer_to_agent",
        "Hand the conversation to another agent (the refunds agent "
        "handles returns and cancellations) with everything it needs.",
        {
            "agent_name": {"type": "string", "enum": ["refunds_agent"]},
            "user_id": _S,
            "order_ids": _IDS,
            "request": _S,
        },
        ["agent_name", "user_id", "request"],
    ),
]


def refunds_tools(renamed: dict[str, str]) -> list[dict[str, Any]]:
    """The refunds agent's tools; ``renamed`` renames write-tool arguments (a seeded defect)."""

    def arg(name: str) -> str:
        return renamed.get(name, name)

    return [
        _fn(
            "get_user_details",
            "Get the details of a user, including their orders.",
            {"user_id": _S},
            ["user_id"],
        ),
        _fn(
            "get_order_details",
            "Get the status and details of an order.",
            {"order_id": _S},
            ["order_id"],
        ),
        _fn(
            "confirm_action",
            "List the action details to the customer and ask for explicit "
            "confirmation (yes) before a consequential write.",
            {"action": _S, "order_id": _S, "details": _S},
            ["action", "order_id", "details"],
        ),
        _fn(
            "return_delivered_order_items",
            "Return some items of a delivered order.",
            {arg("order_id"): _S, arg("item_ids"): _IDS, arg("payment_method_id"): _S},
            [arg("order_id"), arg("item_ids"), arg("payment_method_id")],
        ),
        _fn(
            "cancel_pending_order",
            "Cancel a pending order.",
            {arg("order_id"): _S, arg("reason"): _S},
            [arg("order_id"), arg("reason")],
        ),
    ]


class ToolBox:
    """Executes tool calls for one run; results are JSON-safe, failures raise ``ToolError``."""

    def __init__(
        self,
        db: RetailDB,
        *,
        policy_version: str = "current",
        renamed: dict[str, str] | None = None,
    ) -> None:
        self.db = db
        self.policy = policy_index(policy_version)
        self._unrename = {new: old for old, new in (renamed or {}).items()}

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Run tool ``name``; unknown tools and bad arguments raise ``ToolError``."""
        args = dict(arguments)
        if name in WRITE_TOOLS:
            args = {self._unrename.get(k, k): v for k, v in args.items()}
        try:
            if name == "search_policy":
                return [
                    {"id": p.doc_id, "title": p.title, "content": p.content, "score": p.score}
                    for p in self.policy.search(str(args["query"]), k=4)
                ]
            if name == "confirm_action":
                return {
                    "confirmed": True,
                    "customer_reply": "yes",
                    "action": args.get("action"),
                    "order_id": args.get("order_id"),
                }
            method = getattr(self.db, name, None)
            if method is None or name.startswith("_") or name in ("order", "user"):
                raise ToolError(f"Error: unknown tool {name}")
            return method(**args)
        except TypeError as exc:
            raise ToolError(f"Error: bad arguments for {name}: {exc}") from exc
        except KeyError as exc:
            raise ToolError(f"Error: missing argument {exc} for {name}") from exc
