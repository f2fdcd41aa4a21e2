"""A scorer's exception as the one-line reason of its ``error`` row.

Reasons are shown in tables, gate reports, CSV cells and alerts, one line each. ``str`` of an
exception can run over several lines, and a pydantic ``ValidationError`` (raised by the
DeepEval and RAGAS test-case models an adapter builds) always does, ending with a "For further
information visit https://errors.pydantic.dev/..." line that then appeared under every metric
error. Here it is its model, each field, the message and the offending input, on one line.
"""

from pydantic import ValidationError

MAX_INPUT_CHARS = 60
"""How much of an offending input a reason quotes."""


def error_reason(exc: BaseException) -> str:
    """``Type: message`` on one line (see the module docstring)."""
    if isinstance(exc, ValidationError):
        fields = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(value)'}: {error['msg']}"
            + (f" (got {error['input']!r:.{MAX_INPUT_CHARS}})" if "input" in error else "")
            for error in exc.errors(include_url=False)
        )
        return f"{type(exc).__name__}: {exc.title}: {fields}"
    return f"{type(exc).__name__}: {' '.join(str(exc).split())}"
