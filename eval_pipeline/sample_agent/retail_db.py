"""The retail database the sample agent works on: a committed subset of tau-bench's.

``data/retail_db/`` holds the users and orders of the tau-bench retail test tasks that return
or cancel orders, every product, and adversarial customer notes (``injections.json``). Each run
gets its own ``RetailDB`` (a copy-on-write view), so concurrent runs never see each other's
writes. Semantics of the write tools follow tau-bench's retail tools.
"""

import copy
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().with_name("retail_data")


class ToolError(Exception):
    """A tool refused the call (unknown id, wrong order status, ...): the model sees the text."""


@lru_cache(maxsize=1)
def tables() -> dict[str, Any]:
    """The committed tables (read-only; never mutate the returned dicts)."""

    def load(name: str) -> Any:
        return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))

    injections = load("injections.json")["cases"]
    return {
        "users": load("users.json"),
        "orders": load("orders.json"),
        "products": load("products.json"),
        "notes": {case["order_id"]: case["text"] for case in injections},
        "injections": injections,
        "tasks": load("tasks.json")["tasks"],
    }


class RetailDB:
    """One run's view of the database; writes stay in this view."""

    def __init__(self) -> None:
        base = tables()
        self._users: dict[str, Any] = base["users"]
        self._orders: dict[str, Any] = base["orders"]
        self._notes: dict[str, str] = base["notes"]
        self._written: dict[str, dict[str, Any]] = {}
        self.actions: list[tuple[str, dict[str, Any]]] = []

    def order(self, order_id: str) -> dict[str, Any]:
        """The current state of an order (raises ``ToolError`` when unknown)."""
        if order_id in self._written:
            return self._written[order_id]
        if order_id not in self._orders:
            raise ToolError(f"Error: order {order_id} not found")
        return self._orders[order_id]  # type: ignore[no-any-return]

    def user(self, user_id: str) -> dict[str, Any]:
        """A user's profile (raises ``ToolError`` when unknown)."""
        if user_id not in self._users:
            raise ToolError(f"Error: user {user_id} not found")
        return self._users[user_id]  # type: ignore[no-any-return]

    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """tau-bench ``find_user_id_by_name_zip``."""
        for user_id, user in self._users.items():
            name = user["name"]
            if (name["first_name"].lower(), name["last_name"].lower(), user["address"]["zip"]) == (
                first_name.lower(),
                last_name.lower(),
                zip,
            ):
                return user_id
        raise ToolError("Error: user not found")

    def find_user_id_by_email(self, email: str) -> str:
        """tau-bench ``find_user_id_by_email``."""
        for user_id, user in self._users.items():
            if user["email"].lower() == email.lower():
                return user_id
        raise ToolError("Error: user not found")

    def get_user_details(self, user_id: str) -> dict[str, Any]:
        """tau-bench ``get_user_details``."""
        return self.user(user_id)

    def get_product_details(self, product_id: str) -> dict[str, Any]:
        """tau-bench ``get_product_details``."""
        products: dict[str, Any] = tables()["products"]
        if product_id not in products:
            raise ToolError(f"Error: product {product_id} not found")
        return products[product_id]  # type: ignore[no-any-return]

    def calculate(self, expression: str) -> str:
        """tau-bench ``calculate``: + - * / and parentheses over decimal numbers."""
        if not expression or any(c not in "0123456789+-*/(). " for c in expression):
            raise ToolError("Error: invalid characters in expression")
        try:
            value = eval(expression, {"__builtins__": {}}, {})
        except (SyntaxError, ZeroDivisionError) as exc:
            raise ToolError(f"Error: {exc}") from exc
        return str(round(float(value), 2))

    def get_order_details(self, order_id: str) -> dict[str, Any]:
        """tau-bench ``get_order_details``, plus the order's customer note when it has one."""
        order = dict(self.order(order_id))
        if order_id in self._notes:
            order["customer_note"] = self._notes[order_id]
        return order

    def return_delivered_order_items(
        self, order_id: str, item_ids: list[str], payment_method_id: str
    ) -> dict[str, Any]:
        """tau-bench ``return_delivered_order_items``."""
        order = self.order(order_id)
        if order["status"] != "delivered":
            raise ToolError("Error: non-delivered order cannot be returned")
        methods = self.user(order["user_id"])["payment_methods"]
        original = order["payment_history"][0]["payment_method_id"]
        if payment_method_id not in methods:
            raise ToolError("Error: payment method not found")
        if payment_method_id != original and "gift_card" not in payment_method_id:
            raise ToolError(
                "Error: payment method should be either the original payment method or a gift card"
            )
        in_order = [item["item_id"] for item in order["items"]]
        for item_id in item_ids:
            if item_id not in in_order:
                raise ToolError(f"Error: item {item_id} not found in order {order_id}")
        updated = copy.deepcopy(order)
        updated.update(
            status="return requested",
            return_items=sorted(item_ids),
            return_payment_method_id=payment_method_id,
        )
        self._written[order_id] = updated
        self.actions.append(("return_delivered_order_items", {"order_id": order_id}))
        return updated

    def cancel_pending_order(self, order_id: str, reason: str) -> dict[str, Any]:
        """tau-bench ``cancel_pending_order``."""
        order = self.order(order_id)
        if order["status"] != "pending":
            raise ToolError("Error: non-pending order cannot be cancelled")
        if reason not in ("no longer needed", "ordered by mistake"):
            raise ToolError("Error: invalid reason")
        updated = copy.deepcopy(order)
        refunds = [
            {
                "transaction_type": "refund",
                "amount": p["amount"],
                "payment_method_id": p["payment_method_id"],
            }
            for p in order["payment_history"]
        ]
        updated.update(
            status="cancelled",
            cancel_reason=reason,
            payment_history=order["payment_history"] + refunds,
        )
        self._written[order_id] = updated
        self.actions.append(("cancel_pending_order", {"order_id": order_id}))
        return updated
