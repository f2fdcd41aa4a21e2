"""Choosing a judge from configuration, in one place.

``offline-minilm`` is the offline default judge (it runs on this machine, no download). Any
other model is served by an OpenAI-compatible endpoint: the ``base_url`` given (a suite's
``judge.base_url``) or ``EVAL_PIPELINE_JUDGE_BASE_URL``, the key from
``EVAL_PIPELINE_JUDGE_API_KEY``. A named model with no endpoint is a configuration error, never
a silent fallback to the offline judge: a build scored by another judge than the one its suite
names would be gated on numbers nobody asked for. Every judge comes wrapped in ``CachedJudge``
on the state database of the current home (or ``state_url``). ``limits`` (a suite's
``max_concurrency``, ``requests_per_minute``, ``tokens_per_minute``) bound the endpoint's
judge; the offline judge runs in process and has none.
"""

import os
from typing import Any

from eval_pipeline.home import current_home
from eval_pipeline.judges.cache import CachedJudge
from eval_pipeline.judges.http_judge import HttpJudge
from eval_pipeline.judges.limits import JudgeLimits
from eval_pipeline.judges.offline.judge import BACKEND as OFFLINE_MODEL
from eval_pipeline.judges.offline.judge import OfflineJudge
from eval_pipeline.judges.protocol import Judge

BASE_URL_ENV = "EVAL_PIPELINE_JUDGE_BASE_URL"
API_KEY_ENV = "EVAL_PIPELINE_JUDGE_API_KEY"


class JudgeConfigError(ValueError):
    """A judge cannot be built from its configuration; the message names the missing setting."""


def judge_from_config(
    model: str,
    rubric_version: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    state_url: str | None = None,
    limits: JudgeLimits | None = None,
    **http_options: Any,
) -> CachedJudge:
    """A cached judge for ``model`` (see the module docstring).

    Args:
        model: ``offline-minilm`` or a model id served by the endpoint.
        rubric_version: the rubric set version (newest when None).
        base_url: the OpenAI-compatible endpoint; defaults to ``EVAL_PIPELINE_JUDGE_BASE_URL``.
        api_key: defaults to ``EVAL_PIPELINE_JUDGE_API_KEY``.
        state_url: the cache's database; defaults to the current home's state database.
        limits: requests in flight and per minute for an endpoint's judge (defaults apply).
        **http_options: passed to ``HttpJudge`` (timeout, retry, temperature).

    Raises:
        JudgeConfigError: ``model`` is not the offline judge and no endpoint is configured.
    """
    inner: Judge
    if model == OFFLINE_MODEL:
        inner = OfflineJudge(rubric_version)
    else:
        endpoint = base_url or os.environ.get(BASE_URL_ENV) or None
        if endpoint is None:
            raise JudgeConfigError(
                f"judge model {model!r} needs an OpenAI-compatible endpoint: set judge.base_url "
                f"in the suite or {BASE_URL_ENV} (or use model {OFFLINE_MODEL!r})"
            )
        inner = HttpJudge(
            model,
            base_url=endpoint,
            api_key=api_key or os.environ.get(API_KEY_ENV) or None,
            rubric_version=rubric_version,
            limits=limits,
            **http_options,
        )
    return CachedJudge(inner, state_url or current_home().state_url)
