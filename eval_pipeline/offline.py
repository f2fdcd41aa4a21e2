"""Switch off every library's telemetry and hub access before anything imports them.

Imported first by ``eval_pipeline/__init__.py`` so that no entry point (CLI, Dagster code server,
run worker, tests) can call out. Values are only set when the user has not chosen otherwise,
except for the switches that would send data: those are forced.
"""

import os
from pathlib import Path

_FORCED = {
    # deepeval: PostHog telemetry, .env loading from the working directory.
    "DEEPEVAL_TELEMETRY_OPT_OUT": "1",
    "DEEPEVAL_DISABLE_DOTENV": "1",
    "DEEPEVAL_UPDATE_WARNING_OPT_IN": "0",
    "DEEPEVAL_GRPC_LOGGING": "0",
    # ragas: analytics POST on evaluate/score (must be the string "true").
    "RAGAS_DO_NOT_TRACK": "true",
    # dagster: telemetry upload from dagster dev / the webserver.
    "DAGSTER_DISABLE_TELEMETRY": "1",
    # Hugging Face / tokenizers: never reach a hub; no fork warnings from the Rust tokenizer.
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_DATASETS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "TOKENIZERS_PARALLELISM": "false",
    # LangChain / LangSmith tracing would export runs to a hosted service.
    "LANGCHAIN_TRACING_V2": "false",
    "LANGSMITH_TRACING": "false",
    "LANGCHAIN_TRACING": "false",
    # great_expectations usage statistics (older releases) and posthog in general.
    "GE_USAGE_STATS": "FALSE",
    "GX_ANALYTICS_ENABLED": "False",
    "POSTHOG_DISABLED": "1",
    "DO_NOT_TRACK": "1",
}


def disable_telemetry() -> None:
    """Set the offline switches in this process's environment (idempotent)."""
    for key, value in _FORCED.items():
        os.environ[key] = value
    # deepeval creates ./.deepeval/ at import unless told where to cache.
    cache = Path(os.environ.get("EVAL_PIPELINE_HOME", ".eval_pipeline")) / "deepeval-cache"
    os.environ.setdefault("DEEPEVAL_CACHE_FOLDER", str(cache.resolve()))
    os.environ.setdefault("DEEPEVAL_RESULTS_FOLDER", str((cache / "results").resolve()))


def forced_switches() -> dict[str, str]:
    """The environment values this module forces, for tests and audits."""
    return dict(_FORCED)
