"""The OTel GenAI lift of plain spans in C (``_lift``), for the general ingest path.

``genai.lift`` in Python, with its message parsing, cost more per span than a plain
protobuf-to-Parquet walk does in all. ``_lift.lift_into`` does the same for the span nearly all
traffic sends (no events, no other dialect's attributes, no renamed or removed names but
``gen_ai.system``, scalar values as sent) straight into the span's instance dictionary, and
parses GenAI-form messages itself (input histories memoised in ``parse_messages``' cache). Any
other span, message or part goes to the Python code, its reference, so normalised spans never
differ (``test_native_lift`` holds the two equal). Without the extension built, every span is
lifted in Python (``test_native_lift`` fails, so it is noticed).
"""

from collections.abc import Callable
from typing import Any

from eval_pipeline.traces import semconv as sc
from eval_pipeline.traces.model import Message
from eval_pipeline.traces.normalise import genai, openinference, traceloop
from eval_pipeline.traces.normalise import messages as msgs

DECLINED = frozenset(
    {
        openinference.SPAN_KIND,
        *traceloop.MARKERS,
        *sc.RENAMED_ATTRIBUTES,
        sc.PROMPT,
        sc.COMPLETION,
    }
)
"""Attribute names that send a span to the Python lift: another dialect's markers, and the
renamed or removed GenAI names (``gen_ai.system`` aside, which the C lift reads too)."""

KEY_CLASSES: dict[str, bool] = {
    **dict.fromkeys(genai.LIFTED, True),
    **dict.fromkeys(DECLINED, False),
}
"""Attribute name -> True when lifted out of ``attributes``, False when it declines the span."""

lift_into: Callable[[dict[str, Any]], bool] | None
output_messages: Callable[[Any], tuple[Message, ...]] | None
parse: Callable[[Any, str], tuple[Message, ...]] | None
parse_messages: Callable[[Any], tuple[Message, ...]] | None
"""``messages.parse_messages`` in C (its cache shared), for the fast path's input histories."""
try:
    from eval_pipeline.traces.normalise import _lift
except ImportError:  # not built (``setup.py build_ext``): every span is lifted in Python
    lift_into = output_messages = parse = parse_messages = None
else:
    _lift.configure(
        msgs._scan,
        msgs.json_or_text,
        msgs.parse_messages,
        msgs._parse,
        msgs._CACHE,
        msgs._CACHE_SIZE,
        msgs.message,
        msgs.normalise_part,
        genai.operation_from,
        sc.schema_version,
        dict(genai._PLAIN_OPERATIONS),
        KEY_CLASSES,
        Message,
        sc.DIALECT_OTEL_GENAI,
        genai.CURRENT,
        genai.SYSTEM_VERSION,
        dict(sc.PROVIDER_RENAMES),
    )
    lift_into = _lift.lift_into
    output_messages = _lift.output_messages
    parse = _lift.parse
    parse_messages = _lift.parse_messages
