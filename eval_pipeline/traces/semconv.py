"""The GenAI semantic-convention version spans are normalised *to*, and its attribute names.

This is the one place the target version is pinned (docs/DESIGN.md section 5). Upgrading it is a
change like any other: tests first. The names below are those of the pinned version; older
names and other dialects are mapped onto them by ``traces.normalise``.
"""

from functools import lru_cache

TARGET_CONVENTION_VERSION = "1.41.0"
"""GenAI conventions version every span is normalised to (last core release with GenAI)."""

DIALECT_OTEL_GENAI = "otel-genai"
DIALECT_OPENINFERENCE = "openinference"
DIALECT_TRACELOOP = "traceloop"
DIALECT_TAU2 = "tau2-bench"
DIALECT_TAUBENCH = "tau-bench"

OPERATION_NAME = "gen_ai.operation.name"
PROVIDER_NAME = "gen_ai.provider.name"
SYSTEM = "gen_ai.system"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
AGENT_NAME = "gen_ai.agent.name"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_CALL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_CALL_RESULT = "gen_ai.tool.call.result"
USAGE_INPUT_TOKENS = "gen_ai.usage.input_tokens"
USAGE_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
CONVERSATION_ID = "gen_ai.conversation.id"
INPUT_MESSAGES = "gen_ai.input.messages"
OUTPUT_MESSAGES = "gen_ai.output.messages"
SYSTEM_INSTRUCTIONS = "gen_ai.system_instructions"
RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents"
HANDOFF_FROM = "gen_ai.handoff.from_agent"
HANDOFF_TO = "gen_ai.handoff.to_agent"
ERROR_TYPE = "error.type"

RENAMED_ATTRIBUTES: dict[str, str] = {
    "gen_ai.usage.prompt_tokens": USAGE_INPUT_TOKENS,
    "gen_ai.usage.completion_tokens": USAGE_OUTPUT_TOKENS,
    "gen_ai.openai.request.seed": "gen_ai.request.seed",
    "gen_ai.openai.request.response_format": "gen_ai.output.type",
    "gen_ai.openai.request.service_tier": "openai.request.service_tier",
    "gen_ai.openai.response.service_tier": "openai.response.service_tier",
    "gen_ai.openai.response.system_fingerprint": "openai.response.system_fingerprint",
}
"""Old attribute name -> name in the pinned version (the rename map, in one place)."""

PROVIDER_RENAMES: dict[str, str] = {
    "vertex_ai": "gcp.vertex_ai",
    "gemini": "gcp.gemini",
    "az.ai.inference": "azure.ai.inference",
    "az.ai.openai": "azure.ai.openai",
    "xai": "x_ai",
}
"""Old ``gen_ai.system`` values -> ``gen_ai.provider.name`` values of the pinned version."""

OPERATION_ALIASES: dict[str, str] = {
    "agent_handoff": "handoff",
    "completion": "text_completion",
    "embedding": "embeddings",
    "tool": "execute_tool",
    "agent": "invoke_agent",
}
"""Operation names seen in the wild that mean one of the pinned operations."""

MESSAGE_EVENTS: dict[str, str] = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
"""Pre-1.37 per-message events -> role (``gen_ai.choice`` is an output message)."""

CHOICE_EVENT = "gen_ai.choice"

OPERATION_DETAILS_EVENT = "gen_ai.client.inference.operation.details"
"""The 1.37+ event carrying an inference's content (input/output messages, system
instructions, tool definitions) and its other attributes, for capture outside the span's own
attributes. Its attributes have the span attributes' names."""

PROMPT = "gen_ai.prompt"
COMPLETION = "gen_ai.completion"
"""Pre-1.28 content attributes: a JSON message list (or plain text) under one key, or
flattened per message (``gen_ai.prompt.{i}.role`` ..., the OpenLLMetry form)."""

OTEL_SCHEMA_PREFIX = "https://opentelemetry.io/schemas/"


@lru_cache(maxsize=256)  # every span of a scope names the same URL
def schema_version(url: str | None) -> str | None:
    """The convention version an OpenTelemetry schema URL names, else None.

    ``https://opentelemetry.io/schemas/1.28.0`` -> ``1.28.0``; the GenAI repository's
    development schemas keep their family (``gen-ai-dev/1.42.0-dev``). Other URLs (a vendor's
    own schema) name no version of these conventions.
    """
    if not url or not url.startswith(OTEL_SCHEMA_PREFIX):
        return None
    version = url[len(OTEL_SCHEMA_PREFIX) :].strip("/")
    return version or None
