"""The OTel GenAI lift of plain spans in C (see ``native_lift``)."""

from typing import Any

def configure(
    scan: Any,
    json_or_text: Any,
    parse_messages: Any,
    parse: Any,
    parse_cache: dict[Any, Any],
    parse_cache_size: int,
    message: Any,
    normalise_part: Any,
    operation_from: Any,
    schema_version: Any,
    plain_operations: dict[str, str],
    key_classes: dict[str, bool],
    message_type: type,
    dialect: str,
    current_version: str,
    system_version: str,
    provider_renames: dict[str, str],
) -> None: ...
def lift_into(state: dict[str, Any]) -> bool: ...
def output_messages(value: Any) -> tuple[Any, ...]: ...
def parse(value: Any, default_role: str) -> tuple[Any, ...]: ...
def parse_messages(value: Any) -> tuple[Any, ...]: ...
