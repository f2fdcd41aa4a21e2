"""Choosing a judge from configuration, in one place.

``offline-minilm`` (or any model when no endpoint is configured) gives the offline default
judge; any other model with an endpoint (argument or ``EVAL_PIPELINE_JUDGE_BASE_URL``, key from
``EVAL_PIPELINE_JUDGE_API_KEY``) gives the OpenAI-compatible HTTP judge. Every judge comes
wrapped in ``CachedJudge`` on the state database of the current home (or ``state_url``).
"""

import os
from typing import Any

from eval_pipeline.home import current_home
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.http_judge import HttpJudge
from eval_pipeline.judges.offline.judge import BACKEND as OFFLINE_MODEL
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import Judge

BASE_URL_ENV = "EVAL_PIPELINE_JUDGE_BASE_URL"
API_KEY_ENV = "EVAL_PIPELINE_JUDGE_API_KEY"


def judge_from_config(
    model: str,
    rubric_version: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    state_url: str | None = None,
    **http_options: Any,
) -> CachedJudge:
    """A cached judge for ``model`` (see the module docstring).

    Args:
        model: ``offline-minilm`` or a model id served by the endpoint.
        rubric_version: the rubric set version (newest when None).
        base_url: the OpenAI-compatible endpoint; defaults to ``EVAL_PIPELINE_JUDGE_BASE_URL``.
        api_key: defaults to ``EVAL_PIPELINE_JUDGE_API_KEY``.
        state_url: the cache's database; defaults to the current home's state database.
        **http_options: passed to ``HttpJudge`` (timeout, retry, max_concurrency, temperature).
    """
    endpoint = base_url or os.environ.get(BASE_URL_ENV) or None
    inner: Judge
    if model == OFFLINE_MODEL or endpoint is None:
        inner = OfflineJudge(rubric_version)
    else:
        inner = HttpJudge(
            model,
            base_url=endpoint,
            api_key=api_key or os.environ.get(API_KEY_ENV) or None,
            rubric_version=rubric_version,
            **http_options,
        )
    return CachedJudge(inner, state_url or current_home().state_url)


def judge_from_suite(suite: Any) -> CachedJudge:
    """The judge a suite configures (duck-typed: ``suite.judge.model``, ``.rubric_version``)."""
    config = suite.judge
    return judge_from_config(str(config.model), getattr(config, "rubric_version", None))
