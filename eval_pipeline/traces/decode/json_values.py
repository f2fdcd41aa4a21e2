"""OTLP/JSON field values -> Python values, each bad one raising ``FieldError`` naming it.

Follows the OTLP/JSON mapping: ids are lowercase hex (not base64), 64-bit integers may be
strings, enums may be integers or their names, keys are lowerCamelCase (snake_case accepted).
Every ``AnyValue`` kind is decoded: kvlists become dicts, arrays lists, bytes base64 text.
"""

import math
from typing import Any

from eval_pipeline.traces.decode.errors import INT64_MAX, INT64_MIN, FieldError

HEX = frozenset("0123456789abcdef")


def get(obj: dict[str, Any], camel: str, snake: str) -> Any:
    """The value under the lowerCamelCase key, else under the snake_case one."""
    value = obj.get(camel)
    return obj.get(snake) if value is None else value


def list_of(obj: dict[str, Any], camel: str, snake: str, where: str) -> list[Any]:
    """The list under either key ([] when absent); ``where`` names it in errors."""
    value = get(obj, camel, snake)
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(where, f"must be a list, got {type(value).__name__}")
    return value


def hex_id(value: Any, size: int, field_name: str, required: bool) -> str | None:
    """A hex id of ``size`` characters, lowercased (None for an absent or zero optional id)."""
    if value in (None, ""):
        if required:
            raise FieldError(field_name, "is missing")
        return None
    if not isinstance(value, str):
        raise FieldError(field_name, f"must be a hex string, got {type(value).__name__}")
    text = value.lower()
    if len(text) != size or not HEX.issuperset(text):
        raise FieldError(field_name, f"must be {size} hex characters, got {value[:40]!r}")
    if text.count("0") == size:
        if required:
            raise FieldError(field_name, "must not be all zeros")
        return None
    return text


def uint(value: Any, field_name: str) -> int:
    """A non-negative 64-bit integer, from a number or its decimal text (0 when absent)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise FieldError(field_name, f"must be an integer, got {type(value).__name__}")
    try:
        number = int(value)
    except ValueError:
        raise FieldError(field_name, f"must be an integer, got {value!r}") from None
    if number < 0:
        raise FieldError(field_name, f"must not be negative, got {number}")
    if number > INT64_MAX:
        raise FieldError(field_name, f"{number} is beyond the 64-bit range the store holds")
    return number


def enum(value: Any, names: tuple[str, ...], prefix: str, field_name: str) -> str:
    """An enum by name: from its number or its (prefixed, any case) name."""
    if value is None:
        return names[0]
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(names):
        return names[value]
    if isinstance(value, str):
        short = value.upper().removeprefix(prefix).lower()
        if short in names:
            return short
    raise FieldError(field_name, f"unknown enum value {value!r}")


def text(value: Any, field_name: str, limit: int) -> str:
    """A string of at most ``limit`` characters."""
    if not isinstance(value, str):
        raise FieldError(field_name, f"must be a string, got {type(value).__name__}")
    if len(value) > limit:
        raise FieldError(field_name, f"value of {len(value)} chars exceeds {limit}")
    return value


def _value(value: Any, field_name: str, limit: int) -> Any:
    if not isinstance(value, dict):
        raise FieldError(field_name, f"AnyValue must be an object, got {type(value).__name__}")
    if not value:
        return None
    kind, raw = next(iter(value.items()))
    if kind == "stringValue" or kind == "string_value":
        return text(raw, field_name, limit)
    if kind in ("intValue", "int_value"):
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise FieldError(field_name, f"intValue must be an integer, got {raw!r}")
        try:
            number = int(raw) if len(str(raw)) <= 24 else None
        except ValueError:
            number = None
        if number is None or not INT64_MIN <= number <= INT64_MAX:
            raise FieldError(field_name, f"intValue must be a 64-bit integer, got {raw!r:.40}")
        return number
    if kind in ("doubleValue", "double_value"):
        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            raise FieldError(field_name, f"doubleValue must be a number, got {raw!r:.40}")
        try:
            double = float(raw) if len(str(raw)) <= 400 else math.nan
        except (ValueError, OverflowError):
            double = math.nan
        if not math.isfinite(double):
            raise FieldError(field_name, f"doubleValue must be a finite number, got {raw!r:.40}")
        return double
    if kind in ("boolValue", "bool_value"):
        if not isinstance(raw, bool):
            raise FieldError(field_name, f"boolValue must be a boolean, got {raw!r}")
        return raw
    if kind in ("arrayValue", "array_value"):
        items = raw.get("values", []) if isinstance(raw, dict) else None
        if not isinstance(items, list):
            raise FieldError(field_name, "arrayValue.values must be a list")
        return [_value(item, field_name, limit) for item in items]
    if kind in ("kvlistValue", "kvlist_value"):
        pairs = raw.get("values", []) if isinstance(raw, dict) else None
        if not isinstance(pairs, list):
            raise FieldError(field_name, "kvlistValue.values must be a list")
        return attributes(pairs, field_name, limit)
    if kind in ("bytesValue", "bytes_value"):
        return text(raw, field_name, limit)
    raise FieldError(field_name, f"unknown AnyValue kind {kind!r}")


def attributes(pairs: Any, where: str, limit: int) -> dict[str, Any]:
    """A JSON ``KeyValue`` list -> dict; ``where`` prefixes the field named in errors."""
    if not isinstance(pairs, list):
        raise FieldError(where, f"must be a list, got {type(pairs).__name__}")
    out: dict[str, Any] = {}
    for pair in pairs:
        key = pair.get("key") if isinstance(pair, dict) else None
        if not isinstance(key, str):
            raise FieldError(where, f"every attribute needs a string key, got {pair!r:.80}")
        out[key] = _value(pair.get("value", {}), f"{where}[{key}]", limit)
    return out


def invalid_text(value: Any, path: str) -> str | None:
    """The path of the first string holding undecodable bytes, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    if isinstance(value, dict):
        if isinstance(value.get("key"), str) and "value" in value:
            path = f"{path}[{value['key']}]" if path else f"attributes[{value['key']}]"
            return invalid_text(value["key"], path) or invalid_text(value["value"], path)
        for key, item in value.items():
            found = invalid_text(item, key if not path else f"{path}.{key}")
            if found is not None:
                return found
    if isinstance(value, list):
        for item in value:
            found = invalid_text(item, path)
            if found is not None:
                return found
    return None
